package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An exception raised in a lambda's body names the lambda's line, as
// CPython's traceback does (it said line 0, and the report's first line
// FILE:0:0), in a .py script and in a .gpumem one.
func TestLambdaTracebackHasItsLine(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"l.py", "l.gpumem"} {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte("f = lambda: undefined_name\nf()\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := run(t, "run", "--device", "sim", "--fake-host", "--no-color", path)
		if code != 1 {
			t.Errorf("%s: exit %d, want 1", name, code)
		}
		for _, want := range []string{path + ":1:13: NameError: name 'undefined_name' is not defined\n", "  File \"" + path + "\", line 1, in <lambda>\n"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", name, want, errOut)
			}
		}
	}
}
