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
// (repl/eval/testdata/NAME.out, from scripts/eval_golden.sh). The
// programs listed raise nothing uncaught, so stdout is all there is.
func TestPythonSemantics(t *testing.T) {
	for _, name := range []string{"builtin_subclass", "set_algebra", "str_methods", "json_hooks"} {
		t.Run(name, func(t *testing.T) {
			dir, err := filepath.Abs("../../repl/eval/testdata")
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
			if got.String() != string(want) {
				t.Errorf("output differs from CPython's\n--- got\n%s\n--- want\n%s", got.String(), want)
			}
		})
	}
}
