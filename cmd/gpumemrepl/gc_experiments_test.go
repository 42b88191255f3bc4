package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// gcRow is one statement of a scripts/record_gc.py recording (CPython
// 3.12.3 and PyTorch 2.11 with the recorder's reads after each
// statement), or of gpumemrepl run --json --as-recorded.
type gcRow struct {
	Line    int     `json:"line"`
	Stdout  string  `json:"stdout"`
	Output  string  `json:"output"`
	Error   *string `json:"error"`
	GC      []int   `json:"gc"`
	Devices []struct {
		Allocated    int64 `json:"allocated"`
		Reserved     int64 `json:"reserved"`
		MaxAllocated int64 `json:"max_allocated"`
		MaxReserved  int64 `json:"max_reserved"`
	} `json:"devices"`
	Allocated int64 `json:"allocated_bytes"`
	Reserved  int64 `json:"reserved_bytes"`
	MaxAlloc  int64 `json:"max_allocated_bytes"`
	MaxReserv int64 `json:"max_reserved_bytes"`
}

// figures are a row's cuda:0 allocated, reserved and peak bytes.
func (r gcRow) figures(recorded bool) [4]int64 {
	if !recorded {
		return [4]int64{r.Allocated, r.Reserved, r.MaxAlloc, r.MaxReserv}
	}
	if len(r.Devices) == 0 {
		return [4]int64{}
	}
	d := r.Devices[0]
	return [4]int64{d.Allocated, d.Reserved, d.MaxAllocated, d.MaxReserved}
}

// readGCRows reads JSON rows, one a line, skipping what is not a row.
func readGCRows(t testing.TB, text string) []gcRow {
	t.Helper()
	var rows []gcRow
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r gcRow
		if json.Unmarshal(sc.Bytes(), &r) == nil && r.Line > 0 {
			rows = append(rows, r)
		}
	}
	return rows
}

// gcExperimentDiffs runs a leak experiment as its recording was made
// (--as-recorded, with more flags) and lists the statements whose
// memory figures (allocated, reserved and their peaks), printed text or
// error differ from PyTorch's (memory), and those that match there but
// whose gc.get_count() differs from CPython's (counts); it returns them
// and how many statements the recording has.
func gcExperimentDiffs(t testing.TB, script string, flags ...string) (memory, counts []string, n int) {
	rec, err := os.ReadFile(strings.TrimSuffix(script, ".py") + ".jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := readGCRows(t, string(rec))
	out, _ := exec.Command(binary, append([]string{"run", "--json", "--fake-host", "--device", "sim", "--keep-going", "--as-recorded", script}, flags...)...).Output()
	got := map[int]gcRow{}
	for _, r := range readGCRows(t, string(out)) {
		got[r.Line] = r
	}
	for _, w := range want {
		g, ok := got[w.Line]
		switch {
		case !ok:
			memory = append(memory, fmt.Sprintf("line %d: no step", w.Line))
		case (g.Error != nil) != (w.Error != nil):
			memory = append(memory, fmt.Sprintf("line %d: error %v, CPython's %v", w.Line, g.Error != nil, w.Error != nil))
		case g.figures(false) != w.figures(true):
			memory = append(memory, fmt.Sprintf("line %d: allocated, reserved and peaks %v, PyTorch's %v", w.Line, g.figures(false), w.figures(true)))
		case g.Output != w.Stdout:
			memory = append(memory, fmt.Sprintf("line %d: printed %s", w.Line, firstDifference(g.Output, w.Stdout)))
		case !slices.Equal(g.GC, w.GC):
			counts = append(counts, fmt.Sprintf("line %d: gc.get_count() %v, CPython's %v", w.Line, g.GC, w.GC))
		}
	}
	return memory, counts, len(want)
}

// firstDifference is the first line of printed text that differs, and
// CPython's.
func firstDifference(got, want string) string {
	d := lineDiffs(strings.Split(got, "\n"), strings.Split(want, "\n"))
	if len(d) == 0 {
		return "the same"
	}
	return fmt.Sprintf("%q at its line %d, CPython %q", d[0].got, d[0].line, d[0].want)
}

// lineDiff is a line (counted from 1) where two texts differ: what each
// has there (a text that ends before has "").
type lineDiff struct {
	line      int
	got, want string
}

// lineDiffs lists the lines where got and want differ.
func lineDiffs(got, want []string) []lineDiff {
	var out []lineDiff
	for i := range max(len(got), len(want)) {
		var d lineDiff
		if i < len(got) {
			d.got = got[i]
		}
		if i < len(want) {
			d.want = want[i]
		}
		if d.got != d.want {
			d.line = i + 1
			out = append(out, d)
		}
	}
	return out
}

// TestCollectorExperiments runs the published leak experiments of
// testdata/experiments/gc as scripts/record_gc.py recorded them
// (--as-recorded) and holds each statement to the recording twice over:
// its memory figures, printed text and error (what the "match"
// asks), and those with gc.get_count() too. testdata/experiments/gc/
// matching.txt says how many statements of each match both ways; the
// test fails when fewer do, and when more do (the list is kept true as
// the collector's model grows).
func TestCollectorExperiments(t *testing.T) {
	listed, err := os.ReadFile("../../testdata/experiments/gc/matching.txt")
	if err != nil {
		t.Fatal(err)
	}
	type listing struct{ memory, counts, n int }
	want := map[string]listing{}
	for _, l := range strings.Split(string(listed), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		var e listing
		if len(f) != 3 {
			t.Fatalf("matching.txt: %q is not NAME MEMORY/STATEMENTS COUNTS/STATEMENTS", l)
		}
		for i, p := range []*int{&e.memory, &e.counts} {
			a, b, ok := ratio(f[1+i])
			if !ok || (i == 1 && b != e.n) {
				t.Fatalf("matching.txt: %q is not NAME MEMORY/STATEMENTS COUNTS/STATEMENTS", l)
			}
			*p, e.n = a, b
		}
		want[f[0]] = e
	}
	scripts, err := filepath.Glob("../../testdata/experiments/gc/*.py")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no experiments (%v)", err)
	}
	for _, script := range scripts {
		name := strings.TrimSuffix(filepath.Base(script), ".py")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e, ok := want[name]
			if !ok {
				t.Fatalf("matching.txt does not list %s", name)
			}
			memory, counts, n := gcExperimentDiffs(t, script)
			m, c := n-len(memory), n-len(memory)-len(counts)
			switch {
			case n != e.n:
				t.Errorf("the recording has %d statements, matching.txt says %d", n, e.n)
			case m < e.memory || c < e.counts:
				t.Errorf("%d of %d statements match PyTorch's memory and printed text, %d with CPython's gc.get_count() too; matching.txt says %d and %d:\n%s", m, n, c, e.memory, e.counts, strings.Join(append(memory, counts...), "\n"))
			case m > e.memory || c > e.counts:
				t.Errorf("more statements match now: say %s %d/%d %d/%d in matching.txt", name, m, n, c, n)
			}
		})
	}
}

// ratio reads "A/B", two ints.
func ratio(s string) (a, b int, ok bool) {
	x, y, found := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(x)
	b, err2 := strconv.Atoi(y)
	return a, b, found && err1 == nil && err2 == nil
}

// --as-recorded is in run's help, and runs only a Python script: with a
// .gpumem script it is bad usage, one line, exit 2.
func TestAsRecordedUsage(t *testing.T) {
	t.Parallel()
	if out, _, code := run(t, "help", "run"); code != 0 || !strings.Contains(out, "--as-recorded") || !strings.Contains(out, "Python script's gc.get_count()") {
		t.Errorf("help run: exit %d, no --as-recorded or --json's gc:\n%s", code, out)
	}
	script := filepath.Join(t.TempDir(), "a.gpumem")
	if err := os.WriteFile(script, []byte("a = zeros 4 cuda\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--as-recorded", "--device", "sim", script)
	if code != 2 || out != "" || !strings.Contains(errOut, "--as-recorded runs a Python script") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("run --as-recorded a.gpumem: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// scripts/record_gc.py --lines records what the plain form records
// (its probes allocate no container, so what each top-level statement
// adds to the counts is the same) and, in NAME.lines.json, gc.get_count() after each
// statement that ran inside a loop or function, with its line.
func TestRecordGCLines(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "s.py")
	src := "import gc\n\n\nclass Node:\n    def __init__(self):\n        self.link = self\n\n\nfor i in range(3):\n    n = Node()\n    del n\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := func(args ...string) []gcRow {
		cmd := exec.Command("python3", append([]string{"../../scripts/record_gc.py"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("record_gc.py %v: %v\n%s", args, err, out)
		}
		b, err := os.ReadFile(args[len(args)-1])
		if err != nil {
			t.Fatal(err)
		}
		return readGCRows(t, string(b))
	}
	plain, probed := rows(script, filepath.Join(dir, "a.jsonl")), rows("--lines", script, filepath.Join(dir, "b.jsonl"))
	if len(plain) != 3 || len(probed) != 3 {
		t.Fatalf("%d and %d rows, want 3", len(plain), len(probed))
	}
	// the recorder's own compile of the probes moves the counts before
	// the first statement: what each statement adds is the same
	for i := 1; i < len(plain); i++ {
		a, b := plain[i].GC[0]-plain[i-1].GC[0], probed[i].GC[0]-probed[i-1].GC[0]
		if a != b {
			t.Errorf("line %d adds %d with probes, %d without", plain[i].Line, b, a)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "b.lines.json"))
	if err != nil {
		t.Fatal(err)
	}
	var probes [][4]int
	if err := json.Unmarshal(b, &probes); err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, p := range probes {
		lines = append(lines, p[0])
	}
	// the class body's def, then each round's two statements and each
	// __init__'s one
	want := []int{5, 6, 10, 11, 6, 10, 11, 6, 10, 11}
	if !slices.Equal(lines, want) {
		t.Errorf("probes at lines %v, want %v", lines, want)
	}
}

// scripts/record_gc.py --trace records what the plain form records and,
// in NAME.trace.json.gz, gc.get_count() after every line run, where
// each collection started and each statement ended, but for top-level
// imports: a loop that leaves one cycle a round shows it at its last
// line, one more each round, and gc.collect() shows as a collection of
// generation 2.
func TestRecordGCTrace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "s.py")
	src := "import gc\n\n\nclass Node:\n    def __init__(self):\n        self.link = self\n\n\nfor i in range(3):\n    n = Node()\n    del n\ngc.collect()\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "a.jsonl")
	if b, err := exec.Command("python3", "../../scripts/record_gc.py", "--trace", script, out).CombinedOutput(); err != nil {
		t.Fatalf("record_gc.py --trace: %v\n%s", err, b)
	}
	var trace struct {
		Codes       []string
		Events      [][5]int
		Ends        []int
		Collections [][5]int
	}
	decodeGzipJSON(t, filepath.Join(dir, "a.trace.json.gz"), &trace)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if rows := readGCRows(t, string(b)); len(rows) != 4 || len(trace.Ends) != 4 {
		t.Fatalf("%d rows and %d statement ends, want 4", len(rows), len(trace.Ends))
	}
	var lines, after []int
	for _, e := range trace.Events {
		if e[0] < 0 || e[0] >= len(trace.Codes) {
			t.Fatalf("event %v names no code of %d", e, len(trace.Codes))
		}
		if strings.HasPrefix(trace.Codes[e[0]], script+":") {
			lines = append(lines, e[1])
			if e[1] == 11 {
				after = append(after, e[2])
			}
		}
	}
	// not the import's line: a top-level import is not traced
	want := []int{4, 4, 5, 9, 10, 6, 11, 9, 10, 6, 11, 9, 10, 6, 11, 9, 12}
	if !slices.Equal(lines, want) {
		t.Errorf("the script's lines ran %v, want %v", lines, want)
	}
	if len(after) != 3 || after[1] != after[0]+1 || after[2] != after[1]+1 {
		t.Errorf("counts after each round's del %v, want one more each round", after)
	}
	if c := trace.Collections; len(c) != 1 || c[0][1] != 2 || c[0][0] > trace.Ends[3] || c[0][0] < trace.Ends[2] {
		t.Errorf("collections %v, want gc.collect()'s of generation 2 in the last statement (ends %v)", c, trace.Ends)
	}
}

// A program that clears gc.callbacks (testdata/experiments/gc's
// gc_threshold_set does) takes the recorder's callback out with its
// own: record_gc.py --trace still writes the recording and its trace,
// with the collections up to then, and says that later ones are not in
// it.
func TestRecordGCTraceCallbacksCleared(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := filepath.Join(dir, "s.py")
	if err := os.WriteFile(script, []byte("import gc\ngc.collect()\ngc.callbacks.clear()\ngc.collect()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "a.jsonl")
	b, err := exec.Command("python3", "../../scripts/record_gc.py", "--trace", script, out).CombinedOutput()
	if err != nil {
		t.Fatalf("record_gc.py --trace: %v\n%s", err, b)
	}
	if !strings.Contains(string(b), "removed the recorder's gc callback") {
		t.Errorf("record_gc.py says %q, want it to say the program removed its callback", b)
	}
	var trace struct{ Collections [][5]int }
	decodeGzipJSON(t, filepath.Join(dir, "a.trace.json.gz"), &trace)
	if len(trace.Collections) != 1 {
		t.Errorf("collections %v, want the first gc.collect()'s alone", trace.Collections)
	}
}

// freeListLine is a line of sys._debugmallocstats() that gives a free
// list the collector's model holds: dicts, lists, tuples by size.
var freeListLine = regexp.MustCompile(`^ *\d+ free (PyDict|PyList|\d+-sized PyTuple)Objects \* `)

// freeListReads splits what sys._debugmallocstats() wrote to stderr
// into its reads, each the free-list lines of freeListLine (a read
// starts with the dicts').
func freeListReads(stderr string) [][]string {
	var reads [][]string
	for _, l := range strings.Split(stderr, "\n") {
		m := freeListLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if m[1] == "PyDict" || len(reads) == 0 {
			reads = append(reads, nil)
		}
		reads[len(reads)-1] = append(reads[len(reads)-1], l)
	}
	return reads
}

// freeListRecording is what free_lists.txt's NAME names: a probe,
// scripts/NAME.py, with its stderr testdata/experiments/gc/NAME.stderr,
// or rounds/EXPERIMENT (steps/EXPERIMENT), the copy of a leak experiment
// that scripts/gc_free_lists_rounds.sh (scripts/gc_free_lists_steps.py)
// made and recorded, with its stderr gzipped beside it
// (testdata/experiments/gc/rounds/EXPERIMENT.py and .stderr.gz).
func freeListRecording(t *testing.T, name string) (script, stderr string) {
	const dir = "../../testdata/experiments/gc/"
	if !strings.Contains(name, "/") {
		rec, err := os.ReadFile(dir + name + ".stderr")
		if err != nil {
			t.Fatal(err)
		}
		return "../../scripts/" + name + ".py", string(rec)
	}
	return dir + name + ".py", string(readGzip(t, dir+name+".stderr.gz"))
}

// TestFreeLists runs the recordings that read CPython's free lists
// (freeListRecording's, under scripts/record_gc.py) as they were
// recorded, and holds each read of the free lists of dicts, lists and
// tuples to CPython's, line for line. free_lists.txt says how many reads
// match; the test fails when fewer do, and when more do.
func TestFreeLists(t *testing.T) {
	listed, err := os.ReadFile("../../testdata/experiments/gc/free_lists.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, l := range strings.Split(string(listed), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if len(f) != 2 {
			t.Fatalf("free_lists.txt: %q is not NAME MATCHING/READS", l)
		}
		want, reads, ok := ratio(f[1])
		if !ok {
			t.Fatalf("free_lists.txt: %q is not NAME MATCHING/READS", l)
		}
		n++
		t.Run(f[0], func(t *testing.T) {
			t.Parallel()
			script, rec := freeListRecording(t, f[0])
			_, errOut, _ := run(t, "run", "--json", "--fake-host", "--device", "sim", "--as-recorded", script)
			cpython, tool := freeListReads(rec), freeListReads(errOut)
			if len(cpython) != reads || len(tool) != reads {
				t.Fatalf("CPython read the free lists %d times, the tool %d; free_lists.txt says %d", len(cpython), len(tool), reads)
			}
			var diffs []string
			m := reads
			for i := range cpython {
				if d := lineDiffs(tool[i], cpython[i]); len(d) > 0 {
					m--
					diffs = append(diffs, fmt.Sprintf("read %d:", i))
					for _, l := range d {
						diffs = append(diffs, "  tool    "+l.got, "  CPython "+l.want)
					}
				}
			}
			switch {
			case m < want:
				t.Errorf("%d of %d reads match CPython's; free_lists.txt says %d:\n%s", m, reads, want, strings.Join(diffs, "\n"))
			case m > want:
				t.Errorf("more reads match now: say %s %d/%d in free_lists.txt", f[0], m, reads)
			}
		})
	}
	if n == 0 {
		t.Fatal("free_lists.txt lists no recording")
	}
}
