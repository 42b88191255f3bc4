package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPythonSemantics runs evaluator test programs through the binary
// (run --json) and compares what they print, joined from each
// statement's output, with what CPython 3.11 printed for them
// (python/eval/testdata/NAME.out, from scripts/eval_golden.sh). The
// programs listed raise nothing uncaught and write to stdout only (one
// that writes to stderr keeps it in a sink of its own).
func TestPythonSemantics(t *testing.T) {
	for _, name := range []string{"builtin_subclass", "set_algebra", "str_methods", "json_hooks", "log_records", "dataclass_defaults", "ml_idioms", "context_errors", "builtin_hostile", "os_path", "small_modules", "builtin_functions"} {
		t.Run(name, func(t *testing.T) {
			dir, err := filepath.Abs("../../python/eval/testdata")
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join(dir, name+".out"))
			if err != nil {
				t.Fatal(err)
			}
			out, errOut, code := run(t, "run", "--device", "sim", "--fake-host", "--json", filepath.Join(dir, name+".py"))
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, errOut)
			}
			var got strings.Builder
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var row struct {
					Output string `json:"output"`
				}
				if err := json.Unmarshal([]byte(line), &row); err != nil {
					t.Fatalf("%v: %s", err, line)
				}
				got.WriteString(row.Output)
			}
			// CPython names the script by its absolute path, which
			// scripts/eval_golden.sh cuts back to the name
			if got := strings.ReplaceAll(got.String(), dir+string(filepath.Separator), ""); got != string(want) {
				t.Errorf("output differs from CPython's\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}

// TestPythonWarningsPlace: through the binary, a DeprecationWarning
// from a function of the script is shown, a stacklevel past the stack
// is "sys:1", and a warning follows sys.stderr where the script moved
// it (python/eval/testdata/warnings_place.py, whose whole output
// TestPrograms compares with CPython's).
func TestPythonWarningsPlace(t *testing.T) {
	p, err := filepath.Abs("../../python/eval/testdata/warnings_place.py")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--device", "sim", "--fake-host", "--json", p)
	if code != 0 || !strings.Contains(errOut, p+":9: DeprecationWarning: in function\n") ||
		!strings.Contains(errOut, "\nsys:1: UserWarning: way up\n") || strings.Contains(errOut, "to the sink") ||
		!strings.Contains(out, `"output":"3 `+p+`:19: UserWarning: to the sink\n`) {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
}
