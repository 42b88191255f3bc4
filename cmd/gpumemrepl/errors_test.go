package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOwnExceptionThroughTorch: an exception a script raises in code
// that torch calls back (an optimizer's step under GradScaler.step)
// reaches the script's except clause as it was raised, class and all,
// as in CPython; it was cut from its text and raised again as a
// RuntimeError.
func TestOwnExceptionThroughTorch(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "own.py")
	src := `import torch
class MyErr(Exception):
    pass
class Opt:
    def step(self):
        raise MyErr("boom")
scaler = torch.amp.GradScaler("cuda", enabled=False)
try:
    scaler.step(Opt())
except MyErr as e:
    print("caught", type(e).__name__, e)
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--device", "sim", script)
	if code != 0 || !strings.Contains(out, "\ncaught MyErr boom\n") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
