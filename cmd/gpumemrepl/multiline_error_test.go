package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// PyTorch's AcceleratorError carries five lines (and a blank one). In
// every report of a script's error (run, piped in, --keep-going,
// --json, fit, fit --sweep, diff; at top level and through a traceback) the first
// line of stderr is the one FILE:LINE:COL: Type: message line that
// editors and CI parse, and the message's other lines follow it.
func TestMultiLineErrorFirstLine(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, src string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	py := write("ordinal.py", "import torch\nx = torch.zeros(1, device='cuda:9')\n")
	inFunc := write("in_func.py", "import torch\ndef make():\n    return torch.zeros(1, device='cuda:9')\n\nx = make()\n")
	gpumem := write("ordinal.gpumem", "a = zeros 10 cuda\nb = zeros 10 cuda:9\n")
	const msg = "torch.AcceleratorError: CUDA error: invalid device ordinal"
	const second = "GPU device may be out of range, do you have enough GPUs?"
	for _, tc := range []struct {
		name, stdin, first string
		args               []string
	}{
		{"run .py", "", py + ":2:5: " + msg, []string{"run", "--device", "sim", py}},
		{"through a function", "", inFunc + ":3:12: " + msg, []string{"run", "--device", "sim", inFunc}},
		{"run .gpumem", "", gpumem + ":2:5: " + msg, []string{"run", "--device", "sim", gpumem}},
		{"--keep-going", "", gpumem + ":2:5: " + msg, []string{"run", "--device", "sim", "--keep-going", gpumem}},
		{"--json", "", gpumem + ":2:5: " + msg, []string{"run", "--device", "sim", "--json", gpumem}},
		{"piped in", "import torch\nx = torch.zeros(1, device='cuda:9')\n", "<stdin>:2:5: " + msg, []string{"--device", "sim"}},
		{"fit", "", py + ":2:5: " + msg, []string{"fit", py}},
		{"fit --sweep", "", py + ":2:5: " + msg, []string{"fit", "--sweep", "batch=1..4", py}},
		{"diff", "", py + ":2:5: " + msg, []string{"diff", py, gpumem}},
	} {
		_, errOut, code := runStdin(t, tc.stdin, tc.args...)
		lines := strings.Split(errOut, "\n")
		if code != 1 || len(lines) < 2 || lines[0] != tc.first || lines[1] != second {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant its first lines:\n%s\n%s", tc.name, code, errOut, tc.first, second)
		}
	}
}
