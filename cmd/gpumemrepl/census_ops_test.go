package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// censusOp is one statement of TestCensusOpsEstimated: an op of issue
// 35's census modelled from PyTorch's formulas, the estimate its step
// must name while its rule is not held to its recording (its rule script
// in testdata/pyrules; "" once held, testdata/pyrules/
// statements_differ.txt), and how much more it leaves allocated.
type censusOp struct {
	stmt, est string
	grew      int64
}

// censusSetup runs before the ops: x needs grad, c are known counts.
const censusSetup = `import torch
import torch.nn.functional as F
x = torch.rand(512, 1024, device='cuda', requires_grad=True)
c = torch.tensor([1, 2, 3], device='cuda')
gen = torch.Generator(device='cuda').manual_seed(0)
`

var censusOps = []censusOp{
	{"a = x.repeat_interleave(2, dim=0)", "", 4 * mib},
	{"b = torch.repeat_interleave(c)", "", 512},
	{"d = torch.ones(3, 4, device='cuda').repeat_interleave(c, dim=0)", "", 512},
	{"e = x.flip(0)", "", 2 * mib},
	{"f = torch.roll(x, (1, 2), (0, 1))", "", 2 * mib},
	{"g = x.amax(dim=-1)", "", 2048},
	{"h = F.normalize(x, dim=1)", "", 2*mib + 2*2048},
	{"i = F.one_hot(c, 5)", "", 512},
	{"j = torch.isinf(x)", "", mib / 2},
	{"k = x.isnan()", "", mib / 2},
	{"l = torch.isfinite(x)", "", mib / 2},
	{"m = x.clamp_min(0.5)", "", 2 * mib},
	{"n = torch.randperm(1000, device='cuda', generator=gen)", "", 8192},
	{"o = torch.multinomial(torch.ones(4, 1000, device='cuda'), 2)", "", 512},
	{"q = x[:, :512].trace()", "", 512},
	{"r = torch.diag(x[0, :300])", "", 360448},
	{"s = torch.scalar_tensor(2, device='cuda')", "", 512},
	{"u = torch.unique(c)", "", 512},
	{"v = (x * 1).triu_(1)", "", 2 * mib},
	{"w1 = torch.view_as_complex(x.reshape(512, 512, 2))", "", 0},
	{"w2 = torch.polar(torch.ones(512, 512, device='cuda'), torch.zeros(512, 512, device='cuda'))", "", 2 * mib},
	{"w3 = torch.view_as_real(torch.zeros(512, 512, dtype=torch.complex64, device='cuda'))", "", 2 * mib},
	// a reduced loss keeps the storage of its input's size, as mse_loss's,
	// and its node the target
	{"y1 = F.smooth_l1_loss(x, x.detach() * 0)", "", 4 * mib},
	{"y2 = F.binary_cross_entropy(x, x.detach())", "", 2 * mib},
	{"y3 = F.adaptive_max_pool2d(x.view(2, 4, 256, 256), 4)", "", 512 + 1024}, // and the saved indices
	{"y4 = F.softplus(x)", "", 2 * mib},
	{"y5 = F.glu(x)", "", mib},
	{"y6 = torch.maximum(x, x.detach()[:1])", "", 2 * mib},
	{"y7 = x.scatter(1, c.view(1, 3).expand(512, 3), 0.0)", "", 2 * mib},
	{"y8 = torch.ones(512, 512, device='cuda').fill_diagonal_(0.0)", "", mib},
	{"z1 = torch.isin(c, c[:1])", "", 512},
	{"z2 = x.logsumexp(-1)", "", 2048},
	{"z3 = torch.tensor_split(x, 3, dim=1)", "", 0},
	{"z4 = x.unfold(1, 64, 32)", "", 0},
	{"z5 = x.take(c)", "", 512},
	{"z6 = torch.addcmul(x, x, x, value=0.5)", "", 2 * mib},
	{"z7 = torch.diff(x, dim=1)", "", 512 * 1023 * 4},
	{"z8 = torch.hann_window(400, device='cuda')", "", 2048},
	{"z9 = torch.quantile(x.detach(), 0.5, dim=1)", "", 2048},
	{"z10 = torch.var_mean(x, dim=1)", "", 2 * 2048},
	{"z11 = torch.std_mean(x, dim=1)", "torch.std_mean [512, 1024] float32: memory rule from PyTorch's formula, not yet recorded on the GPU", 2 * 2048},
}

// TestCensusOpsEstimated: each op of censusOps runs through the binary
// with its step marked estimated, naming the op and its shapes, and
// allocates what its rule says; their outputs have PyTorch's shapes and
// the values the tool knows; backward runs through them; under --strict
// each is refused at its line.
func TestCensusOpsEstimated(t *testing.T) {
	var b strings.Builder
	b.WriteString(censusSetup)
	first := strings.Count(censusSetup, "\n") + 1
	for _, o := range censusOps {
		b.WriteString(o.stmt + "\n")
	}
	printLine := first + len(censusOps)
	b.WriteString("print(a.shape, b.tolist(), d.shape, e.shape, f.shape, g.shape, h.shape, i.tolist(), j.dtype, l.shape, m.grad_fn.name())\n")
	b.WriteString("print(n.dtype, o.shape, q.grad_fn.name(), r.shape, s.item(), u.tolist(), v.grad_fn.name(), w1.dtype, w2.dtype, w3.shape)\n")
	b.WriteString("print(y1.shape, y2.grad_fn.name(), y3.shape, y4.grad_fn.name(), y5.shape, y6.grad_fn.name(), y7.grad_fn.name())\n")
	b.WriteString("print(z1.tolist(), z2.grad_fn.name(), [p.shape[1] for p in z3], z4.shape, z5.shape, z6.grad_fn.name(), z7.shape, z8.shape, z9.shape, z10[1].grad_fn.name())\n")
	b.WriteString("(a.sum() + e.sum() + f.sum() + g.sum() + h.sum() + m.sum() + q + r.sum() + v.sum() + torch.view_as_real(w1 * w2).sum() + y1 + y2 + y3.sum() + y4.sum() + y5.sum() + y6.sum() + y7.sum() + z2.sum() + z3[0].sum() + z4.sum() + z5.sum() + z6.sum() + z7.sum() + z10[0].sum() + z10[1].sum()).backward()\n")
	b.WriteString("print(x.grad.shape)\n")
	path := writeProgram(t, "census_ops.py", b.String())

	out, errOut, code := run(t, "run", "--json", "--fake-host", "--device", "sim", path)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	type row struct {
		Line      int      `json:"line"`
		Allocated int64    `json:"allocated_bytes"`
		Estimates []string `json:"estimates"`
		Output    string   `json:"output"`
	}
	rows := map[int]row{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r row
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		rows[r.Line] = r
	}
	for i, o := range censusOps {
		line := first + i
		r := rows[line]
		if o.est == "" && len(r.Estimates) > 0 || o.est != "" && (len(r.Estimates) == 0 || r.Estimates[0] != o.est) {
			t.Errorf("line %d (%s): estimates %q, want %q", line, o.stmt, r.Estimates, o.est)
		}
		if got := r.Allocated - rows[line-1].Allocated; got != o.grew {
			t.Errorf("line %d (%s): allocated %d more, want %d", line, o.stmt, got, o.grew)
		}
	}
	want := "torch.Size([1024, 1024]) [0, 1, 1, 2, 2, 2] torch.Size([6, 4]) torch.Size([512, 1024]) torch.Size([512, 1024]) torch.Size([512]) torch.Size([512, 1024]) [[0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]] torch.bool torch.Size([512, 1024]) ClampMinBackward0\n"
	if got := rows[printLine].Output; got != want {
		t.Errorf("printed %q\nwant    %q", got, want)
	}
	if got, want := rows[printLine+1].Output, "torch.int64 torch.Size([4, 2]) TraceBackward0 torch.Size([300, 300]) 2.0 [1, 2, 3] TriuBackward0 torch.complex64 torch.complex64 torch.Size([512, 512, 2])\n"; got != want {
		t.Errorf("printed %q\nwant    %q", got, want)
	}
	if got, want := rows[printLine+2].Output, "torch.Size([]) BinaryCrossEntropyBackward0 torch.Size([2, 4, 4, 4]) SoftplusBackward0 torch.Size([512, 512]) MaximumBackward0 ScatterBackward1\n"; got != want {
		t.Errorf("printed %q\nwant    %q", got, want)
	}
	if got, want := rows[printLine+3].Output, "[True, False, False] LogsumexpBackward0 [342, 341, 341] torch.Size([512, 31, 64]) torch.Size([3]) AddcmulBackward0 torch.Size([512, 1023]) torch.Size([400]) torch.Size([512]) VarMeanBackward0\n"; got != want {
		t.Errorf("printed %q\nwant    %q", got, want)
	}
	if got := rows[printLine+5].Output; got != "torch.Size([512, 1024])\n" {
		t.Errorf("after backward printed %q", got)
	}

	_, errOut, code = run(t, "run", "--strict", "--keep-going", "--fake-host", "--device", "sim", path)
	if code != 1 {
		t.Errorf("--strict: exit %d, want 1", code)
	}
	for i, o := range censusOps {
		want := fmt.Sprintf("%s:%d:", path, first+i)
		found := false
		for _, l := range strings.Split(errOut, "\n") {
			if strings.HasPrefix(l, want) && strings.Contains(l, "NotImplementedError: ") {
				found = true
			}
		}
		if found == (o.est == "") {
			t.Errorf("--strict: refused %v (want %v) %s at line %d in\n%s", found, o.est != "", o.stmt, first+i, errOut)
		}
	}
}

// TestGeneratorAndNumpy: torch.Generator seeds and is passed as
// generator= (a generator of another device type is PyTorch's error);
// Tensor.numpy of a host tensor shares its memory (no new bytes, and the
// array keeps it after the tensor is deleted), torch.from_numpy gives
// it back; numpy of a CUDA tensor or of one that requires grad is
// PyTorch's error, numpy(force=True) copies to the host.
func TestGeneratorAndNumpy(t *testing.T) {
	steps, printed, _ := runPython(t, `import torch
g = torch.Generator(device='cuda')
print(g.manual_seed(7) is g, g.initial_seed(), g.device, torch.Generator().device)
r = torch.randn(256, 1024, device='cuda', generator=g)
torch.rand(3, generator=g)
h = torch.arange(1 << 16).reshape(256, 256)
a = h.numpy()
del h
print(a.shape, a.dtype, a.nbytes, a.tolist()[1][:3])
b = torch.from_numpy(a)
print(b.shape, b.dtype)
r.numpy()
f = r.numpy(force=True)
torch.ones(2, requires_grad=True).numpy()
`)
	for line, want := range map[int]string{
		3:  "True 7 cuda:0 cpu\n",
		9:  "(256, 256) int64 524288 [256, 257, 258]\n",
		11: "torch.Size([256, 256]) torch.int64\n",
	} {
		if printed[line] != want {
			t.Errorf("line %d printed %q, want %q", line, printed[line], want)
		}
	}
	if got := steps[4].Allocated; got != 1<<20 {
		t.Errorf("randn with generator= allocated %d, want 1 MiB", got)
	}
	for line, e := range map[int]string{
		5:  "RuntimeError: Expected a 'cpu' device type for generator but found 'cuda'",
		12: "TypeError: can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first.",
		14: "RuntimeError: Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.",
	} {
		if s := steps[line]; s.Error == nil || !strings.Contains(*s.Error, e) {
			t.Errorf("line %d: error %v, want %q", line, s.Error, e)
		}
	}
	// the array and from_numpy's tensor share h's 512 KiB; the forced
	// copy is 1 MiB more
	for line, grew := range map[int]int64{6: 1 << 19, 7: 0, 8: 0, 10: 0, 13: 1 << 20} {
		if got := steps[line].Host - steps[line-1].Host; got != grew {
			t.Errorf("line %d: host grew %d, want %d", line, got, grew)
		}
	}
	for _, line := range []int{7, 8, 10} {
		if steps[line].Error != nil {
			t.Errorf("line %d: %s", line, *steps[line].Error)
		}
	}
}

// TestCensusSmallNames: the census's names that allocate as recorded
// ops do or not at all: byte/char/short (to), torch.is_floating_point,
// the CPU autocast queries, torch.cuda.manual_seed(_all),
// set_default_tensor_type (PyTorch's warning once; a CUDA type makes
// factories make CUDA tensors), to_sparse, refused plainly, the legacy
// Tensor.new and new_tensor, torch.xpu on a machine without one, and
// torch.storage's UntypedStorage (it keeps its tensor's memory) with
// torch.serialization's allowlist and location_tag.
func TestCensusSmallNames(t *testing.T) {
	steps, printed, errOut := runPython(t, `import torch
x = torch.rand(4, device='cuda')
print(x.byte().dtype, x.char().dtype, x.short().dtype, torch.is_floating_point(x), torch.is_floating_point(x.long()))
print(torch.is_autocast_cpu_enabled(), torch.get_autocast_cpu_dtype())
torch.cuda.manual_seed(0)
torch.cuda.manual_seed_all(0)
torch.set_default_tensor_type(torch.cuda.FloatTensor)
e = torch.zeros(256, 1024)
torch.set_default_tensor_type('torch.FloatTensor')
print(e.device, torch.zeros(1).device)
x.to_sparse()
print(x.new(2, 3).shape, x.new([1.0, 2.0]).tolist(), x.half().new(torch.Size([5])).dtype, x.new_tensor([[1, 2]]).dtype)
print(torch.xpu.is_available(), torch.xpu.device_count(), torch.xpu.empty_cache())
s = torch.rand(256, 1024, device='cuda').untyped_storage()
print(torch.is_storage(s), isinstance(s, torch.storage.UntypedStorage), s.nbytes(), torch.serialization.location_tag(s))
del s
with torch.serialization.safe_globals([dict]):
    print(torch.serialization.get_safe_globals() == [dict], torch.serialization.normalize_storage_type(torch.UntypedStorage) is torch.UntypedStorage)
from torch.utils.data.dataloader import DataLoader
print(DataLoader is torch.utils.data.DataLoader)
`)
	for line, want := range map[int]string{
		3:  "torch.uint8 torch.int8 torch.int16 True False\n",
		4:  "False torch.bfloat16\n",
		10: "cuda:0 cpu\n",
		12: "torch.Size([2, 3]) [1.0, 2.0] torch.float16 torch.float32\n",
		13: "False 0 None\n",
		15: "True True 1048576 cuda:0\n",
		17: "True True\n",
		20: "True\n",
	} {
		if printed[line] != want {
			t.Errorf("line %d printed %q, want %q", line, printed[line], want)
		}
	}
	if got := steps[8].Allocated - steps[7].Allocated; got != 1<<20 {
		t.Errorf("zeros after set_default_tensor_type(torch.cuda.FloatTensor) allocated %d on the GPU, want 1 MiB", got)
	}
	if n := strings.Count(errOut, "UserWarning: torch.set_default_tensor_type() is deprecated as of PyTorch 2.1"); n != 1 {
		t.Errorf("the deprecation warning %d times in\n%s", n, errOut)
	}
	// the storage keeps the tensor's memory until it goes
	if got := steps[14].Allocated - steps[13].Allocated; got != 1<<20 {
		t.Errorf("untyped_storage of a temporary kept %d, want its 1 MiB", got)
	}
	if got := steps[16].Allocated - steps[13].Allocated; got != 0 {
		t.Errorf("del of the storage left %d", got)
	}
	if s := steps[11]; s.Error == nil || !strings.Contains(*s.Error, "NotImplementedError: Tensor.to_sparse is not modelled by gpumemrepl: it models dense (strided) tensors only") {
		t.Errorf("to_sparse: %v", s.Error)
	}
}
