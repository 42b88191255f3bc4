package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDeviceProperties: get_device_properties, get_device_capability
// and get_device_name say what PyTorch says on the GPU a preset is (the
// H200's as recorded: testdata/truth/env.txt and cu_total), on the
// simulated device too.
func TestDeviceProperties(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "props.py")
	src := "import torch\np = torch.cuda.get_device_properties(0)\nprint(p)\nprint(p.name, p.total_memory, p.major, p.minor, p.multi_processor_count)\n" +
		"print(torch.cuda.get_device_capability(), torch.cuda.get_device_name())\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for preset, want := range map[string]string{
		"h200": "_CudaDeviceProperties(name='NVIDIA H200', major=9, minor=0, total_memory=143155MB, multi_processor_count=132)\n" +
			"NVIDIA H200 150109880320 9 0 132\n(9, 0) NVIDIA H200\n",
		"t4": "_CudaDeviceProperties(name='Tesla T4', major=7, minor=5, total_memory=14917MB, multi_processor_count=40)\n" +
			"Tesla T4 15642329088 7 5 40\n(7, 5) Tesla T4\n",
	} {
		out, errOut, code := run(t, "run", "--device", "sim", "--preset", preset, "--no-color", script)
		var printed strings.Builder
		for _, l := range strings.SplitAfter(out, "\n") {
			if !strings.HasPrefix(l, " ") {
				printed.WriteString(l)
			}
		}
		if code != 0 || printed.String() != want {
			t.Errorf("--preset %s: exit %d, printed\n%s\nwant\n%s%s", preset, code, printed.String(), want, errOut)
		}
	}
	mem := filepath.Join(t.TempDir(), "mem.py")
	if err := os.WriteFile(mem, []byte("import torch\nfree, total = torch.cuda.mem_get_info()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--device", "sim", "--strict", mem)
	neg := filepath.Join(t.TempDir(), "neg.py")
	if err := os.WriteFile(neg, []byte("import torch\ntorch.cuda.get_device_properties(-1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, e, c := run(t, "run", "--device", "sim", neg); c != 1 || e != neg+":2:1: AssertionError: Invalid device id\n" { // as PyTorch (pyrules/ops_cuda_errors)
		t.Errorf("device -1: exit %d, %q", c, e)
	}
	if code != 1 || !strings.HasPrefix(errOut, mem+":2:15: NotImplementedError: torch.cuda.mem_get_info: on a simulated GPU the driver's free memory is not modelled") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("mem_get_info on a simulated GPU, --strict: exit %d, %q", code, errOut)
	}
	// without --strict, an estimate: the total less reserved and the context
	if err := os.WriteFile(mem, []byte("import torch\nx = torch.zeros(1, device='cuda')\nfree, total = torch.cuda.mem_get_info()\nprint(total - free)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run(t, "run", "--device", "sim", "--no-color", mem)
	if code != 0 || !strings.Contains(out, "\n641728512\n  ≈ host") || !strings.Contains(out, "estimated: torch.cuda.mem_get_info cuda:0: the driver's free memory on a simulated GPU, taken as its total less the reserved memory and the preset's CUDA context") {
		t.Errorf("mem_get_info on a simulated GPU: exit %d\n%s%s", code, out, errOut)
	}
	ctx := filepath.Join(t.TempDir(), "ctx.py")
	src = "import torch\nprint(torch.cuda.is_initialized())\ntorch.cuda.init()\nprint(torch.cuda.is_initialized(), torch.cuda.memory_reserved())\n" +
		"with torch.cuda.device(0):\n    x = torch.zeros(4, device='cuda')\nprint(torch.cuda.current_device(), torch.cuda.memory_allocated())\np = torch.cuda.list_gpu_processes()\n"
	if err := os.WriteFile(ctx, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run(t, "run", "--device", "sim", "--no-color", ctx)
	if code != 1 || !strings.Contains(out, "False\n") || !strings.Contains(out, "True 0\n") || !strings.Contains(out, "0 512\n") ||
		!strings.Contains(errOut, ctx+":8:5: NotImplementedError: gpumemrepl does not model torch.cuda.list_gpu_processes yet") {
		t.Errorf("init, is_initialized, device(0), list_gpu_processes: exit %d\n%s%s", code, out, errOut)
	}
}
