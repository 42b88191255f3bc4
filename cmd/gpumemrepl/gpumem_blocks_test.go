package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// blockScript has compound statements among command-form lines: as a
// .gpumem script each is one step, as in a .py file.
const blockScript = `import torch
a = zeros 1024x1024 cuda
def f(n):
    t = torch.ones(n, device='cuda')
    # a comment
# a comment left of the body
    return t * 2

b = f(1 << 20)
for i in range(3):
    b = b + 1
if b.numel() > 5:
    c = zeros 256 cuda
else:
    c = None
try:
    d = torch.empty(1 << 40, device='cuda')
except torch.OutOfMemoryError:
    d = zeros 4 cuda
del a
`

// TestGpumemBlocks: a .gpumem script (or piped input) runs def, for,
// if/else and try/except as one step each, with the same figures and
// line spans as the same program as a .py file; the echo shows the
// lines as written.
func TestGpumemBlocks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	py := filepath.Join(dir, "blocks.py")
	if err := os.WriteFile(py, []byte(blockScript), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := func(out string) []pythonStep {
		var steps []pythonStep
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var s pythonStep
			if err := json.Unmarshal([]byte(l), &s); err != nil {
				t.Fatalf("%v: %s", err, l)
			}
			steps = append(steps, s)
		}
		return steps
	}
	pyOut, errOut, code := run(t, "run", "--json", "--fake-host", "--device", "sim", py)
	if code != 0 {
		t.Fatalf(".py: exit %d\n%s", code, errOut)
	}
	gmOut, errOut, code := runStdin(t, blockScript, "--json", "--fake-host", "--device", "sim")
	if code != 0 {
		t.Fatalf(".gpumem: exit %d\n%s", code, errOut)
	}
	want, got := rows(pyOut), rows(gmOut)
	if len(got) != 8 || len(got) != len(want) {
		t.Fatalf(".gpumem made %d steps, the .py file %d (want 8)", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Line != w.Line || g.EndLine != w.EndLine && !(g.EndLine == 0 && w.EndLine == w.Line) || g.Allocated != w.Allocated || g.Reserved != w.Reserved || g.MaxAlloc != w.MaxAlloc {
			t.Errorf("step %d: .gpumem %+v, .py %+v", i, g, w)
		}
	}
	text, _, _ := runStdin(t, blockScript, "--fake-host", "--device", "sim", "--no-color")
	for _, l := range []string{"  3 > def f(n):\n", "  6 . # a comment left of the body\n  7 .     return t * 2\n    host", " 14 . else:\n 15 .     c = None\n"} {
		if !strings.Contains(text, l) {
			t.Errorf("the echo lacks %q:\n%s", l, text)
		}
	}
	// a decorated def is one step; a with inside a with (however far
	// indented) enters as its own step
	more := "x = zeros 4 cuda\n@torch.no_grad()\ndef f():\n    return x * 2\n\nprint(f().requires_grad)\n" +
		"with torch.no_grad():\n    with torch.enable_grad():\n                                  with torch.no_grad() as g:\n        y = 1\n"
	out, errOut, code := runStdin(t, more, "--device", "sim", "--no-color")
	if code != 0 || !strings.Contains(out, "  2 > @torch.no_grad()\n  3 . def f():\n") || !strings.Contains(out, "\nFalse\n") || !strings.Contains(out, "  9 >                                   with torch.no_grad() as g:\n") {
		t.Errorf("decorators and nested with: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runStdin(t, "x = 1\nfor i in range(2):\n", "--device", "sim")
	if code != 1 || errOut != "<stdin>:2:19: IndentationError: expected an indented block after 'for' statement on line 2\n" {
		t.Errorf("a header at the end: exit %d, %q", code, errOut)
	}
}
