package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runPython runs src as a script through the binary (run --json on the
// simulated H200) and returns each statement's row by line, and stderr.
func runPython(t *testing.T, src string) (map[int]pythonStep, map[int]string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "prog.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := run(t, "run", "--json", "--fake-host", "--device", "sim", "--keep-going", path)
	steps, printed := map[int]pythonStep{}, map[int]string{}
	for _, l := range strings.Split(out, "\n") {
		var s pythonStep
		var o struct {
			Output string `json:"output"`
		}
		if json.Unmarshal([]byte(l), &s) == nil && s.Line > 0 {
			steps[s.Line] = s
			_ = json.Unmarshal([]byte(l), &o)
			printed[s.Line] = o.Output
		}
	}
	return steps, printed, errOut
}

// TestCompileRunsEagerly: torch.compile of a module gives an
// OptimizedModule over it (_orig_mod, the state dict's prefix) whose
// forward allocates what the module's own does, and of a function (as a
// decorator too, with options) a function that runs it; the note that
// the figures are eager PyTorch's is written once to stderr.
func TestCompileRunsEagerly(t *testing.T) {
	steps, printed, errOut := runPython(t, `import torch
m = torch.nn.Linear(1024, 1024, device='cuda')
x = torch.randn(64, 1024, device='cuda')
y = m(x)
del y
c = torch.compile(m)
print(type(c).__name__, c._orig_mod is m, list(c.state_dict())[0])
y = c(x)
del y


@torch.compile(mode="max-autotune")
def f(t):
    return t * 2


print(f(x).shape, f.__name__, torch.compile(f, disable=True) is f)
`)
	if got := printed[7]; got != "OptimizedModule True _orig_mod.weight\n" {
		t.Errorf("line 7 printed %q", got)
	}
	if printed[17] != "torch.Size([64, 1024]) f True\n" {
		t.Errorf("line 17 printed %q", printed[17])
	}
	if steps[4].MaxAlloc != steps[8].MaxAlloc || steps[8].Allocated != steps[4].Allocated {
		t.Errorf("compiled forward: peak %d, allocated after %d; eager %d and %d", steps[8].MaxAlloc, steps[8].Allocated, steps[4].MaxAlloc, steps[4].Allocated)
	}
	if n := strings.Count(errOut, "torch.compile runs the model eagerly"); n != 1 {
		t.Errorf("the note was written %d times: %s", n, errOut)
	}
}

// TestEagerModeNames: what model code names beyond tensors runs as in
// eager PyTorch: torch.jit's decorators and queries, torch.fx.wrap,
// torch.nn.modules' paths, nn.Linear's positional device and bfloat16
// dtype, @torch.no_grad() and @torch.inference_mode() on methods,
// `p.requires_grad = False`, gc.get_objects(), torch.distributed before
// a process group, and a misspelt torch.cuda name's "Did you mean".
func TestEagerModeNames(t *testing.T) {
	steps, printed, errOut := runPython(t, `import torch
import gc
import torch.nn as nn
from torch.nn.modules.batchnorm import _BatchNorm


class Net(nn.Module):
    scale: torch.jit.Final[float]

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(256, 256, True, 'cuda', torch.bfloat16)

    @torch.jit.ignore
    def skipped(self):
        return torch.jit.is_scripting() or torch.jit.is_tracing()

    @torch.no_grad()
    def generate(self, t):
        return self.fc(t)

    @torch.inference_mode()
    def infer(self, t):
        return self.fc(t)


net = Net()
x = torch.randn(8, 256, device='cuda', dtype=torch.bfloat16)
print(net.skipped(), net.fc.weight.dtype, net.generate(x).requires_grad, net.infer(x).requires_grad)
print(torch.fx.wrap(len) is len, torch.nn.modules.linear.Linear is nn.Linear, issubclass(nn.BatchNorm2d, _BatchNorm))
for p in net.parameters():
    p.requires_grad = False
print([p.requires_grad for p in net.parameters()], torch.distributed.is_initialized())
print(sum(1 for o in gc.get_objects() if torch.is_tensor(o) and o.is_cuda))
(x.float().requires_grad_() * 2).requires_grad = False
torch.distributed.get_rank()
torch.cuda.memory_sumary()
`)
	want := map[int]string{
		29: "False torch.bfloat16 False False\n",
		30: "True True True\n",
		33: "[False, False] False\n",
		34: "3\n",
	}
	for line, w := range want {
		if printed[line] != w {
			t.Errorf("line %d printed %q, want %q", line, printed[line], w)
		}
	}
	// the bfloat16 layer: a 256x256 weight and its bias, 2 bytes each
	if got := steps[27].Allocated; got != 131072+512 {
		t.Errorf("Net() allocated %d", got)
	}
	for line, e := range map[int]string{
		35: "RuntimeError: you can only change requires_grad flags of leaf variables. If you want to use a computed variable",
		36: "ValueError: Default process group has not been initialized",
		37: "AttributeError: module 'torch.cuda' has no attribute 'memory_sumary'",
	} {
		if s := steps[line]; s.Error == nil || !strings.Contains(*s.Error, e) {
			t.Errorf("line %d: error %v, want %q", line, s.Error, e)
		}
	}
	if !strings.Contains(errOut, "Did you mean: 'memory_summary'?") {
		t.Errorf("no suggestion for memory_sumary in:\n%s", errOut)
	}
}

// TestOtherNamesOfOps: the names PyTorch gives its ops twice (clip,
// absolute, divide, swapaxes, concat), the ops that are another with
// another tensor's shape or dtype (expand_as, view_as, reshape_as,
// type_as), views written another way (unflatten, movedim,
// broadcast_to), the new_* factories, and the composites outer,
// meshgrid and hstack run the op they are: its autograd node and its
// memory.
func TestOtherNamesOfOps(t *testing.T) {
	steps, printed, _ := runPython(t, `import torch
x = torch.rand(512, 1024, device='cuda', requires_grad=True)
v = torch.rand(1024, device='cuda', requires_grad=True)
w = torch.rand(768, device='cuda')
h = torch.zeros(2, device='cuda', dtype=torch.float16)
print(x.clip(0.1, 0.9).grad_fn.name(), torch.absolute(x).grad_fn.name(), torch.divide(x, 2).grad_fn.name(), x.swapaxes(0, 1).grad_fn.name())
print(x.unflatten(1, (32, 32)).shape, x.movedim(0, 1).grad_fn.name(), x.view_as(torch.empty(1024, 512)).shape, torch.concat([v, v]).shape)
print(v.expand_as(x).stride(), torch.broadcast_to(v, (3, 1024)).shape, x.type_as(x) is x, x.type_as(h).dtype)
z = x.new_zeros((256, 1024))
f = h.new_full((3,), 2.5)
print(z.dtype, z.device, z.requires_grad, f, x.new_empty(4, dtype=torch.int64).dtype)
o = torch.outer(v, w)
m = torch.meshgrid(v, w, indexing='ij')
print(o.grad_fn.name(), m[0].shape, m[0].stride(), m[1].stride(), torch.hstack([v, w]).shape)
`)
	want := map[int]string{
		6:  "ClampBackward1 AbsBackward0 DivBackward0 TransposeBackward0\n",
		7:  "torch.Size([512, 32, 32]) PermuteBackward0 torch.Size([1024, 512]) torch.Size([2048])\n",
		8:  "(0, 1) torch.Size([3, 1024]) True torch.float16\n",
		11: "torch.float32 cuda:0 False tensor([2.5000, 2.5000, 2.5000], device='cuda:0', dtype=torch.float16) torch.int64\n",
		14: "MulBackward0 torch.Size([1024, 768]) (1, 0) (0, 1) torch.Size([1792])\n",
	}
	for line, w := range want {
		if printed[line] != w {
			t.Errorf("line %d printed %q, want %q", line, printed[line], w)
		}
	}
	for line, grew := range map[int]int64{9: 1 << 20, 12: 1024 * 768 * 4, 13: 0} {
		if got := steps[line].Allocated - steps[line-1].Allocated; got != grew {
			t.Errorf("line %d allocated %d more, want %d", line, got, grew)
		}
	}
}

// TestUnrecordedOpsSayEstimated: the ops modelled from PyTorch's
// formulas whose rules are not yet recorded, or not yet held to their
// rule script's recording, are estimates (std_mean here): their step names the op and its shapes, its row and
// every later one say exact false and name the first estimate, the text
// report marks them and ends saying how many statements estimated, and
// help torch says so of each; under --strict the op is refused.
func TestUnrecordedOpsSayEstimated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prog.py")
	src := "import torch\nx = torch.rand(1024, device='cuda', requires_grad=True)\nz = x.exp()\ny = torch.std_mean(x, 0)\nz = x.exp()\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := run(t, "run", "--json", "--fake-host", "--device", "sim", path)
	type row struct {
		Line          int      `json:"line"`
		Exact         *bool    `json:"exact"`
		Estimates     []string `json:"estimates"`
		FirstEstimate string   `json:"first_estimate"`
	}
	rows := map[int]row{}
	for _, l := range strings.Split(out, "\n") {
		var r row
		if json.Unmarshal([]byte(l), &r) == nil && r.Line > 0 {
			rows[r.Line] = r
		}
	}
	const est = "torch.std_mean [1024] float32: memory rule from PyTorch's formula, not yet recorded on the GPU"
	if r := rows[3]; r.Exact != nil || r.Estimates != nil || r.FirstEstimate != "" {
		t.Errorf("exp, recorded, before any estimate: %+v", r)
	}
	if r := rows[4]; r.Exact == nil || *r.Exact || len(r.Estimates) != 1 || r.Estimates[0] != est || r.FirstEstimate != path+":4: "+est {
		t.Errorf("std_mean's row: %+v", r)
	}
	if r := rows[5]; r.Exact == nil || *r.Exact || r.Estimates != nil || r.FirstEstimate != path+":4: "+est {
		t.Errorf("exp after std_mean rests on its estimate: %+v", r)
	}
	text, _, _ := run(t, "run", "--fake-host", "--device", "sim", "--no-color", path)
	for _, want := range []string{
		"  3 > z = x.exp()\n    host",
		"  4 > y = torch.std_mean(x, 0)\n  ≈ host",
		"\n    estimated: " + est + "\n",
		"  5 > z = x.exp()\n  ≈ host",
		"\n≈ 1 statement estimated, an op following a general rule where none is recorded on the GPU; every figure from the first estimate on rests on it: " + path + ":4: " + est + " (--strict refuses estimates)\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the report lacks %q:\n%s", want, text)
		}
	}
	out, errOut, code := run(t, "run", "--fake-host", "--device", "sim", "--strict", path)
	if code != 1 || strings.Contains(out, "std_mean(x, 0)\n  ≈") || !strings.Contains(errOut, path+":4:5: NotImplementedError: "+est+": its figures would be estimated, and --strict refuses estimates") {
		t.Errorf("--strict: exit %d\n%s%s", code, out, errOut)
	}
	help, _, _ := runStdin(t, "help std_mean\n")
	if !strings.Contains(help, "std_mean, estimated from PyTorch's formulas") {
		t.Errorf("help std_mean: %s", help)
	}
}

// TestPadInterpolateRepeat: F.pad, F.interpolate (and nn.Upsample),
// Tensor.repeat and tile, and the activations hardtanh, relu6,
// hardswish and hardsigmoid (with their modules) make one output of the
// size PyTorch gives; pad's and interpolate's backward make the input's
// gradient; repeat's backward sums the gradient over the repeats (x's
// gradient, added into the one it has); a non-constant pad of two
// values for a 4-d input is PyTorch's NotImplementedError.
func TestPadInterpolateRepeat(t *testing.T) {
	steps, printed, _ := runPython(t, `import torch
import torch.nn.functional as F
x = torch.rand(8, 64, 32, 32, device='cuda', requires_grad=True)
y = F.pad(x, (1, 1, 1, 1))
print(y.shape, y.grad_fn.name())
y.sum().backward()
del y
z = F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=False)
print(z.shape, z.grad_fn.name(), torch.nn.Upsample(size=(48, 40))(x).shape)
del z
r = x.repeat(2, 1, 1, 1)
print(r.shape, x.tile((2,)).shape)
r.sum().backward()
F.pad(x, (1, 1), mode='circular')
m = torch.nn.Sequential(torch.nn.ReLU6(), torch.nn.Hardswish(), torch.nn.Hardsigmoid(), torch.nn.Hardtanh(-2.0, 2.0))
print(m(x).grad_fn.name(), F.relu6(x).grad_fn.name())
`)
	want := map[int]string{
		5:  "torch.Size([8, 64, 34, 34]) ConstantPadNdBackward0\n",
		9:  "torch.Size([8, 64, 64, 64]) UpsampleBilinear2DBackward0 torch.Size([8, 64, 48, 40])\n",
		12: "torch.Size([16, 64, 32, 32]) torch.Size([8, 64, 32, 64])\n",
		16: "HardtanhBackward0 HardtanhBackward0\n",
	}
	for line, w := range want {
		if printed[line] != w {
			t.Errorf("line %d printed %q, want %q", line, printed[line], w)
		}
	}
	const mib = 1 << 20
	for line, grew := range map[int]int64{4: 8 * 64 * 34 * 34 * 4, 8: 8 * mib, 11: 4 * mib} {
		if got := steps[line].Allocated - steps[line-1].Allocated; got != grew {
			t.Errorf("line %d allocated %d more, want %d", line, got, grew)
		}
	}
	// backward of the pad: x's gradient (2 MiB) stays, the padded output's goes at del
	if got := steps[6].Allocated - steps[4].Allocated; got != 2*mib {
		t.Errorf("pad's backward left %d more, want x.grad's 2 MiB", got)
	}
	if steps[13].Error != nil || steps[13].Allocated != steps[12].Allocated {
		t.Errorf("repeat's backward: error %v, allocated %d after, %d before (x.grad exists already)", steps[13].Error, steps[13].Allocated, steps[12].Allocated)
	}
	for line, e := range map[int]string{14: "NotImplementedError: Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now"} {
		if s := steps[line]; s.Error == nil || !strings.Contains(*s.Error, e) {
			t.Errorf("line %d: error %v, want %q", line, s.Error, e)
		}
	}
}
