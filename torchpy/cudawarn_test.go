package torchpy_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/repl"
)

// scriptStderr runs a recorded script on the simulated H200 and returns
// what it wrote on stderr, and the .stderr PyTorch's run left beside it.
func scriptStderr(t *testing.T, script string) (got, want string) {
	t.Helper()
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := os.ReadFile(strings.TrimSuffix(script, ".py") + ".stderr")
	if err != nil {
		t.Fatal(err)
	}
	s := ruleSession(t)
	var stderr bytes.Buffer
	r := &repl.Runner{Session: s, Out: io.Discard, Err: &stderr, File: script, KeepGoing: true, JSON: true}
	r.PyScript(src)
	return stderr.String(), string(recorded)
}

// checkStderr runs rule script name and checks its stderr against the
// .stderr PyTorch's run left beside it, the script's path written as
// recordedPath there.
func checkStderr(t *testing.T, name, recordedPath string) {
	t.Helper()
	script := filepath.Join("..", "testdata", "pyrules", name+".py")
	got, want := scriptStderr(t, script)
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	if got = strings.ReplaceAll(got, abs, recordedPath); got != want {
		t.Errorf("stderr:\n%s\nPyTorch's:\n%s", got, want)
	}
}

// TestDeprecatedCUDANamesWarn: memory_cached and max_memory_cached print
// PyTorch's FutureWarning once per calling line, at the script's
// absolute path with the line's source, as plain python3 printed them
// on the H200 (testdata/pyrules/ops_cuda_warn.stderr).
func TestDeprecatedCUDANamesWarn(t *testing.T) {
	checkStderr(t, "ops_cuda_warn", "/work/main/testdata/pyrules/ops_cuda_warn.py")
}

// TestLegacyConstructorWarnsOnce: the first torch.cuda.*Tensor
// constructor of a process warns, once, as PyTorch 2.11 did on the H200
// (testdata/pyrules/ops_legacy.stderr, recorded by a relative path).
func TestLegacyConstructorWarnsOnce(t *testing.T) {
	checkStderr(t, "ops_legacy", "ops_legacy.py")
}
