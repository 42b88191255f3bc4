package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestModelZoo runs every program of testdata/models/zoo (model code of
// the kind users paste) through the binary. A recorded one is compared
// with its recording statement by statement, under --strict (exact:
// python_passing.txt's ratchet holds it through TestPythonAsPasted) and
// as users run it (estimates allowed); two ratchets hold the second
// run: a program listed in testdata/models/zoo/running.txt must run to
// its end on the simulated H200 without an error, one listed in
// close.txt must come within 2% of PyTorch's allocated, reserved and
// peak allocated bytes at every statement, and one that starts to must
// be added. It checks the zoo is whole (at least 26 programs, each
// listed in the zoo's README) and logs the README's table
// (`go test ./cmd/gpumemrepl -run TestModelZoo -v`).
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
	running, closeTo := zooList(t, "running.txt"), zooList(t, "close.txt")
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
					rows[i] = zooCompared(t, name, f, slices.Contains(running, name), slices.Contains(closeTo, name))
					return
				}
				rows[i] = zooRun(t, name, f, slices.Contains(running, name))
			})
		}
	})
	for _, r := range append(running, closeTo...) {
		if !slices.Contains(names, r) {
			t.Errorf("running.txt or close.txt names %s, which is not a program of the zoo", r)
		}
	}
	t.Logf("\n| program | exact statements | first difference (--strict) | as users run it | largest error |\n| --- | --- | --- | --- | --- |\n%s", strings.Join(rows, "\n"))
}

// zooList is the programs a list of the zoo's names (running.txt,
// close.txt), its comments left out.
func zooList(t *testing.T, file string) []string {
	listed, err := os.ReadFile("../../testdata/models/zoo/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range strings.Split(string(listed), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			names = append(names, l)
		}
	}
	return names
}

// zooRun is an unrecorded zoo program's row: where it stops. It fails
// the test where the program does not do what running.txt says (listed:
// run to its end).
func zooRun(t *testing.T, name, script string, listed bool) string {
	steps := runScript(script, false)
	stop := runCheck(t, name, steps, listed)
	return fmt.Sprintf("| `%s.py` | not recorded | | | %s | |", name, strings.ReplaceAll(stop, "|", `\|`))
}

// runCheck is where a run as users run it stops ("runs to the end", or
// the line and error of the first statement that raised); it fails the
// test where that is not what running.txt says (listed: run to its end).
func runCheck(t *testing.T, name string, steps []pythonStep, listed bool) string {
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
	if first < 0 {
		return fmt.Sprintf("runs to the end (%d statements)", len(steps))
	}
	return fmt.Sprintf("line %d (%d of %d run): %s", steps[first].Line, first, len(steps), firstLine(*steps[first].Error))
}

// zooCompared is a recorded zoo program's row: how many of its
// statements match PyTorch's exactly (--strict, every rule recorded),
// the first that differs, where a run as users run it (estimates
// allowed) stops, and the largest relative difference of its allocated,
// reserved and peak allocated bytes from the recording's. It fails the
// test where the program does not do what running.txt (run to its end)
// and close.txt (every statement within 2%) say.
func zooCompared(t *testing.T, name, script string, listed, close bool) string {
	want, _ := readRecording(t, recordingOf("models/zoo/"+name, script))
	diffs, _ := diffSteps(want, runScript(script, true))
	first := "matches at every statement"
	if len(diffs) > 0 {
		first = firstLine(diffs[0])
	}
	steps := runScript(script, false)
	_, worst := diffSteps(want, steps)
	stop := runCheck(t, name, steps, listed)
	within := worst <= 0.02
	switch {
	case close && !within:
		t.Errorf("%s.py is in close.txt and is now %.3f%% off PyTorch's recording at some statement (estimates allowed)", name, 100*worst)
	case !close && within:
		t.Errorf("%s.py is now within 2%% of PyTorch's recording at every statement: add %s to testdata/models/zoo/close.txt", name, name)
	}
	off := "raises where PyTorch did not"
	if worst < 1 {
		off = fmt.Sprintf("%.3f%%", 100*worst)
	}
	return fmt.Sprintf("| `%s.py` | %d of %d | %s | %s | %s |", name, len(want)-len(diffs), len(want),
		strings.ReplaceAll(first, "|", `\|`), strings.ReplaceAll(stop, "|", `\|`), off)
}

// firstLine is an error's first line (a traceback follows it).
func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// TestZooFit: gpumemrepl fit on each zoo program that runs to its end
// (running.txt) prints a row per GPU, each saying whether it is exact:
// the row of the card its recording was made on (card.txt) exact where
// the program is exact (python_passing.txt), estimated otherwise with
// its first estimate named, and its peaks within 2% of PyTorch's
// recorded peaks where the program is within 2% at every statement
// (close.txt).
func TestZooFit(t *testing.T) {
	passing := zooList(t, "../../python_passing.txt")
	closeTo := zooList(t, "close.txt")
	for _, name := range zooList(t, "running.txt") {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			script := "../../testdata/models/zoo/" + name + ".py"
			out, errOut, code := run(t, "fit", "--json", script)
			if code != 0 {
				t.Fatalf("fit: exit %d\n%s", code, errOut)
			}
			var rows []fitJSON
			for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
				var r fitJSON
				if err := json.Unmarshal([]byte(l), &r); err != nil {
					t.Fatalf("%v: %s", err, l)
				}
				rows = append(rows, r)
			}
			gpus := map[string]bool{}
			for _, r := range rows {
				gpus[r.GPU] = true
				if !r.Exact && (r.EstimatedStatements == 0 || r.FirstEstimate == nil) {
					t.Errorf("%s: estimated, but no estimate named", r.GPU)
				}
			}
			card := recordedOn(script)
			if len(rows) < 2 || len(gpus) != len(rows) || !gpus[card] {
				t.Fatalf("rows %+v, want one per GPU, the %s's among them", rows, card)
			}
			rec := rows[slices.IndexFunc(rows, func(r fitJSON) bool { return r.GPU == card })]
			if exact := slices.Contains(passing, "models/zoo/"+name); rec.Exact != exact {
				t.Errorf("the %s's row: exact %v, want %v", card, rec.Exact, exact)
			}
			if !slices.Contains(closeTo, name) {
				return
			}
			want, _ := readRecording(t, "../../testdata/models/zoo/"+name+".jsonl")
			var alloc, reserved int64
			for _, s := range want {
				for _, d := range s.Devices[:min(len(s.Devices), 1)] {
					alloc, reserved = max(alloc, d.MaxAllocated), max(reserved, d.MaxReserved)
				}
			}
			for _, c := range [][2]int64{{int64(rec.PeakAllocated), alloc}, {int64(rec.PeakReserved), reserved}} {
				if d := c[0] - c[1]; d*50 > c[1] || -d*50 > c[1] {
					t.Errorf("the %s's peaks %d and %d, PyTorch's %d and %d: more than 2%% off", card, rec.PeakAllocated, rec.PeakReserved, alloc, reserved)
				}
			}
		})
	}
}
