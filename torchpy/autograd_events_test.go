package torchpy_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl"
)

// event is one allocator event as the --events recordings keep it: what
// happened and the size asked for.
type event struct {
	action string
	size   uint64
}

// counted are the events that change memory.
var counted = map[string]bool{"alloc": true, "free_completed": true, "segment_alloc": true, "segment_free": true}

// recordedEvents are the allocator events of a --events recording, in
// order, with the line of the statement each came in.
func recordedEvents(t *testing.T, path string) ([]event, []int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var evs []event
	var lines []int
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var row struct {
			Line   int                  `json:"line"`
			Events [][2]json.RawMessage `json:"events"`
		}
		if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
			t.Fatal(err)
		}
		for _, e := range row.Events {
			var a string
			var n uint64
			if json.Unmarshal(e[0], &a) != nil || json.Unmarshal(e[1], &n) != nil {
				t.Fatalf("%s line %d: an event that is not [action, size]", path, row.Line)
			}
			if counted[a] {
				evs, lines = append(evs, event{a, n}), append(lines, row.Line)
			}
		}
	}
	return evs, lines
}

// runRule runs a rule script on the simulated H200, as gpumemrepl run
// --json --keep-going does, and returns its session and what each
// statement printed, by line.
func runRule(t *testing.T, name string) (*engine.Session, map[int]string) {
	t.Helper()
	return runScript(t, filepath.Join("..", "testdata", "pyrules", name+".py"))
}

// ruleSession is the session a rule script runs in: one simulated
// H200 with the driver's addresses, as gpumemrepl run --device sim
// --fake-host gives (the mode users run, so the labels are held in it).
func ruleSession(t *testing.T) *engine.Session {
	t.Helper()
	s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h200"], Backend: "sim", FakeHost: true, Devices: 1, DriverAddresses: true})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runScript is runRule of the script at a path.
func runScript(t *testing.T, script string) (*engine.Session, map[int]string) {
	t.Helper()
	return runScriptIn(t, ruleSession(t), script)
}

// runScriptIn is runScript in session s.
func runScriptIn(t *testing.T, s *engine.Session, script string) (*engine.Session, map[int]string) {
	t.Helper()
	src, err := os.ReadFile(script)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := &repl.Runner{Session: s, Out: &out, Err: io.Discard, File: script, KeepGoing: true, JSON: true}
	r.AtEnd = func() { scriptEnd[s] = len(s.History(0)) }
	r.PyScript(src)
	printed := map[int]string{}
	for _, l := range bytes.Split(out.Bytes(), []byte("\n")) {
		var row struct {
			Line   int    `json:"line"`
			Output string `json:"output"`
			Error  string `json:"error"`
		}
		if json.Unmarshal(l, &row) == nil && row.Line > 0 {
			printed[row.Line] = row.Output
			if row.Error != "" {
				scriptErrors[s] = append(scriptErrors[s], row.Error)
			}
		}
	}
	return s, printed
}

// TestAllocatorEventsInOrder runs the rule scripts of the optimizers,
// the module API and the autograd API on the simulated H200 and checks
// that the caching allocator sees every allocation and free PyTorch's
// did, of the same size, in the same order, and the same segments made
// and released (the recordings' allocator events, not only each
// statement's totals).
func TestAllocatorEventsInOrder(t *testing.T) {
	for _, name := range []string{"optim_sgd", "optim_adam", "optim_groups", "optim_maximize", "autograd_api", "autograd_grad_nonleaf", "module_api", "data_swap_saved", "data_assign", "module_apply_overwrite", "optim_state_data", "tensor_set"} {
		t.Run(name, func(t *testing.T) {
			s, _ := runRule(t, name)
			checkEvents(t, s, filepath.Join("..", "testdata", "pyrules", name+".jsonl"))
		})
	}
}

// scriptEnd is how many allocator events each rule script's session
// had seen when its last statement ended: the recordings stop there,
// before the interpreter's exit frees the module's objects.
var scriptEnd = map[*engine.Session]int{}

// scriptErrors are the errors each rule script's statements raised, in
// order, as LINE:COL: TYPE: MESSAGE.
var scriptErrors = map[*engine.Session][]string{}

// sessionEvents are the allocations, frees and segments session s's
// first GPU saw while its script ran, in order.
func sessionEvents(s *engine.Session) []event {
	var got []event
	for _, e := range s.History(0)[:scriptEnd[s]] {
		if counted[e.Action] {
			got = append(got, event{e.Action, e.Size})
		}
	}
	return got
}

// eventsBefore are the events session s's script made before the
// statement at line (or a later one) began, and those PyTorch made in
// the --events recording at path: the part of a script that runs before
// a statement the tool refuses.
func eventsBefore(t *testing.T, s *engine.Session, path string, line int) (got, want []event) {
	t.Helper()
	want, lines := recordedEvents(t, path)
	n := slices.IndexFunc(lines, func(l int) bool { return l >= line })
	if n < 0 {
		t.Fatalf("%s records no event at line %d or after", path, line)
	}
	got = sessionEvents(s)
	return got[:min(n, len(got))], want[:n]
}

// checkEvents checks that session s's allocator saw the allocations,
// frees and segments of a --events recording, of the same sizes, in
// the same order.
func checkEvents(t *testing.T, s *engine.Session, path string) {
	t.Helper()
	got := sessionEvents(s)
	want, lines := recordedEvents(t, path)
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("event %d (line %d): %s %d, PyTorch's %s %d", i, lines[i], got[i].action, got[i].size, want[i].action, want[i].size)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d events, PyTorch's %d", len(got), len(want))
	}
}

// TestRulesPrintWhatPyTorchPrinted: each statement of these rule scripts
// prints what it printed under PyTorch (memory figures in f-strings, the
// schedulers' learning rates, state keys, requires_grad flags, names of
// parameters and modules...).
func TestRulesPrintWhatPyTorchPrinted(t *testing.T) {
	for _, name := range []string{"optim_sgd", "optim_adam", "optim_groups", "optim_maximize", "optim_train", "autograd_api", "autograd_grad_nonleaf", "module_api", "module_convert", "ops_values", "ops_arith_values", "ops_legacy", "ops_floordiv_addmm", "data_swap_saved", "data_assign", "module_apply_overwrite", "optim_state_data", "tensor_set"} {
		t.Run(name, func(t *testing.T) {
			_, printed := runRule(t, name)
			checkPrinted(t, printed, filepath.Join("..", "testdata", "pyrules", name+".jsonl"))
		})
	}
}

// checkRules runs each rule script and checks its allocator events, in
// order, and what each statement printed against its recording.
func checkRules(t *testing.T, names ...string) {
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			s, printed := runRule(t, name)
			path := filepath.Join("..", "testdata", "pyrules", name+".jsonl")
			checkEvents(t, s, path)
			checkPrinted(t, printed, path)
		})
	}
}

// objectAddress is where CPython's default repr names an object's
// address (<AliasBackward0 object at 0x7f...>), which the tool leaves out.
var objectAddress = regexp.MustCompile(` at 0x[0-9a-f]+`)

// undefinedOutput are recorded lines, by rule script, whose output
// PyTorch made from memory it should not have read: the tool answers
// them with PyTorch's error for the case instead.
var undefinedOutput = map[string][]int{
	// memory_reserved(-1): a UnicodeDecodeError of bytes past the device
	// table (memory_reserved(9) is "Invalid device argument")
	"ops_cuda_errors": {34},
}

// checkPrinted checks that each statement of a recording printed what
// it printed under PyTorch.
func checkPrinted(t *testing.T, printed map[int]string, path string) {
	t.Helper()
	skip := undefinedOutput[strings.TrimSuffix(filepath.Base(path), ".jsonl")]
	for line, out := range recordedOutput(t, path) {
		out = objectAddress.ReplaceAllString(out, "")
		if got := printed[line]; got != out && !slices.Contains(skip, line) {
			t.Errorf("line %d printed %q, PyTorch %q", line, got, out)
		}
	}
}

// recordedOutput is what each statement of a recording printed, by line.
func recordedOutput(t *testing.T, path string) map[int]string {
	t.Helper()
	out := map[int]string{}
	for _, row := range recordedRows(t, path) {
		out[row.Line] = row.Stdout
	}
	return out
}

// recordedRow is one statement of a recording: its line, what it
// printed, and its error (nil when none).
type recordedRow struct {
	Line   int     `json:"line"`
	Stdout string  `json:"stdout"`
	Error  *string `json:"error"`
}

// recordedRows are a recording's statements.
func recordedRows(t *testing.T, path string) []recordedRow {
	t.Helper()
	var rows []recordedRow
	eachRow(t, path, func(b []byte) {
		var row recordedRow
		if err := json.Unmarshal(b, &row); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, row)
	})
	return rows
}

// eachRow calls f with each line of the recording at path.
func eachRow(t *testing.T, path string, f func([]byte)) {
	t.Helper()
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		f(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestInputBufferEvents: where gradients meet at one input, the second is
// added into the first in place only when autograd holds the first alone
// and it is no view (pyrules/autograd_buffer: fresh gradients of mul, one
// gradient passed twice by add, view's and t's gradients in both orders,
// a weight's gradients through linear (TBackward0's views) and mm, a 3-d
// input's through linear's fold, a leaf's view gradient stolen, a cast
// weight under autocast); pyrules/autograd_buffer_views: broadcast
// operands' sums, cat's pieces, residuals around linears, einsum, and
// when a gradient added into another goes (with its node's others).
func TestInputBufferEvents(t *testing.T) {
	checkRules(t, "autograd_buffer", "autograd_buffer_views")
}
