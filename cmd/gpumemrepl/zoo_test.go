package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestModelZoo runs every program of testdata/models/zoo (model code of
// the kind users paste) through the binary. A recorded one is compared
// with its H200 recording statement by statement (python_passing.txt's
// ratchet holds it through TestPythonAsPasted); one not recorded yet is
// held to testdata/models/zoo/running.txt: a program listed there must
// run to its end on the simulated H200 without an error, and one that
// starts to must be added. It checks the zoo is whole (at least 26
// programs, each listed in the zoo's README) and logs, for each, the
// first statement where the tool stops or differs, with its error: the
// README's table (`go test ./cmd/gpumemrepl -run TestModelZoo -v`).
func TestModelZoo(t *testing.T) {
	files, err := filepath.Glob("../../testdata/models/zoo/*.py")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 26 {
		t.Errorf("the zoo has %d programs, not at least 26", len(files))
	}
	readme, err := os.ReadFile("../../testdata/models/zoo/README.md")
	if err != nil {
		t.Fatal(err)
	}
	listed, err := os.ReadFile("../../testdata/models/zoo/running.txt")
	if err != nil {
		t.Fatal(err)
	}
	var running []string
	for _, l := range strings.Split(string(listed), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			running = append(running, l)
		}
	}
	rows := make([]string, len(files))
	var names []string
	t.Run("programs", func(t *testing.T) {
		for i, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), ".py")
			names = append(names, name)
			if !bytes.Contains(readme, []byte("`"+name+".py`")) {
				t.Errorf("testdata/models/zoo/README.md does not list %s.py", name)
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				if recorded("models/zoo/"+name, f) {
					rows[i] = zooCompared(t, name, f)
					return
				}
				rows[i] = zooRun(t, name, f, slices.Contains(running, name))
			})
		}
	})
	for _, r := range running {
		if !slices.Contains(names, r) {
			t.Errorf("running.txt names %s, which is not a program of the zoo", r)
		}
	}
	t.Logf("\n| program | recording | statements before the first stop or difference | first stop or difference |\n| --- | --- | --- | --- |\n%s", strings.Join(rows, "\n"))
}

// zooRun is an unrecorded zoo program's row: how many of its
// statements run before the first error, and the error. It fails the
// test where the program does not do what running.txt says (listed:
// run to its end).
func zooRun(t *testing.T, name, script string, listed bool) string {
	steps := runScript(script, false)
	first := -1
	for j, s := range steps {
		if s.Error != nil {
			first = j
			break
		}
	}
	switch {
	case len(steps) == 0:
		t.Errorf("%s: no step ran", name)
	case listed && first >= 0:
		t.Errorf("%s.py is in running.txt and now stops at line %d: %s", name, steps[first].Line, *steps[first].Error)
	case !listed && first < 0:
		t.Errorf("%s.py now runs to its end: add %s to testdata/models/zoo/running.txt", name, name)
	}
	stop, before := "runs to the end", len(steps)
	if first >= 0 {
		stop, before = fmt.Sprintf("line %d: %s", steps[first].Line, firstLine(*steps[first].Error)), first
	}
	return fmt.Sprintf("| `%s.py` | not recorded | %d of %d run | %s |", name, before, len(steps), strings.ReplaceAll(stop, "|", `\|`))
}

// zooCompared is a recorded zoo program's row: how many of its
// statements match PyTorch's and the first that differs.
func zooCompared(t *testing.T, name, script string) string {
	recording := recordingOf("models/zoo/"+name, script)
	rec, err := os.ReadFile(recording)
	if err != nil {
		t.Fatal(err)
	}
	diffs, err := diffPython(t, script, recording)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return ""
	}
	statements := bytes.Count(rec, []byte("\n"))
	first := "matches at every statement"
	if len(diffs) > 0 {
		first = firstLine(diffs[0])
	}
	return fmt.Sprintf("| `%s.py` | H200 | %d of %d match | %s |", name, statements-len(diffs), statements, strings.ReplaceAll(first, "|", `\|`))
}

// firstLine is an error's first line (a traceback follows it).
func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
