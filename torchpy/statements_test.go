package torchpy_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl"
)

var update = flag.Bool("update", false, "rewrite testdata/pyrules/statements_differ.txt from the runs")

// differList is where TestRecordedStatements keeps, for each rule script
// it holds, the statements that still differ from the recording.
var differList = filepath.Join("..", "testdata", "pyrules", "statements_differ.txt")

// TestRecordedStatements holds the rule scripts listed in
// testdata/pyrules/statements_differ.txt to their recordings statement
// by statement: each statement makes PyTorch's allocations and frees,
// of the same sizes in the same order (a run of frees in any order:
// PyTorch's autocast cache frees its casts in its hash map's order), raises where PyTorch raised and
// prints what it printed, but the statements listed after the script's
// name, which must still differ (a ratchet; -update rewrites the lists).
// A statement is held apart from those before it, so one op's rule is
// checked even where an earlier statement of its script is not yet
// modelled (segments, which depend on what came before, are left to
// TestPythonAsPasted's figures). Its log names the ops estimated in each
// script and whether every statement running them matched: those whose
// label may go (testdata/pyrules_pending/README.md, "Importing"); no
// estimate of a recorded script may say its op is not recorded.
func TestRecordedStatements(t *testing.T) {
	listed := readDifferList(t)
	found := map[string][]int{}
	var names []string
	for name := range listed {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			st := runStatements(t, filepath.Join("..", "testdata", "pyrules", name+".py"))
			path := filepath.Join("..", "testdata", "pyrules", name+".jsonl")
			differ, why := st.compare(t, path)
			found[name] = differ
			if *update {
				return
			}
			for _, l := range differ {
				if !slices.Contains(listed[name], l) {
					t.Errorf("line %d: %s", l, why[l])
				}
			}
			for _, l := range listed[name] {
				switch {
				case !slices.Contains(differ, l):
					t.Errorf("line %d now matches its recording: take it off %s's list in statements_differ.txt", l, name)
				case st.unlabelled(l, why[l]):
					t.Errorf("line %d differs from its recording (%s) but is labelled exact: no estimate or refusal on its path", l, why[l])
				case testing.Verbose():
					t.Logf("line %d (listed): %s", l, why[l])
				}
			}
			t.Logf("%d statements differ; estimated ops: %s", len(differ), st.estimatedOps(differ))
			st.checkCauses(t)
		})
	}
	if *update {
		writeDifferList(t, names, found)
	}
}

// unlabelled reports whether line, which differs from its recording as
// d says, is labelled exact by the run, so that nothing tells a user
// its figures or events may not be PyTorch's. A statement is labelled
// by an estimate or an error of its own; by a refusal before it (the
// run leaves out what PyTorch did there, and every statement after
// runs on that); where only its print differs, by any estimate before
// it (the figures it prints rest on it: the step is marked estimated);
// and where its events differ, by an estimate of the statement that
// made a block it frees (the difference is on that block's path: a
// backward freeing what an estimated forward saved). An estimate
// before it on no such path does not label it: a statement's events
// are its own ops' rules, which an unrelated estimate does not excuse.
func (st *statements) unlabelled(line int, d difference) bool {
	r := st.rows[line]
	if len(r.estimates) > 0 || r.err != "" {
		return false
	}
	for _, sp := range st.spans[:r.span] {
		if sp.refused {
			return false
		}
	}
	if !d.events {
		return r.exact
	}
	h := st.s.History(0)
	for i := r.from; i < r.to; i++ {
		if h[i].Action != "free_completed" {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if h[j].Action == "alloc" && h[j].Addr == h[i].Addr {
				if st.spanAt(j).estimated {
					return false
				}
				break
			}
		}
	}
	return true
}

// spanAt is the statement run whose events include the history's i-th.
func (st *statements) spanAt(i int) span {
	k, _ := slices.BinarySearchFunc(st.spans, i, func(sp span, i int) int {
		if sp.to <= i {
			return -1
		}
		return 1
	})
	return st.spans[k]
}

// checkCauses holds what the estimates of a recorded rule script's run
// say of the GPU to what is true: the script recorded every op it ran,
// so no estimate says its op is not yet recorded or waits in
// testdata/pyrules_pending, and a recording an estimate names exists.
func (st *statements) checkCauses(t *testing.T) {
	t.Helper()
	for line, r := range st.rows {
		for _, e := range r.estimates {
			if strings.Contains(e, "not yet recorded") || strings.Contains(e, "pyrules_pending") {
				t.Errorf("line %d: %q: the op is recorded (this script ran it on the GPU)", line, e)
			}
			for rest := e; strings.Contains(rest, "testdata/pyrules/"); {
				_, rest, _ = strings.Cut(rest, "testdata/pyrules/")
				name, _, _ := strings.Cut(rest, ".py")
				if _, err := os.Stat(filepath.Join("..", "testdata", "pyrules", name+".py")); err != nil {
					t.Errorf("line %d: %q names a recording that is not there: %v", line, e, err)
				}
			}
		}
	}
}

// statements is one run of a rule script: each statement's allocator
// events (by the index of the session's history where it began and
// ended), what it printed, its error and the ops it estimated.
type statements struct {
	s    *engine.Session
	rows map[int]statementRow
	// spans are the statements as they ran (a loop's body once a pass),
	// in order
	spans []span
}

// statementRow is what the run did at one statement (its last run).
type statementRow struct {
	from, to  int
	output    string
	err       string
	estimates []string
	// exact is whether the step's figures were labelled exact (no
	// estimate so far in the run); span is its run's index in spans
	exact bool
	span  int
}

// span is one run of a statement: its events are the session
// history's [from, to); estimated if it estimated or was refused
// (refused: it was).
type span struct {
	to                 int
	estimated, refused bool
}

// statementWriter reads the runner's JSON rows as they are written and
// notes where in the session's history each statement's events end.
type statementWriter struct {
	st   *statements
	buf  bytes.Buffer
	last int
}

func (w *statementWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	for {
		i := bytes.IndexByte(w.buf.Bytes(), '\n')
		if i < 0 {
			return len(p), nil
		}
		var row struct {
			Line      int      `json:"line"`
			Output    string   `json:"output"`
			Error     string   `json:"error"`
			Estimates []string `json:"estimates"`
			Exact     *bool    `json:"exact"`
		}
		if json.Unmarshal(w.buf.Next(i+1), &row) == nil && row.Line > 0 {
			n := len(w.st.s.History(0))
			refused := slices.ContainsFunc(row.Estimates, func(e string) bool { return strings.HasPrefix(e, "refused ") })
			w.st.rows[row.Line] = statementRow{w.last, n, row.Output, row.Error, row.Estimates, row.Exact == nil, len(w.st.spans)}
			w.st.spans = append(w.st.spans, span{n, len(row.Estimates) > 0, refused})
			w.last = n
		}
	}
}

// runStatements runs a rule script on the simulated H200, as gpumemrepl
// run --json --keep-going does, keeping each statement's events.
func runStatements(t *testing.T, script string) *statements {
	t.Helper()
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	s := ruleSession(t)
	st := &statements{s: s, rows: map[int]statementRow{}}
	r := &repl.Runner{Session: s, Out: &statementWriter{st: st}, Err: io.Discard, File: script, KeepGoing: true, JSON: true}
	r.PyScript(src)
	return st
}

// events are the allocations and frees of a statement's row.
func (st *statements) events(r statementRow) []event {
	var evs []event
	for _, e := range st.s.History(0)[r.from:r.to] {
		if e.Action == "alloc" || e.Action == "free_completed" {
			evs = append(evs, event{e.Action, e.Size})
		}
	}
	return evs
}

// difference is how a statement differs from its recording.
type difference struct {
	why string
	// events: its allocations and frees, or whether it raised (not only
	// what it printed)
	events bool
}

func (d difference) String() string { return d.why }

// compare lists the recorded statements (by line) whose events, error
// or print differ from the recording at path, and how each does.
func (st *statements) compare(t *testing.T, path string) ([]int, map[int]difference) {
	t.Helper()
	var differ []int
	why := map[int]difference{}
	skip := undefinedOutput[strings.TrimSuffix(filepath.Base(path), ".jsonl")]
	for _, rec := range recordedStatements(t, path) {
		got, ok := st.rows[rec.line]
		var d string
		switch evs := st.events(got); {
		case !ok:
			d = "no step ran it"
		case (got.err != "") != (rec.err != ""):
			d = fmt.Sprintf("error %q, PyTorch's %q", got.err, rec.err)
		case !slices.Equal(freesAsSets(evs), freesAsSets(rec.events)):
			d = fmt.Sprintf("events %v, PyTorch's %v", evs, rec.events)
		case got.output != objectAddress.ReplaceAllString(rec.stdout, "") && !slices.Contains(skip, rec.line):
			d = fmt.Sprintf("printed %q, PyTorch %q", got.output, rec.stdout)
		default:
			continue
		}
		differ = append(differ, rec.line)
		why[rec.line] = difference{d, !strings.HasPrefix(d, "printed")}
	}
	return differ, why
}

// estimatedOps names the ops the run estimated, each with the lines of
// the differing statements that estimated it, if any ("torch.sin,
// Tensor.sin_ (differs: 101)").
func (st *statements) estimatedOps(differ []int) string {
	at := map[string][]int{}
	var ops []string
	for line, r := range st.rows {
		for _, e := range r.estimates {
			op, _, _ := strings.Cut(e, " ")
			if _, ok := at[op]; !ok {
				ops = append(ops, op)
				at[op] = nil
			}
			if slices.Contains(differ, line) {
				at[op] = append(at[op], line)
			}
		}
	}
	slices.Sort(ops)
	for i, op := range ops {
		if ls := at[op]; len(ls) > 0 {
			slices.Sort(ls)
			ops[i] = fmt.Sprintf("%s (differs: %s)", op, strings.Trim(fmt.Sprint(ls), "[]"))
		}
	}
	if len(ops) == 0 {
		return "none"
	}
	return strings.Join(ops, ", ")
}

// recordedStatement is one statement of an --events recording.
type recordedStatement struct {
	line        int
	stdout, err string
	events      []event
}

// recordedStatements are a recording's statements with their
// allocations and frees.
func recordedStatements(t *testing.T, path string) []recordedStatement {
	t.Helper()
	rows := recordedRows(t, path)
	evs, lines := recordedEvents(t, path)
	var out []recordedStatement
	for _, r := range rows {
		rec := recordedStatement{line: r.Line, stdout: r.Stdout}
		if r.Error != nil {
			rec.err = *r.Error
		}
		for i, e := range evs {
			if lines[i] == r.Line && e.action != "segment_alloc" && e.action != "segment_free" {
				rec.events = append(rec.events, e)
			}
		}
		out = append(out, rec)
	}
	return out
}

// readDifferList reads statements_differ.txt: "NAME: LINE LINE ..." a
// script, comments after #.
func readDifferList(t *testing.T) map[string][]int {
	t.Helper()
	b, err := os.ReadFile(differList)
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string][]int{}
	for i, l := range strings.Split(string(b), "\n") {
		l, _, _ = strings.Cut(l, "#")
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		name, rest, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("%s:%d: want NAME: LINE..., got %q", differList, i+1, l)
		}
		listed[name] = []int{}
		for _, f := range strings.Fields(rest) {
			n, err := strconv.Atoi(f)
			if err != nil {
				t.Fatalf("%s:%d: %q is not a line number", differList, i+1, f)
			}
			listed[name] = append(listed[name], n)
		}
	}
	return listed
}

// writeDifferList rewrites statements_differ.txt's lists, its comment
// lines kept.
func writeDifferList(t *testing.T, names []string, found map[string][]int) {
	t.Helper()
	b, err := os.ReadFile(differList)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
			out = append(out, l)
		}
	}
	for _, name := range names {
		out = append(out, strings.TrimSpace(name+": "+strings.Trim(fmt.Sprint(found[name]), "[]")))
	}
	if err := os.WriteFile(differList, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}
