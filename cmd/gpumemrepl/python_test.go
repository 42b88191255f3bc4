package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// recordedStep is one row of a PyTorch recording (scripts/
// record_script.py run on the GPU machine): a top-level statement and
// the figures after it.
type recordedStep struct {
	Line    int     `json:"line"`
	Error   *string `json:"error"`
	Devices []struct {
		Allocated    int64 `json:"allocated"`
		Reserved     int64 `json:"reserved"`
		MaxAllocated int64 `json:"max_allocated"`
		MaxReserved  int64 `json:"max_reserved"`
	} `json:"devices"`
}

// pythonStep is one --json row of gpumemrepl run FILE.py.
type pythonStep struct {
	Line      int     `json:"line"`
	EndLine   int     `json:"end_line"`
	Allocated int64   `json:"allocated_bytes"`
	Reserved  int64   `json:"reserved_bytes"`
	MaxAlloc  int64   `json:"max_allocated_bytes"`
	MaxReserv int64   `json:"max_reserved_bytes"`
	Host      int64   `json:"host_rss_bytes"`
	Error     *string `json:"error"`
	Exact     *bool   `json:"exact"` // false where the figures rest on an estimate, absent where exact
}

// pythonRecordings are the Python programs recorded with PyTorch 2.11
// on an H200: the seed experiments, the published experiments of
// testdata/experiments, the rule scripts of testdata/pyrules, the
// training programs of testdata/models (issue 15's MLP, CNN and GPT)
// and those of the model zoo (testdata/models/zoo) that are recorded
// (TestModelZoo holds the others to running.txt).
func pythonRecordings(t testing.TB) map[string]string {
	out := map[string]string{
		"seed000": "../../scripts/seed000.py",
		"seed003": "../../scripts/seed003.py",
	}
	for _, dir := range []string{"experiments", "pyrules", "models", "models/zoo"} {
		files, err := filepath.Glob(filepath.Join("../../testdata", dir, "*.py"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			name := dir + "/" + strings.TrimSuffix(filepath.Base(f), ".py")
			if dir == "models/zoo" && !recorded(name, f) {
				continue
			}
			out[name] = f
		}
	}
	return out
}

// recorded reports whether the program has its recording beside it.
func recorded(name, script string) bool {
	_, err := os.Stat(recordingOf(name, script))
	return err == nil
}

func recordingOf(name, script string) string {
	if strings.HasPrefix(name, "seed") {
		return "../../testdata/seeds/" + name + ".jsonl"
	}
	return strings.TrimSuffix(script, ".py") + ".jsonl"
}

// runScript runs the script file as pasted on the simulated card its
// recording was made on (recordedOn), going on past errors (strict:
// refusing to estimate), and gives its --json rows in order.
func runScript(script string, strict bool) []pythonStep {
	return runScriptOn(script, strict, recordedOn(script))
}

// recordedOn is the preset of the card a script's recording was made
// on: the one card.txt beside it names (its first line that is not a
// comment), else the H200's.
func recordedOn(script string) string {
	b, err := os.ReadFile(filepath.Join(filepath.Dir(script), "card.txt"))
	if err != nil {
		return "h200"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return l
		}
	}
	return "h200"
}

// runScriptOn is runScript on the simulated preset, with more flags.
func runScriptOn(script string, strict bool, preset string, flags ...string) []pythonStep {
	args := append([]string{"run", "--json", "--fake-host", "--device", "sim", "--preset", preset, "--keep-going", script}, flags...)
	if strict {
		args = append(args, "--strict")
	}
	out, _ := exec.Command(binary, args...).Output()
	var steps []pythonStep
	for _, l := range strings.Split(string(out), "\n") {
		var s pythonStep
		if json.Unmarshal([]byte(l), &s) == nil && s.Line > 0 {
			steps = append(steps, s)
		}
	}
	return steps
}

// diffPython runs script as pasted on the simulated H200 (--strict) and
// lists the statements whose allocated or reserved bytes differ from
// PyTorch's.
func diffPython(t *testing.T, script, recording string) ([]string, error) {
	want, _ := readRecording(t, recording)
	diffs, _ := diffSteps(want, runScript(script, true))
	return diffs, nil
}

// diffSteps lists the statements of the tool's run (steps) whose error,
// allocated, reserved or peak bytes differ from PyTorch's (want), and
// the largest relative difference of allocated, reserved and peak
// allocated bytes among the statements without an error (1 where a
// statement is missing or raised where PyTorch did not).
func diffSteps(want []recordedStep, steps []pythonStep) ([]string, float64) {
	got := map[int]pythonStep{}
	for _, s := range steps {
		got[s.Line] = s
	}
	var diffs []string
	worst := 0.0
	off := func(g, w int64) {
		if g != w {
			worst = max(worst, float64(max(g-w, w-g))/float64(max(w, 1)))
		}
	}
	for _, w := range want {
		var wa, wr, wma, wmr int64
		if len(w.Devices) > 0 {
			d := w.Devices[0]
			wa, wr, wma, wmr = d.Allocated, d.Reserved, d.MaxAllocated, d.MaxReserved
		}
		g, ok := got[w.Line]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("line %d: no step", w.Line))
			worst = max(worst, 1)
			continue
		case (g.Error != nil) != (w.Error != nil) || w.Error != nil && !sameErrorType(*g.Error, *w.Error):
			diffs = append(diffs, fmt.Sprintf("line %d: error %v, PyTorch's %v", w.Line, deref(g.Error), deref(w.Error)))
			worst = max(worst, 1)
			continue
		case g.Allocated != wa || g.Reserved != wr:
			diffs = append(diffs, fmt.Sprintf("line %d: allocated %d reserved %d, PyTorch %d and %d", w.Line, g.Allocated, g.Reserved, wa, wr))
		case g.MaxAlloc != wma || g.MaxReserv != wmr:
			diffs = append(diffs, fmt.Sprintf("line %d: peaks allocated %d reserved %d, PyTorch %d and %d", w.Line, g.MaxAlloc, g.MaxReserv, wma, wmr))
		}
		off(g.Allocated, wa)
		off(g.Reserved, wr)
		off(g.MaxAlloc, wma)
	}
	return diffs, worst
}

// TestPythonAsPasted runs every recorded Python program through the
// binary and compares each top-level statement's allocated and reserved
// bytes with PyTorch's. The programs of testdata/python_passing.txt
// must match at every statement; every other one must still differ
// somewhere (so the list is kept true as the tool grows: a program that
// starts to match goes on the list).
func TestPythonAsPasted(t *testing.T) {
	listed, err := os.ReadFile("../../testdata/python_passing.txt")
	if err != nil {
		t.Fatal(err)
	}
	var passing []string
	for _, l := range strings.Split(string(listed), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			passing = append(passing, l)
		}
	}
	progs := pythonRecordings(t)
	for _, p := range passing {
		if _, ok := progs[p]; !ok {
			t.Errorf("python_passing.txt names %s, which is not a recorded program", p)
		}
	}
	for name, script := range progs {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			diffs, err := diffPython(t, script, recordingOf(name, script))
			if err != nil {
				t.Fatal(err)
			}
			want := slices.Contains(passing, name)
			switch {
			case want && len(diffs) > 0:
				t.Errorf("%s differs from PyTorch:\n%s", script, strings.Join(diffs, "\n"))
			case !want && len(diffs) == 0:
				t.Errorf("%s now matches PyTorch at every statement: add %s to testdata/python_passing.txt", script, name)
			}
		})
	}
}

// TestPythonCallArguments runs pyrules/call_args through the binary and
// compares what each statement printed with CPython 3.12.3's recording:
// the memory a callee sees after rebinding or deleting its parameter
// (freed where the callee's frame alone owns a temporary argument, kept
// where the call went through C), and sys.getrefcount inside a callee.
func TestPythonCallArguments(t *testing.T) {
	script := "../../testdata/pyrules/call_args.py"
	out, _, _ := run(t, "run", "--json", "--fake-host", "--device", "sim", "--keep-going", script)
	got := map[int]string{}
	for _, l := range strings.Split(out, "\n") {
		var s struct {
			Line   int    `json:"line"`
			Output string `json:"output"`
		}
		if json.Unmarshal([]byte(l), &s) == nil && s.Line > 0 {
			got[s.Line] = s.Output
		}
	}
	f, err := os.Open(recordingOf("pyrules/call_args", script))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		var w struct {
			Line   int    `json:"line"`
			Stdout string `json:"stdout"`
		}
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			t.Fatal(err)
		}
		if w.Stdout != "" {
			n++
		}
		if got[w.Line] != w.Stdout {
			t.Errorf("line %d printed %q, CPython and PyTorch %q", w.Line, got[w.Line], w.Stdout)
		}
	}
	if n != 39 {
		t.Errorf("the recording printed at %d statements, not its 39", n)
	}
}

// sameErrorType reports whether the tool's error (FILE:LINE:COL: Type:
// message) is of the exception type of PyTorch's (Type: message, or
// the type alone).
func sameErrorType(tool, pytorch string) bool {
	typ, _, _ := strings.Cut(pytorch, ":")
	for _, before := range []string{" ", "."} {
		if strings.Contains(tool, before+typ+":") || strings.HasSuffix(tool, before+typ) {
			return true
		}
	}
	return false
}

// TestSameErrorType: the comparison of a statement's error with
// PyTorch's tells exception types apart.
func TestSameErrorType(t *testing.T) {
	for _, c := range []struct {
		tool, pytorch string
		same          bool
	}{
		{"a.py:3:1: FileNotFoundError: [Errno 2] No such file", "FileNotFoundError: [Errno 2] No such file", true},
		{"a.py:3:1: RuntimeError: no such file", "FileNotFoundError: [Errno 2] No such file", false},
		{"a.py:3:1: torch.OutOfMemoryError: CUDA out of memory", "OutOfMemoryError: CUDA out of memory", true},
		{"a.py:3:1: StopIteration", "StopIteration", true},
		{"a.py:3:1: NotImplementedError: x is not modelled", "Error: x", false},
	} {
		if got := sameErrorType(c.tool, c.pytorch); got != c.same {
			t.Errorf("sameErrorType(%q, %q) = %v", c.tool, c.pytorch, got)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}

// TestPythonScriptArguments: a .py script's arguments after -- are its
// sys.argv, which argparse reads; a bad one is argparse's usage error,
// exit 2.
func TestPythonScriptArguments(t *testing.T) {
	p := filepath.Join(t.TempDir(), "train.py")
	src := "import argparse, sys, torch\np = argparse.ArgumentParser()\np.add_argument('--mib', type=int, default=1)\np.add_argument('--fp16', action='store_true')\nargs = p.parse_args()\nprint(sys.argv[1:], args)\nx = torch.empty(args.mib << 18, device='cuda')\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "--device", "sim", "--json", p, "--", "--mib", "8", "--fp16")
	if code != 0 || !strings.Contains(out, `['--mib', '8', '--fp16'] Namespace(mib=8, fp16=True)`) || !strings.Contains(out, `"allocated_bytes":8388608`) {
		t.Errorf("train.py -- --mib 8 --fp16: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	_, errOut, code = run(t, "--device", "sim", p, "--", "--mib", "x")
	if code != 2 || !strings.Contains(errOut, "usage: train.py [-h] [--mib MIB] [--fp16]\ntrain.py: error: argument --mib: invalid int value: 'x'\n") {
		t.Errorf("a bad argument: exit %d\nstderr:\n%s", code, errOut)
	}
}

// TestPythonErrors: a Python script's error is one line naming the file,
// line and column, with the traceback when it was raised in a function;
// a syntax error runs nothing; sys.exit sets the status; --keep-going
// goes on after an exception.
func TestPythonErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	inFunc := write("infunc.py", "import torch\ndef f(n):\n    return n / 0\nx = torch.zeros(4, device='cuda')\nf(1)\nprint('after')\n")
	out, errOut, code := run(t, "run", "--device", "sim", inFunc)
	if code != 1 || !strings.Contains(errOut, inFunc+":3:12: ZeroDivisionError: division by zero\n") ||
		!strings.Contains(errOut, "Traceback (most recent call last):\n  File \""+inFunc+"\", line 5, in <module>") ||
		strings.Contains(out, "after") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	out, errOut, code = run(t, "run", "--device", "sim", "--keep-going", inFunc)
	if code != 1 || !strings.Contains(out, "after") {
		t.Errorf("--keep-going: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	syn := write("syntax.py", "import torch\nx = torch.zeros(4, device='cuda')\ny = (1,\n")
	out, errOut, code = run(t, "run", "--device", "sim", syn)
	if code != 1 || out != "" || !strings.Contains(errOut, syn+":3:5: SyntaxError: '(' was never closed") {
		t.Errorf("syntax error: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	exit := write("exit.py", "import sys\nprint('bye')\nsys.exit(3)\nprint('not here')\n")
	out, _, code = run(t, "run", "--device", "sim", exit)
	if code != 3 || !strings.Contains(out, "bye") || strings.Contains(out, "not here") {
		t.Errorf("sys.exit(3): exit %d\n%s", code, out)
	}
	msg := write("msg.py", "import sys\ntry:\n    sys.exit(4)\nexcept SystemExit as e:\n    print('caught', e.code)\nsys.exit('stopped: bad config')\n")
	out, errOut, code = run(t, "run", "--device", "sim", msg)
	if code != 1 || !strings.Contains(out, "caught 4") || !strings.Contains(errOut, "stopped: bad config\n") {
		t.Errorf("sys.exit caught, then with a message: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	inner := write("inner_exit.py", "def f():\n    print('a')\n    raise SystemExit('msg')\nf()\n")
	out, errOut, code = run(t, "run", "--device", "sim", "--json", inner)
	if code != 1 || !strings.Contains(out, `"source":"f()"`) || !strings.Contains(out, `"output":"a\n"`) || strings.Contains(out, "\na\n") || errOut != "msg\n" {
		t.Errorf("SystemExit in a function under --json: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	list := write("tolist.py", "import torch\nx = torch.zeros(1 << 27)\nx.tolist()\n")
	_, errOut, code = run(t, "run", "--device", "sim", "--fake-host", list)
	if code != 1 || !strings.Contains(errOut, list+":3:1: MemoryError: this tool builds containers of at most 67108864 items") {
		t.Errorf("tolist of 2^27 elements: exit %d\n%s", code, errOut)
	}
	huge := write("huge.py", "import torch\nx = torch.zeros(4294967296, 4294967296, device='cuda')\n")
	_, errOut, code = run(t, "run", "--device", "sim", huge)
	if code != 1 || !strings.Contains(errOut, huge+":2:5: RuntimeError: Storage size calculation overflowed with sizes=[4294967296, 4294967296]") {
		t.Errorf("a size past int64: exit %d\n%s", code, errOut)
	}
	neg := write("neg.py", "import torch\nx = torch.zeros(-1, device='cuda')\n")
	_, errOut, code = run(t, "run", "--device", "sim", neg)
	if code != 1 || !strings.Contains(errOut, neg+":2:5: RuntimeError: zeros: Dimension size must be non-negative.") {
		t.Errorf("a negative size: exit %d\n%s", code, errOut)
	}
	nomod := write("nomod.py", "import scipy.signal\n")
	_, errOut, code = run(t, "run", "--device", "sim", nomod)
	if code != 1 || !strings.Contains(errOut, nomod+":1:1: ModuleNotFoundError: No module named 'scipy'") {
		t.Errorf("import scipy: exit %d\n%s", code, errOut)
	}
}

// TestPythonEachStatement: --each-statement reports inside a function
// called from a loop, each time it runs, with the figures of that
// moment (the function's local still alive after its return statement,
// gone after the call).
func TestPythonEachStatement(t *testing.T) {
	p := filepath.Join(t.TempDir(), "loop.py")
	src := "import torch\nx = torch.zeros(128, device='cuda')\ndef f(t):\n    y = t * 2\n    return y\nfor i in range(2):\n    x = f(x)\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--device", "sim", "--json", "--each-statement", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var s pythonStep
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		lines = append(lines, fmt.Sprintf("%d-%d:%d", s.Line, s.EndLine, s.Allocated))
	}
	want := "1-1:0 2-2:512 3-5:512 4-4:1024 5-5:1024 7-7:512 4-4:1024 5-5:1024 7-7:512 6-7:512"
	if got := strings.Join(lines, " "); got != want {
		t.Errorf("rows (line-end_line:allocated)\n got %s\nwant %s", got, want)
	}
}

// TestPythonMixedForms: a .py script may mix the command form with
// Python over the same names, inside blocks too.
func TestPythonMixedForms(t *testing.T) {
	p := filepath.Join(t.TempDir(), "mix.py")
	src := "import torch\na = zeros 256x1024 cuda\nprint(a.shape)\nfor i in range(2):\n    b = a.to cpu\ndel a b\nempty_cache\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--device", "sim", "--fake-host", "--no-color", p)
	for _, want := range []string{"torch.Size([256, 1024])", "b: 1024.00 KiB float32 [256, 1024] on cpu ×2; freed old b (1024.00 KiB on cpu)",
		"freed a (1024.00 KiB on cuda:0); freed b (1024.00 KiB on cpu)", "reserved 0 bytes -2.00 MiB"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("exit %d: %s", code, errOut)
	}
}

// TestPythonSnapshotFrames: torch.cuda.memory._dump_snapshot from a
// Python script writes each allocation with the script's stack (file,
// line, function, innermost first), as PyTorch's Python stacks are.
func TestPythonSnapshotFrames(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "frames.py")
	snap := filepath.Join(dir, "s.pickle")
	src := "import torch\ndef make():\n    return torch.zeros(1024, device='cuda')\n\nx = make()\ntorch.cuda.memory._dump_snapshot(" + strconv.Quote(snap) + ")\n"
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := run(t, "run", "--device", "sim", p); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	s, err := snapshot.Load(snap)
	if err != nil {
		t.Fatal(err)
	}
	var got []snapshot.Frame
	for _, e := range s.Events {
		if e.Action == "alloc" {
			got = e.Frames.Frames()
			if e.Time < 1_000_000_000_000_000 {
				t.Errorf("time_us %d is not microseconds since the epoch", e.Time)
			}
		}
	}
	want := []snapshot.Frame{{Filename: p, Line: 3, Name: "make"}, {Filename: p, Line: 5, Name: "<module>"}}
	if !slices.Equal(got, want) {
		t.Errorf("the allocation's frames are %v, want %v", got, want)
	}
}

// TestAssignUnknownNumber: a number the tool did not compute (an
// .item()) written into a tensor by basic indexing is written as any
// number is, in place (nanoGPT's estimate_loss: losses[k] =
// loss.item()), on the host and on the GPU (no allocation:
// setitem_compare.py), and the values become unknown; through an index
// tensor or a mask it is refused, naming what.
func TestAssignUnknownNumber(t *testing.T) {
	steps, _, errOut := runPython(t, "import torch\nx = torch.randn(1024, device='cuda')\nlosses = torch.zeros(3)\ngpu = torch.zeros(3, device='cuda')\nfor k in range(3):\n    losses[k] = x.sum().item()\n    gpu[k] = x.mean().item()\nprint(losses.mean())\ngpu[torch.tensor([0, 1])] = x.sum().item()\n")
	_, printed, _ := runPython(t, "import torch\nlosses = torch.zeros(3)\nlosses[0] = torch.ones(2, device='cuda').sum().item()\nprint(losses.mean())\n")
	if len(steps) != 7 {
		t.Fatalf("%d rows\n%s", len(steps), errOut)
	}
	if steps[5].Error != nil || steps[5].Allocated != steps[4].Allocated {
		t.Errorf("the loop: %v, allocated %d (before %d)", deref(steps[5].Error), steps[5].Allocated, steps[4].Allocated)
	}
	if !strings.Contains(printed[4], "values not computed") {
		t.Errorf("print(losses.mean()) printed %q, want its values not computed", printed[4])
	}
	if e := deref(steps[9].Error); !strings.Contains(e, "NotImplementedError") || !strings.Contains(e, "tensor.item()") {
		t.Errorf("through an index tensor: %s", e)
	}
}
