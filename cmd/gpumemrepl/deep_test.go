package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A line of 50,000 terms and a 40,000-link method chain are refused as
// CPython 3.12 refuses them (RecursionError, here with the place), in a
// .py script and a .gpumem one; they took 20 s and 14 s. A chain within
// CPython's limit runs.
func TestDeepExpressionsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const recursion = "RecursionError: maximum recursion depth exceeded during compilation"
	for _, tc := range []struct {
		name, src, want string
	}{
		{"terms.py", "import torch\nx = torch.ones(2)\ny = x" + strings.Repeat(" + x", 49_999) + "\n", ":3:5: " + recursion},
		{"chain.py", "import torch\nx = torch.ones(2)\ny = x" + strings.Repeat(".clone()", 40_000) + "\n", ":3:5: " + recursion},
		{"chain.gpumem", "x = zeros 10 cuda\ny = x" + strings.Repeat(".clone()", 40_000) + "\n", ":2:5: " + recursion},
		{"unary.py", "x = 1\ny = " + strings.Repeat("-", 100_000) + "x\n", ":2:6004: MemoryError: Parser stack overflowed - Python source too complex to parse"},
		{"within.py", "import torch\nx = torch.ones(2)\ny = x" + strings.Repeat(".clone()", 1_400) + "\nprint(y.shape)\n", ""},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, []byte(tc.src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := run(t, "run", "--device", "sim", "--fake-host", path)
		switch {
		case tc.want == "" && (code != 0 || !strings.Contains(out, "torch.Size([2])")):
			t.Errorf("%s: exit %d: %s", tc.name, code, errOut)
		case tc.want != "" && (code != 1 || strings.TrimSpace(errOut) != path+tc.want):
			t.Errorf("%s: exit %d, stderr %.300s; want %s", tc.name, code, errOut, path+tc.want)
		}
	}
}
