package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// TestFitMatchesRecordedPeaks: on the simulated card its recording was
// made on (recordedOn), fit's peaks of every passing recorded program
// that resets its peaks only at top level and never fails are PyTorch's:
// the highest max_memory_allocated and max_memory_reserved the recording
// shows.
func TestFitMatchesRecordedPeaks(t *testing.T) {
	listed, err := os.ReadFile("../../testdata/python_passing.txt")
	if err != nil {
		t.Fatal(err)
	}
	progs := pythonRecordings(t)
	checked := 0
	for _, name := range strings.Fields(string(listed)) {
		script, ok := progs[name]
		if !ok {
			continue
		}
		src, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		if resetsInside(string(src)) {
			continue
		}
		steps, failed := readRecording(t, recordingOf(name, script))
		if failed || len(steps) == 0 || len(steps[0].Devices) == 0 {
			continue
		}
		devices := len(steps[0].Devices)
		var wantAlloc, wantReserved int64
		for _, s := range steps {
			wantAlloc = max(wantAlloc, s.Devices[0].MaxAllocated)
			wantReserved = max(wantReserved, s.Devices[0].MaxReserved)
		}
		out, errOut, code := run(t, "fit", "--gpus", recordedOn(script), "--devices", strconv.Itoa(devices), "--json", "--strict", script)
		var got fitJSON
		if code != 0 || json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &got) != nil {
			t.Errorf("fit %s: exit %d\n%s%s", name, code, out, errOut)
			continue
		}
		if int64(got.PeakAllocated) != wantAlloc || int64(got.PeakReserved) != wantReserved || !got.Fits || !got.Exact {
			t.Errorf("fit %s: peaks %d and %d (fits %v, exact %v), PyTorch's %d and %d", name, got.PeakAllocated, got.PeakReserved, got.Fits, got.Exact, wantAlloc, wantReserved)
		}
		checked++
	}
	if checked < 10 {
		t.Errorf("only %d recorded programs checked", checked)
	}
	t.Logf("%d recorded programs: fit's peaks are PyTorch's", checked)
}

// readRecording reads a record_script.py recording and says whether a
// statement of it raised.
func readRecording(t testing.TB, path string) (steps []recordedStep, failed bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s recordedStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		failed = failed || s.Error != nil
		steps = append(steps, s)
	}
	return steps, failed
}

// TestFitOOMAndErrors: each GPU's first out-of-memory error is named
// with its line (a caught one too), an estimate where it rests on a
// preset's unmeasured capacity; a reset does not hide a peak; an error
// other than out-of-memory stops fit (exit 1); an unknown preset is bad
// usage.
func TestFitOOMAndErrors(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "grow.py")
	src := "import torch\n" +
		"x = torch.zeros(4 << 30, device='cuda')\n" + // 16 GiB: too much for a T4
		"torch.cuda.reset_peak_memory_stats()\n" +
		"del x\n" +
		"y = torch.zeros(1 << 28, device='cuda')\n" + // 1 GiB, split from x's cached 16 GiB segment
		"try:\n" +
		"    z = torch.empty(6 << 30, device='cuda')\n" + // 24 GiB more
		"except torch.OutOfMemoryError:\n" +
		"    pass\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "fit", "--gpus", "h200,a100-40gb,t4", script)
	for _, want := range []string{
		"GPU        memory      allocated  reserved   + context     exact  fits\n",
		"h200       139.80 GiB  25.00 GiB  40.00 GiB  40.60 GiB     yes    yes\n",
		// the A100's and T4's contexts are the H200's, not measured there
		"a100-40gb  39.39 GiB   16.00 GiB  16.00 GiB  16.60 GiB ≈   no ≈   no, line 7\n",
		"t4         14.57 GiB   0 bytes    0 bytes    610.00 MiB ≈  yes    no, line 2\n",
		// where the A100 runs out rests on its unmeasured capacity; 16 GiB
		// at once is more than the T4 has, whatever its context
		"≈ a100-40gb: 1 statement estimated, an op following a general rule where none is recorded on the GPU; every figure from the first estimate on rests on it: " + script + ":7: cudaMalloc 24.00 GiB on cuda:0, a simulated a100-40gb: its memory ran out here by a total of 39.39 GiB (a published deviceQuery figure) less the H200's CUDA context (610.00 MiB), neither measured on it\n",
		"a100-40gb, first out of memory at " + script + ":7: z = torch.empty(6 << 30, device='cuda')\n  torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.00 GiB.",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 80 && !strings.HasPrefix(l, "  torch.OutOfMemoryError: ") && !strings.Contains(l, script) {
			t.Errorf("fit's output has a line of %d columns: %q", len(l), l)
		}
	}
	bad := filepath.Join(dir, "bad.py")
	if err := os.WriteFile(bad, []byte("import torch\nx = torch.zeros(4, device='cuda')\n1 / 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run(t, "fit", "--gpus", "t4", bad)
	if code != 1 || out != "" || errOut != bad+":3:1: ZeroDivisionError: division by zero\n(gpumemrepl fit: the script failed on t4)\n" {
		t.Errorf("a script's own error: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// an error after a caught OOM is the script's error, whatever its text says
	fake := filepath.Join(dir, "fake.py")
	if err := os.WriteFile(fake, []byte(src+"raise ValueError('OutOfMemoryError fake')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run(t, "fit", "--gpus", "a100-40gb", fake)
	if code != 1 || out != "" || !strings.Contains(errOut, "ValueError: OutOfMemoryError fake") {
		t.Errorf("a ValueError after a caught OOM: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// with two devices, only the one that ran out is marked
	two := filepath.Join(dir, "two.py")
	if err := os.WriteFile(two, []byte("import torch\na = torch.zeros(1, device='cuda:0')\nb = torch.empty(1 << 40, device='cuda:1')\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run(t, "fit", "--gpus", "t4", "--devices", "2", two)
	if code != 0 || !strings.Contains(out, "t4 cuda:0  14.57 GiB  512 bytes  2.00 MiB  612.00 MiB ≈  yes    yes\n") || !strings.Contains(out, "t4 cuda:1  14.57 GiB  0 bytes    0 bytes   610.00 MiB ≈  yes    no, line 3\n") {
		t.Errorf("two devices: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code = run(t, "fit", "--gpus", "k80", script); code != 2 || !strings.Contains(errOut, `unknown preset "k80"`) {
		t.Errorf("unknown preset: exit %d, %s", code, errOut)
	}
}

// resetsInside reports whether a program resets its peaks inside a
// block (a function, a loop): the recording's rows, one per top-level
// statement, then need not hold its whole-run peak. A reset as a
// top-level statement leaves the peak before it in the row before it.
func resetsInside(src string) bool {
	for _, line := range strings.Split(src, "\n") {
		if (strings.Contains(line, "reset_peak") || strings.Contains(line, "reset_max")) && strings.TrimLeft(line, " \t") != line {
			return true
		}
	}
	return false
}

// TestFitSmallGPTInREADME: the README's fit table for issue 15's small
// GPT is what the binary prints, and its H200 row is PyTorch's whole-run
// peaks, allocated and reserved, from the recording on the H200.
func TestFitSmallGPTInREADME(t *testing.T) {
	const script = "../../testdata/models/train_gpt.py"
	out, errOut, code := run(t, "fit", script)
	if code != 0 {
		t.Fatalf("fit: exit %d\n%s%s", code, out, errOut)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if _, preset := engine.Presets[f[0]]; preset || f[0] == "GPU" {
			rows++
			if !strings.Contains(string(readme), "    "+line+"\n") {
				t.Errorf("README's fit table lacks the line\n%s", line)
			}
		}
	}
	if rows < 2 {
		t.Fatalf("fit printed no table:\n%s", out)
	}
	out, _, _ = run(t, "fit", "--gpus", "h200", "--json", script)
	var got fitJSON
	if err := json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &got); err != nil {
		t.Fatalf("fit --json: %v\n%s", err, out)
	}
	steps, _ := readRecording(t, "../../testdata/models/train_gpt.jsonl")
	var wantAlloc, wantReserved int64
	for _, s := range steps {
		for _, d := range s.Devices[:min(1, len(s.Devices))] {
			wantAlloc, wantReserved = max(wantAlloc, d.MaxAllocated), max(wantReserved, d.MaxReserved)
		}
	}
	if int64(got.PeakAllocated) != wantAlloc || int64(got.PeakReserved) != wantReserved {
		t.Errorf("fit's H200 peaks %d and %d, PyTorch's %d and %d", got.PeakAllocated, got.PeakReserved, wantAlloc, wantReserved)
	}
}

// fit --peak explains each GPU's whole-run peak as run --peak does:
// under the table, and in --json on the GPU's row, its categories
// adding up to the peak allocated bytes; not with --sweep.
func TestFitPeak(t *testing.T) {
	t.Parallel()
	path := writeProgram(t, "grow.py", "import torch\nx = torch.zeros(4 << 30, device='cuda')\ndel x\ny = torch.zeros(1 << 28, device='cuda')\nz = torch.empty(6 << 30, device='cuda')\n")
	out, errOut, code := run(t, "fit", "--gpus", "h200", "--peak", path)
	for _, want := range []string{"\nh200: cuda:0 at its peak: 25.00 GiB allocated (26843545600 bytes), 40.00 GiB reserved, at grow.py:5, during line 5: z = torch.empty(6 << 30, device='cuda')\n",
		"\n    1. z (grow.py:5)"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	out, _, _ = run(t, "fit", "--gpus", "h200", "--peak", "--json", path)
	var row fitJSON
	if err := json.Unmarshal([]byte(out), &row); err != nil || row.Peak == nil {
		t.Fatalf("%v: %s", err, out)
	}
	var sum uint64
	for _, c := range row.Peak.Categories {
		sum += c.Bytes
	}
	if sum != row.PeakAllocated || row.Peak.Allocated != row.PeakAllocated {
		t.Errorf("the breakdown's categories hold %d bytes of %d; fit's peak %d", sum, row.Peak.Allocated, row.PeakAllocated)
	}
	if _, errOut, code := run(t, "fit", "--peak", "--sweep", "n=1..2", path); code != 2 || !strings.Contains(errOut, "--peak and --sweep do not go together") {
		t.Errorf("--peak with --sweep: exit %d, %s", code, errOut)
	}
}
