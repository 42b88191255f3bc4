package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gpumemrepl/gpumemrepl/allocator/diff"
)

const gptTrain = "../../testdata/truth/workloads/gpt_train.pickle"

// endStats are the figures of a side that memory_stats() reports.
type endStats struct {
	PeakAllocated, FinalAllocated, PeakReserved, FinalReserved, PeakSegments, FinalSegments, DeviceAllocs int64
}

// recordedStats reads what PyTorch reported for a recording: the
// ground truth's gpt_train.json, or one of scripts/record_diff.py's.
// The final figures are the last step's (the replay of a history frees
// what it still holds after that step), the rest memory_stats()' at
// the end.
func recordedStats(t *testing.T, path string) endStats {
	t.Helper()
	b, err := os.ReadFile(path)
	var rec struct {
		Steps []struct{ Allocated, Reserved int64 } `json:"steps"`
		Stats map[string]int64                      `json:"final_stats"`
	}
	if err == nil {
		err = json.Unmarshal(b, &rec)
	}
	if err != nil || len(rec.Stats) == 0 || len(rec.Steps) == 0 {
		t.Fatalf("%s: %v, %d steps and %d stats", path, err, len(rec.Steps), len(rec.Stats))
	}
	s, end := rec.Stats, rec.Steps[len(rec.Steps)-1]
	return endStats{s["allocated_bytes.all.peak"], end.Allocated, s["reserved_bytes.all.peak"], end.Reserved,
		s["segment.all.peak"], s["segment.all.current"], s["num_device_alloc"]}
}

// figures is the part of a side that memory_stats() reports.
func figures(r diff.Run) endStats {
	return endStats{r.PeakAllocated, r.FinalAllocated, r.PeakReserved, r.FinalReserved, r.PeakSegments, r.FinalSegments, r.DeviceAllocs}
}

func diffJSON(t *testing.T, args ...string) diff.Report {
	t.Helper()
	out, errOut, code := run(t, append([]string{"diff", "--json"}, args...)...)
	var rep diff.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("diff %v: exit %d\nstdout %s\nstderr %s", args, code, out, errOut)
	}
	return rep
}

// The ground truth's gpt_train snapshot against its replay under
// expandable_segments:True: A is what PyTorch reported for the run, and
// B what PyTorch's allocator did with the same allocations and frees
// under expandable_segments:True (gpt_train_replayed_expandable) and
// what the rebuilt workload really reserved under it
// (gpt_train_expandable): peak and final reserved exactly, 4 MiB less.
func TestDiffGPTTrainUnderExpandableIsPyTorchs(t *testing.T) {
	t.Parallel()
	rep := diffJSON(t, gptTrain, gptTrain, "--config-b", "expandable_segments:True")
	if got, want := figures(rep.A), recordedStats(t, "../../testdata/truth/workloads/gpt_train.json"); got != want {
		t.Errorf("A: %+v\nwant PyTorch's %+v", got, want)
	}
	if got, want := figures(rep.B), recordedStats(t, "../../testdata/diff/gpt_train_replayed_expandable.json"); got != want {
		t.Errorf("B: %+v\nwant PyTorch's %+v", got, want)
	}
	real := recordedStats(t, "../../testdata/diff/gpt_train_expandable.json")
	if rep.B.PeakReserved != real.PeakReserved || rep.B.FinalReserved != real.FinalReserved {
		t.Errorf("B reserves %d at peak and %d at the end; the workload run under expandable_segments:True reserved %d and %d",
			rep.B.PeakReserved, rep.B.FinalReserved, real.PeakReserved, real.FinalReserved)
	}
	if rep.A.Config != "default" || rep.B.Config != "expandable_segments:True" || rep.A.Categories != nil {
		t.Errorf("configs %q, %q, categories %v; want default, expandable_segments:True, none (recorded without stacks)", rep.A.Config, rep.B.Config, rep.A.Categories)
	}
}

// Two real recordings, each replayed under its own config, give what
// PyTorch reported for each; their stacks give categories and frames.
func TestDiffTwoRecordings(t *testing.T) {
	t.Parallel()
	const dir = "../../testdata/diff/"
	rep := diffJSON(t, dir+"gpt_train_default.pickle.gz", dir+"gpt_train_expandable.pickle.gz", "--top", "3")
	for _, side := range []struct {
		run  diff.Run
		json string
	}{{rep.A, "gpt_train_default.json"}, {rep.B, "gpt_train_expandable.json"}} {
		if got, want := figures(side.run), recordedStats(t, dir+side.json); got != want {
			t.Errorf("%s: %+v\nwant PyTorch's %+v", side.run.Name, got, want)
		}
		if len(side.run.Frames) != 3 || len(side.run.Categories) == 0 || side.run.Categories[0].AtPeak == 0 {
			t.Errorf("%s: frames %v, categories %v; want the top 3 and the categories at the peak", side.run.Name, side.run.Frames, side.run.Categories)
		}
	}
	var params uint64
	for _, c := range rep.A.Categories {
		if c.Name == diff.Parameters {
			params = c.AtPeak
		}
	}
	// the model's parameters, as the recording's first step reports them
	if params != 84553728 {
		t.Errorf("parameters at the peak: %d bytes, want the model's 84553728", params)
	}
}

func TestDiffText(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, "diff", gptTrain, gptTrain, "--config-b=expandable_segments:True")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"A  " + gptTrain + " (default): 2204 ops\n",
		"B  " + gptTrain + " (expandable_segments:True): 2204 ops\n",
		"\nallocations by size class (bytes live at the peak of requested memory)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the text lacks %q:\n%s", want, out)
		}
	}
	var peak string
	for _, line := range strings.Split(out, "\n") {
		if rest, ok := strings.CutPrefix(line, "peak reserved "); ok {
			peak = strings.Join(strings.Fields(rest), " ")
		}
	}
	if peak != "1010.00 MiB 1006.00 MiB -4.00 MiB" {
		t.Errorf("peak reserved row %q, want 1010.00 MiB 1006.00 MiB -4.00 MiB:\n%s", peak, out)
	}
}

func TestDiffUsageErrors(t *testing.T) {
	t.Parallel()
	wantUsageError(t, []string{"diff", gptTrain}, "gpumemrepl diff: want two files, A and B; got 1")
	wantUsageError(t, []string{"diff", gptTrain, gptTrain, "--top", "-1"}, "--top -1: want 0 (all) or more")
	wantUsageError(t, []string{"diff", gptTrain, gptTrain, "--config-c", "x"}, "unknown flag --config-c")
	_, errOut, code := runHere("diff", gptTrain, "nothere.pickle")
	if code != 1 || !strings.HasPrefix(errOut, "nothere.pickle: ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("a missing B: exit %d, stderr %q; want exit 1 and one line naming it", code, errOut)
	}
	_, errOut, code = runHere("diff", "../../testdata/models/two_devices.pickle", gptTrain)
	if code != 1 || !strings.Contains(errOut, "holds the histories of 2 devices; diff takes one") {
		t.Errorf("a two-device snapshot: exit %d, stderr %q; want exit 1 saying diff takes one", code, errOut)
	}
	_, errOut, code = runHere("diff", gptTrain, gptTrain, "--config-b", "expandable_segments:maybe")
	if code != 1 || !strings.Contains(errOut, "expandable_segments") {
		t.Errorf("a bad config: exit %d, stderr %q; want exit 1 naming the option", code, errOut)
	}
}

// Two scripts run in the tool: each side is the session's own history,
// so its peak and final reserved are what run --json reported for the
// same script (the largest reserved_bytes, and the last), and a script's
// alloc_conf is its side's config.
func TestDiffTwoScripts(t *testing.T) {
	t.Parallel()
	a, b := "../../scripts/fragment_normal.gpumem", "../../scripts/fragment_expandable.gpumem"
	rep := diffJSON(t, a, b)
	for _, side := range []struct {
		run    diff.Run
		script string
		config string
	}{{rep.A, a, "default"}, {rep.B, b, "expandable_segments:True"}} {
		out, errOut, code := run(t, "run", "--json", "--device", "sim", "--fake-host", side.script)
		if code != 0 {
			t.Fatalf("run %s: exit %d: %s", side.script, code, errOut)
		}
		var peak, last, lastAlloc int64
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var row struct {
				Allocated int64 `json:"allocated_bytes"`
				Reserved  int64 `json:"reserved_bytes"`
			}
			if err := json.Unmarshal([]byte(line), &row); err != nil {
				t.Fatalf("run %s: %v in %q", side.script, err, line)
			}
			peak, last, lastAlloc = max(peak, row.Reserved), row.Reserved, row.Allocated
		}
		// final: as the program left it, not its module's teardown
		if side.run.FinalAllocated != lastAlloc {
			t.Errorf("%s: final allocated %d, the run's last statement left %d", side.script, side.run.FinalAllocated, lastAlloc)
		}
		if side.run.PeakReserved != peak || side.run.FinalReserved != last || side.run.Config != side.config {
			t.Errorf("%s: peak reserved %d, final %d, config %q; run reported %d and %d, want config %q",
				side.script, side.run.PeakReserved, side.run.FinalReserved, side.run.Config, peak, last, side.config)
		}
		if len(side.run.Frames) == 0 || side.run.Frames[0].Name != "<module>: a0 = zeros 4x1024x1024 cuda" {
			t.Errorf("%s: frames %v; want the script's lines", side.script, side.run.Frames)
		}
	}
	if rep.B.PeakReserved >= rep.A.PeakReserved {
		t.Errorf("expandable segments reserve %d at the peak, the default %d: want less (the scripts' point)", rep.B.PeakReserved, rep.A.PeakReserved)
	}
}

// A side whose recording began late says so, as replay does.
func TestDiffNotesALateHistory(t *testing.T) {
	t.Parallel()
	rep := diffJSON(t, "../../testdata/models/wrapped_streams.pickle", "../../testdata/models/two_streams.pickle")
	if !strings.HasPrefix(rep.A.Notes, "the recording began late") || strings.Contains(rep.B.Notes, "began late") {
		t.Errorf("notes %q and %q; want A's to say it began late, B's not", rep.A.Notes, rep.B.Notes)
	}
}

// diffVersionA is a small training program; diffVersionB is the same
// with a comment line more at the top (every line moves down by one)
// and its hidden layer twice as wide.
const diffVersionA = `import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(1024, 4096), nn.GELU(), nn.Linear(4096, 1024)).cuda()
opt = torch.optim.AdamW(model.parameters())
x = torch.randn(512, 1024, device='cuda')

def step():
    opt.zero_grad(set_to_none=True)
    model(x).square().mean().backward()
    opt.step()

step()
step()
`

// TestDiffTwoVersionsOfAScript: diff of two versions of a script matches
// their frames by function and the line's text, so that lines that
// moved are not removed and added again, and splits their allocations
// by the tool's own categories (parameters, gradients, optimizer state,
// ...), which add up to the bytes at the peak; the tables fit 80 columns.
func TestDiffTwoVersionsOfAScript(t *testing.T) {
	t.Parallel()
	a := writeProgram(t, "a.py", diffVersionA)
	b := writeProgram(t, "b.py", "# the hidden layer twice as wide\n"+strings.ReplaceAll(diffVersionA, "4096", "8192"))
	rep := diffJSON(t, a, b)
	frames := map[string][2]uint64{}
	for _, f := range rep.A.Frames {
		frames[f.Name] = [2]uint64{f.AtPeak, 0}
	}
	for _, f := range rep.B.Frames {
		frames[f.Name] = [2]uint64{frames[f.Name][0], f.AtPeak}
	}
	if got := frames["step: opt.step()"]; got[0] == 0 || got[1] <= got[0] {
		t.Errorf("step: opt.step() holds %v at the peaks; want it in both, more in B", got)
	}
	for _, name := range []string{"step: opt.step()", "step: model(x).square().mean().backward()", "<module>: x = torch.randn(512, 1024, device='cuda')"} {
		if _, ok := frames[name]; !ok {
			t.Errorf("no frame %q in %v", name, frames)
		}
	}
	if len(frames) != 5 {
		t.Errorf("frames %v: want the three lines of both and each version's model line", frames)
	}
	for _, side := range []diff.Run{rep.A, rep.B} {
		var sum uint64
		names := map[string]bool{}
		for _, c := range side.Categories {
			sum += c.AtPeak
			names[c.Name] = true
		}
		for _, want := range []string{"parameters", "gradients", "optimizer state", "inputs"} {
			if !names[want] {
				t.Errorf("%s: categories %v lack %q", side.Name, side.Categories, want)
			}
		}
		var classes uint64
		for _, c := range side.SizeClasses {
			classes += c.AtPeak
		}
		if sum != classes || sum == 0 {
			t.Errorf("%s: the categories hold %d bytes at the peak, the size classes %d", side.Name, sum, classes)
		}
	}
	out, errOut, code := run(t, "diff", a, b)
	if code != 0 || !strings.Contains(out, "\nparameters  ") || !strings.Contains(out, "\nstep: opt.step()  ") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > 80 && !strings.Contains(l, a) && !strings.Contains(l, b) {
			t.Errorf("a line of %d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
}
