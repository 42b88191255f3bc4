package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A line that recurs is parsed once and its tree moved to each of its
// places (a generated sweep's million lines): each run of it still says
// its own line, in a Python error, in an indented block, and in the
// history's stack of an allocation (the whole-run peak's place).
func TestRepeatedLinesKeepTheirPlaces(t *testing.T) {
	t.Parallel()
	script := "x = zeros 1000 cuda\n" + // 1
		"del x\n" + // 2
		"y = zeros 1000 cuda\n" + // 3
		"x = zeros 1000 cuda\n" + // 4: the peak, from line 1's tree
		"del x\n" + // 5
		"del x\n" + // 6: NameError, from line 2's tree
		"with torch.no_grad():\n" + // 7
		"    z = zeros 10 cuda\n" + // 8
		"    del z\n" + // 9
		"    z = zeros 10 cuda\n" + // 10
		"    del z\n" + // 11
		"    del z\n" // 12: NameError at column 5
	path := filepath.Join(t.TempDir(), "again.gpumem")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--device", "sim", "--fake-host", "--no-color", "--keep-going", path)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if want := path + ":6:5: NameError: name 'x' is not defined\n" + path + ":12:9: NameError: name 'z' is not defined\n"; errOut != want {
		t.Errorf("stderr:\n%s\nwant:\n%s", errOut, want)
	}
	if want := "whole-run peak: cuda:0 allocated 8.00 KiB at again.gpumem:4, during line 4: x = zeros 1000 cuda"; !strings.Contains(out, want) {
		t.Errorf("stdout lacks %q:\n%s", want, out)
	}
}
