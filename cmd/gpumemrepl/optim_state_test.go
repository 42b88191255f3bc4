package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAdamStepCounter: Adam's and AdamW's state holds PyTorch's step
// counter first, a 0-d float32 tensor on the host (4 bytes of host
// memory a parameter, none on the GPU) counting the steps taken, float64
// under a float64 default dtype; with fused=True it is on the GPU, as
// _init_group makes it.
func TestAdamStepCounter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "adam.py")
	src := `import torch
m = torch.nn.Linear(256, 256).cuda()
m(torch.randn(8, 256, device='cuda')).sum().backward()
opt = torch.optim.AdamW(m.parameters())
opt.step()
opt.step()
st = opt.state[m.weight]
print(list(st), st['step'], st['step'].device, st['step'].dtype)
print(opt.state_dict()['state'][1]['step'])
fused = torch.optim.Adam(m.parameters(), fused=True)
fused.step()
print(fused.state[m.bias]['step'])
torch.set_default_dtype(torch.float64)
late = torch.optim.Adam(m.parameters())
late.step()
print(late.state[m.bias]['step'].dtype)
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--json", "--fake-host", "--device", "sim", path)
	type row struct {
		Line      int    `json:"line"`
		Host      int64  `json:"host_rss_bytes"`
		Allocated int64  `json:"allocated_bytes"`
		Output    string `json:"output"`
	}
	rows := map[int]row{}
	for _, l := range strings.Split(out, "\n") {
		var r row
		if json.Unmarshal([]byte(l), &r) == nil && r.Line > 0 {
			rows[r.Line] = r
		}
	}
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	// the first step: two host counters of 4 bytes, two moments a parameter on the GPU
	if host, gpu := rows[5].Host-rows[4].Host, rows[5].Allocated-rows[4].Allocated; host != 8 || gpu != 2*(256*256*4+256*4) {
		t.Errorf("the first step made %d host bytes and %d on the GPU, want 8 and the moments' %d", host, gpu, 2*(256*256*4+256*4))
	}
	for line, want := range map[int]string{
		8:  "['step', 'exp_avg', 'exp_avg_sq'] tensor(2.) cpu torch.float32\n",
		9:  "tensor(2.)\n",
		12: "tensor(1., device='cuda:0')\n",
		16: "torch.float64\n",
	} {
		if rows[line].Output != want {
			t.Errorf("line %d printed %q, want %q", line, rows[line].Output, want)
		}
	}
}
