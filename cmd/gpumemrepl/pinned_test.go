package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestPinnedAsRecorded runs the code of PyTorch's pinned-memory recording
// (scripts/record_host.py) through the binary, step by step, and
// compares torch.cuda.host_memory_stats() after every step with
// PyTorch's; the step report shows the pinned memory held.
func TestPinnedAsRecorded(t *testing.T) {
	t.Parallel()
	f, err := os.Open("../../testdata/host/host.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var src strings.Builder
	src.WriteString("import torch\nlive = {}\n")
	var want []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var row struct {
			Code  string           `json:"code"`
			Stats map[string]int64 `json:"stats"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		src.WriteString(row.Code + "\n")
		src.WriteString("print(sorted((k, v) for k, v in torch.cuda.host_memory_stats().items() if 'time' not in k))\n")
		keys := make([]string, 0, len(row.Stats))
		for k := range row.Stats {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		items := make([]string, len(keys))
		for i, k := range keys {
			items[i] = fmt.Sprintf("('%s', %d)", k, row.Stats[k])
		}
		want = append(want, "["+strings.Join(items, ", ")+"]")
	}
	script := filepath.Join(t.TempDir(), "pinned.py")
	if err := os.WriteFile(script, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--device", "sim", "--fake-host", "--no-color", script)
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "[") {
			got = append(got, l)
		}
	}
	if code != 0 || len(got) != len(want) {
		t.Fatalf("exit %d, %d stats printed for %d steps\n%s", code, len(got), len(want), errOut)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("step %d: host_memory_stats\n%s\nPyTorch's\n%s", i, got[i], want[i])
		}
	}
	if !strings.Contains(out, "(pinned 4.00 MiB +4.00 MiB)") {
		t.Errorf("no step reports the pinned memory taken:\n%s", out)
	}
	// .cuda(non_blocking=True) and copy_(non_blocking=True) are the copy
	// the recorded .to(non_blocking=True) runs: each holds its pinned block
	for _, copyIt := range []string{"g = x.cuda(non_blocking=True)", "g = torch.empty(1 << 20, dtype=torch.uint8, device='cuda'); g.copy_(x, non_blocking=True)", "g = x.cuda()"} {
		src := "import torch\nx = torch.empty(1 << 20, dtype=torch.uint8, pin_memory=True)\n" + copyIt + "\ndel x\n" +
			"y = torch.empty(1 << 20, dtype=torch.uint8, pin_memory=True)\nprint(torch.cuda.host_memory_stats()['allocations.current'])\n"
		if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		want := "2\n"
		if !strings.Contains(copyIt, "non_blocking") {
			want = "1\n"
		}
		out, errOut, code := run(t, "run", "--device", "sim", "--fake-host", "--no-color", script)
		if code != 0 || !strings.Contains(out, "\n"+want) {
			t.Errorf("%s: exit %d, want %q blocks held\n%s%s", copyIt, code, want, out, errOut)
		}
	}
}
