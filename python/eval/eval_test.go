// Tests of the evaluator. The oracle is CPython 3.11: testdata/NAME.out is
// what python3 printed for testdata/NAME.py (scripts/eval_golden.sh;
// call_args.out is CPython 3.12.3's, from the GPU machine), compared byte
// for byte by TestPrograms; cmd/gpumemrepl's TestPythonSemantics runs some
// of the programs through the binary.
package eval_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// TestPrograms runs each testdata/*.py and compares what it prints
// (stdout and stderr together, tracebacks included) with what CPython
// 3.11 printed for it (testdata/*.out, from scripts/eval_golden.sh).
// The programs print from __del__, so the order of their output is the
// order objects die in.
func TestPrograms(t *testing.T) {
	files, err := filepath.Glob("testdata/*.py")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test programs: %v", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(f, ".py") + ".out")
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			in := eval.New()
			in.Stdout, in.Stderr = &out, &out
			in.Argv = []string{filepath.Base(f)} // as python3 FILE, run from testdata
			if err := in.RunFile(filepath.Base(f), src, nil); err != nil {
				if _, ok := err.(*eval.Exception); !ok {
					t.Fatalf("%v", err)
				}
			}
			// CPython names its main script by its absolute path, which
			// scripts/eval_golden.sh cuts back to the name, as here
			got := out.String()
			if wd, err := os.Getwd(); err == nil {
				got = strings.ReplaceAll(got, wd+string(filepath.Separator), "")
			}
			if got != string(want) {
				t.Errorf("output differs from CPython's\n--- got\n%s\n--- want\n%s", got, want)
			}
		})
	}
}

// TestHugeContainers: a list repeated or collected past MaxItems is a
// MemoryError, not the machine's memory.
func TestHugeContainers(t *testing.T) {
	for _, src := range []string{"x = [0] * 10**12\n", "x = list(range(10**12))\n", "x = (1, 2) * 10**11\n"} {
		var out bytes.Buffer
		in := eval.New()
		in.Stdout, in.Stderr = &out, &out
		err := in.RunFile("t.py", []byte(src), nil)
		if !eval.Matches(err, eval.MemoryErrorType) {
			t.Errorf("%q: %v, want MemoryError", src, err)
		}
	}
}

// TestFileCallsRefused: os calls that would change or list files are
// NotImplementedError naming the call, not a silent no-op.
func TestFileCallsRefused(t *testing.T) {
	for _, call := range []string{"makedirs('out', exist_ok=True)", "remove('x')", "listdir('.')"} {
		var out bytes.Buffer
		in := eval.New()
		in.Stdout, in.Stderr = &out, &out
		err := in.RunFile("t.py", []byte("import os\nos."+call+"\n"), nil)
		name := call[:strings.IndexByte(call, '(')]
		if !eval.Matches(err, eval.NotImplementedErrType) || !strings.Contains(err.Error(), "os."+name+" is not modelled by gpumemrepl") {
			t.Errorf("os.%s: %v, want NotImplementedError", call, err)
		}
	}
}
