package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMaskOfUnknownValues: a mask whose values the tool does not compute
// (a comparison of random numbers) stops x[mask], torch.nonzero and
// masked_select with a NotImplementedError at their position, exit 1;
// a mask of known values selects what PyTorch selects, and x[mask] =
// number (masked_fill_) needs no values.
func TestMaskOfUnknownValues(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ stmt, want string }{
		{"y = x[x > 0.5]", ":4:5: NotImplementedError: the size of x[mask]'s output, which depends on values the tool does not compute, is not modelled by gpumemrepl"},
		{"y = torch.nonzero(x > 0.5)", ":4:5: NotImplementedError: the size of torch.nonzero's output, which depends on values the tool does not compute, is not modelled by gpumemrepl"},
		{"y = x.masked_select(x < 0.1)", ":4:5: NotImplementedError: the size of torch.masked_select's output, which depends on values the tool does not compute, is not modelled by gpumemrepl"},
		{"x[x > 0.5] = torch.zeros((), device='cuda')", ":4:1: NotImplementedError: the size of x[mask] = tensor's output, which depends on values the tool does not compute, is not modelled by gpumemrepl"},
	} {
		script := filepath.Join(dir, "mask.py")
		src := "import torch\nx = torch.rand(1024, device='cuda')\nprint(x[torch.arange(1024, device='cuda') < 3].shape, (torch.arange(6) % 2 == 0).nonzero().tolist())\n" + c.stmt + "\n"
		if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := run(t, "run", "--fake-host", "--device", "sim", script)
		if code != 1 || !strings.Contains(errOut, script+c.want) || !strings.Contains(out, "torch.Size([3]) [[0], [2], [4]]") {
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", c.stmt, code, out, errOut)
		}
	}
	script := filepath.Join(dir, "fill.py")
	if err := os.WriteFile(script, []byte("import torch\nx = torch.rand(1024, device='cuda')\nx[x > 0.5] = 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := run(t, "run", "--fake-host", "--device", "sim", script); code != 0 {
		t.Errorf("x[x > 0.5] = 0: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}

// TestMaskBackwardRefusals: the backward of a bool mask's indexing or
// masked_select that the tool does not model (an input that is not
// contiguous, a mask over more than 2^22 elements) stops the script at
// the backward statement with a NotImplementedError naming it, exit 1,
// after the forward ran; 2304 and 2305 true elements (CUB's sort of one
// tile and of two) and a contiguous input run through.
func TestMaskBackwardRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ x, y, want string }{
		{"torch.rand(4096, 4, device='cuda', requires_grad=True)", "x[torch.arange(4096, device='cuda') < 2304]", ""},
		{"torch.rand(4096, 4, device='cuda', requires_grad=True)", "x[torch.arange(4096, device='cuda') < 2305]", ""},
		{"torch.rand(32, 32, device='cuda', requires_grad=True)", "torch.masked_select(x, torch.arange(32, device='cuda') < 5)", ""},
		{"torch.rand(32, 32, device='cuda', requires_grad=True)", "torch.masked_select(x.t(), torch.arange(32, device='cuda') < 5)", ":4:1: NotImplementedError: the backward of torch.masked_select of a tensor that is not contiguous is not modelled by gpumemrepl"},
		{"torch.rand(65, 256, 256, device='cuda', requires_grad=True)", "torch.masked_select(x, torch.arange(65536, device='cuda').view(256, 256) < 5)", ":4:1: NotImplementedError: the backward of torch.masked_select over more than 4194304 elements (CUB's scan, measured up to there) is not modelled by gpumemrepl"},
	} {
		script := filepath.Join(dir, "grad.py")
		src := "import torch\nx = " + c.x + "\ny = " + c.y + "\ny.sum().backward()\nprint(x.grad.shape)\n"
		if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := run(t, "run", "--fake-host", "--device", "sim", script)
		switch {
		case c.want == "" && (code != 0 || !strings.Contains(out, "torch.Size([")):
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", c.y, code, out, errOut)
		case c.want != "" && (code != 1 || !strings.Contains(errOut, script+c.want) || strings.Contains(out, "torch.Size([")):
			t.Errorf("%s: exit %d\nstdout:\n%s\nstderr:\n%s", c.y, code, out, errOut)
		}
	}
}
