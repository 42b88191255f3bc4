package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestNormSignature: Tensor.norm is PyTorch's norm(p='fro', dim=None,
// keepdim=False, dtype=None), run as torch.linalg.vector_norm: x.norm(2,
// -1) reduces the last dimension (it kept it, reading -1 as keepdim),
// 'fro' and a tuple of dims work, and its backward along a dimension
// (LinalgVectorNormBackward0: grad * (self / norm), the zero norms
// masked) makes a temporary of the input's size, a bool of the norm's
// shape, then the gradient: a peak of the input twice over the rest.
func TestNormSignature(t *testing.T) {
	steps, printed, errOut := runPython(t, `import torch
x = torch.randn(256, 1024, device='cuda', requires_grad=True)
n = x.norm(2, -1)
print(n.shape, n.grad_fn.name(), x.norm(p=2, dim=1, keepdim=True).shape, x.norm('fro', (0, 1)).shape)
torch.cuda.reset_peak_memory_stats()
before = torch.cuda.memory_allocated()
n.sum().backward()
print(torch.cuda.max_memory_allocated() - before, torch.cuda.memory_allocated() - before)
print(torch.tensor([[3., 4.], [6., 8.]]).norm(dim=1), torch.tensor([[3., 4.]]).norm(p=2, dim=(0, 1)))
`)
	for line, want := range map[int]string{
		4: "torch.Size([256]) LinalgVectorNormBackward0 torch.Size([256, 1]) torch.Size([])\n",
		// x.grad (1 MiB) stays; at the peak the sum's 512-byte output and
		// its gradient, the temporary (1 MiB), the bool (512 bytes) and the
		// gradient are live
		8: "2098688 1048576\n",
		9: "tensor([ 5., 10.]) tensor(5.)\n",
	} {
		if printed[line] != want {
			t.Errorf("line %d printed %q, want %q\n%s", line, printed[line], want, errOut)
		}
	}
	if s := steps[3]; s.Error != nil {
		t.Errorf("line 3: %s", *s.Error)
	}
}

// TestReduceOverSeveralDims: sum, mean, std, var and norm take a tuple
// or list of dims, as PyTorch declares them (int[1]? dim): the reduced
// shape, keepdim, the dim overload's node, PyTorch's error for a dim
// given twice, std and var's unbiased and correction. Adjacent
// dimensions of a contiguous tensor are one dimension to the kernel, so
// x.sum((0, 1)) of a [64, 2048, 8] tensor allocates what
// x.view(-1, 8).sum(0) does (the outer reduction's buffer across
// blocks), exactly; dimensions that are not adjacent
// are estimated, and the step says so.
func TestReduceOverSeveralDims(t *testing.T) {
	src := `import torch
x = torch.randn(4, 512, 1024, device='cuda', requires_grad=True)
print(x.mean((1, 2)).shape, x.mean(dim=(0, 2), keepdim=True).shape, x.mean([-1, -2]).grad_fn.name(), x.sum((0, 1, 2)).grad_fn.name())
print(x.var((1, 2)).shape, x.std((1, 2), keepdim=True).shape, x.sum(()).shape, x.mean((), keepdim=True).shape, x.amax((0, 2)).shape)
y = torch.tensor([[1., 2.], [3., 4.]])
print(y.sum((0, 1)), y.mean((0, 1), keepdim=True), y.var(0, unbiased=False), y.std(1, correction=0), y.var())
torch.cuda.reset_peak_memory_stats()
z = torch.randn(64, 2048, 8, device='cuda')
a = z.sum((0, 1))
print(torch.cuda.max_memory_allocated())
del a
torch.cuda.reset_peak_memory_stats()
a = z.view(-1, 8).sum(0)
print(torch.cuda.max_memory_allocated())
b = x.detach().sum((0, 2))
x.sum((0, 0))
`
	steps, printed, errOut := runPython(t, src)
	for line, want := range map[int]string{
		3: "torch.Size([4]) torch.Size([1, 512, 1]) MeanBackward1 SumBackward1\n",
		4: "torch.Size([4]) torch.Size([4, 1, 1]) torch.Size([]) torch.Size([1, 1, 1]) torch.Size([512])\n",
		6: "tensor(10.) tensor([[2.5000]]) tensor([1., 1.]) tensor([0.5000, 0.5000]) tensor(1.6667)\n",
	} {
		if printed[line] != want {
			t.Errorf("line %d printed %q, want %q\n%s", line, printed[line], want, errOut)
		}
	}
	if printed[10] == "" || printed[10] != printed[14] {
		t.Errorf("sum((0, 1)) peaked at %q, view(-1, 8).sum(0) at %q", printed[10], printed[14])
	}
	if s := steps[16]; s.Error == nil || !strings.Contains(*s.Error, "RuntimeError: dim 0 appears multiple times in the list of dims") {
		t.Errorf("line 16: error %v", s.Error)
	}
	out, _, _ := run(t, "run", "--json", "--fake-host", "--device", "sim", "--keep-going", writeProgram(t, "dims.py", src))
	estimates := map[int][]string{}
	for _, l := range strings.Split(out, "\n") {
		var row struct {
			Line      int      `json:"line"`
			Estimates []string `json:"estimates"`
		}
		if json.Unmarshal([]byte(l), &row) == nil && row.Line > 0 {
			estimates[row.Line] = row.Estimates
		}
	}
	if len(estimates[9]) != 0 || len(estimates[15]) != 1 || !strings.Contains(estimates[15][0], "along dims (0, 2): a reduction along dimensions that are not adjacent was not recorded") {
		t.Errorf("sum((0, 1)) estimated %q (want nothing), sum((0, 2)) %q (want its dims not adjacent)", estimates[9], estimates[15])
	}
}
