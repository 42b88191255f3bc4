package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCumprod: torch.cumprod of a tensor's only line goes through CUB's
// DeviceScan, its scratch (1,023 bytes for 1,000 float32, as
// ddpm_unet.py's recording shows for its noise schedule) made and freed
// after the output; its backward (an input without zeros) makes result *
// grad, the mask input == 0, its any(), two flips around a cumsum with
// its own scan scratch, then the quotient: the peak stands at the last
// flip, 17,408 bytes above the three 4 KiB blocks. Every figure is
// labelled estimated, and --strict refuses it; a scan of a longer
// tensor takes no scratch.
func TestCumprod(t *testing.T) {
	src := `import torch
x = torch.rand(1000, device='cuda', requires_grad=True)
torch.cuda.reset_peak_memory_stats()
y = torch.cumprod(x, 0)
print(torch.cuda.memory_allocated(), torch.cuda.max_memory_allocated())
g = torch.ones_like(y)
base = torch.cuda.memory_allocated()
torch.cuda.reset_peak_memory_stats()
y.backward(g)
print(torch.cuda.memory_allocated() - base, torch.cuda.max_memory_allocated() - base)
z = torch.rand(8, 1000, device='cuda')
base = torch.cuda.memory_allocated()
torch.cuda.reset_peak_memory_stats()
w = z.cumprod(dim=1, dtype=torch.float64)
print(torch.cuda.memory_allocated() - base, torch.cuda.max_memory_allocated() - base, w.dtype)
`
	rows := runZooOps(t, src)
	if r := rows[4]; !r.estimated("torch.cumprod") {
		t.Errorf("forward: estimates %v, want torch.cumprod's", r.Estimates)
	}
	if r := rows[5]; r.Output != "8192 9216\n" {
		t.Errorf("forward: %q, want the output and the scan's 1,024-byte block at the peak", r.Output)
	}
	if r := rows[10]; r.Output != "4096 17408\n" {
		t.Errorf("backward: %q, want the gradient kept and the peak at the last flip", r.Output)
	}
	if r := rows[15]; r.Output != "64000 128000 torch.float64\n" {
		t.Errorf("8 lines to float64: %q, want the output and the converted input at the peak, no scratch", r.Output)
	}
	path := filepath.Join(t.TempDir(), "strict.py")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, "run", "--fake-host", "--device", "sim", "--strict", path); code != 1 || !strings.Contains(errOut, "NotImplementedError: torch.cumprod [1000] float32: memory rule from PyTorch's formula") {
		t.Errorf("--strict: exit %d, %s", code, errOut)
	}
}
