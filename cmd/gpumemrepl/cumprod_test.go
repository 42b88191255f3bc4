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
// after the output; its backward for an input without zeros makes
// result * grad, the mask input == 0, its any(), two flips around a
// cumsum with its own scan scratch, then the quotient: the peak stands
// at the last flip, 17,408 bytes above the three 4 KiB blocks. A zero
// written into the input takes cumprod_backward's other path, whose
// masks, scans, select and scatter peak 47,616 bytes above the input and
// result (testdata/pyrules/ops_scan.py's line 24). A float16 line's
// scan takes 1,279 bytes (scripts/probe_cub.py --scan-dtypes). A scan of
// a longer tensor takes no scratch. These are recorded, so exact
// (--strict runs them); a float16 line longer than any recorded, and the
// other path over several lines, are labelled estimated.
func TestCumprod(t *testing.T) {
	exact := `import torch
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
z = torch.rand(1000, device='cuda')
z[10] = 0
z.requires_grad_()
y = z.cumprod(0)
base = torch.cuda.memory_allocated()
torch.cuda.reset_peak_memory_stats()
y.sum().backward()
print(torch.cuda.memory_allocated() - base, torch.cuda.max_memory_allocated() - base)
h = torch.rand(1000, device='cuda', dtype=torch.float16)
base = torch.cuda.memory_allocated()
torch.cuda.reset_peak_memory_stats()
k = h.cumprod(0)
print(torch.cuda.memory_allocated() - base, torch.cuda.max_memory_allocated() - base)
`
	estimated := `m = torch.rand(4, 100, device='cuda')
m[1, 5] = 0
m.requires_grad_()
m.cumprod(1).sum().backward()
h = torch.rand(10**7 + 1, device='cuda', dtype=torch.float16).cumprod(0)
`
	rows := runZooOps(t, exact+estimated)
	for _, line := range []int{4, 9, 14, 22, 27} {
		if r := rows[line]; r.Line != line || len(r.Estimates) > 0 {
			t.Errorf("line %d: estimates %v, want none (recorded)", line, r.Estimates)
		}
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
	if r := rows[23]; r.Output != "4096 47616\n" {
		t.Errorf("backward with a zero: %q, want the gradient kept and PyTorch's peak", r.Output)
	}
	if r := rows[28]; r.Output != "2048 3584\n" {
		t.Errorf("a float16 line: %q, want the output and the scan's 1,536-byte block at the peak", r.Output)
	}
	if r := rows[32]; !r.estimated("torch.cumprod's backward") {
		t.Errorf("a zero in one of 4 lines: estimates %v, want the backward's", r.Estimates)
	}
	if r := rows[33]; !r.estimated("torch.cumprod") {
		t.Errorf("a float16 line of 10^7 + 1: estimates %v, want torch.cumprod's", r.Estimates)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		src, refusal string
	}{{exact, ""}, {exact + estimated, "NotImplementedError: torch.cumprod's backward [4, 100] with a zero along dim 1"}} {
		path := filepath.Join(dir, "strict.py")
		if err := os.WriteFile(path, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := run(t, "run", "--fake-host", "--device", "sim", "--strict", path)
		if c.refusal == "" && code != 0 || c.refusal != "" && (code != 1 || !strings.Contains(errOut, c.refusal)) {
			t.Errorf("--strict: exit %d, %s", code, errOut)
		}
	}
}
