// Tests of two runs compared. The oracle is scripts/record_diff.py's
// recordings on the H200 (testdata/diff: gpt_train under two configs, and
// pytorch#123548's loop with PyTorch's figures after every cycle).
package diff

import (
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

const mib = 1 << 20

func fr(file string, line int, name string) snapshot.Frame {
	return snapshot.Frame{Filename: file, Line: line, Name: name}
}

func TestSizeClassBoundaries(t *testing.T) {
	for _, tc := range []struct {
		size uint64
		want string
	}{
		{1, SizeClasses[0]},
		{mib, SizeClasses[0]}, // kSmallSize itself is small
		{mib + 1, SizeClasses[1]},
		{10*mib - 1, SizeClasses[1]},
		{10 * mib, SizeClasses[2]}, // kMinLargeAlloc gets a segment of its own
	} {
		if got := sizeClass(tc.size); got != tc.want {
			t.Errorf("sizeClass(%d) = %q, want %q", tc.size, got, tc.want)
		}
	}
}

func TestCategoryFromFrames(t *testing.T) {
	const site = "/usr/lib/python3.12/site-packages/torch/"
	user := snapshot.Frame{Filename: "/home/me/train.py", Line: 40, Name: "main"}
	for _, tc := range []struct {
		name   string
		frames []snapshot.Frame
		want   string
	}{
		{"no stack", nil, Backward},
		{"adam state", []snapshot.Frame{fr(site+"optim/adam.py", 178, "_init_group"), fr(site+"optim/adam.py", 238, "step"), user}, OptimizerState},
		{"adam step", []snapshot.Frame{fr(site+"optim/adam.py", 791, "_multi_tensor_adam"), user}, OptimizerStep},
		{"initial gradient", []snapshot.Frame{fr(site+"autograd/__init__.py", 231, "_make_grads"), fr(site+"_tensor.py", 631, "backward"), user}, Gradients},
		{"model.cuda()", []snapshot.Frame{fr(site+"nn/modules/module.py", 1097, "<lambda>"), fr(site+"nn/modules/module.py", 965, "_apply"), user}, Parameters},
		{"a layer's forward", []snapshot.Frame{fr(site+"nn/functional.py", 2935, "layer_norm"), fr(site+"nn/modules/normalization.py", 229, "forward"), user}, Activations},
		{"the program's own", []snapshot.Frame{user}, Other},
		// a venv under a folder named torch: the innermost one is torch's
		{"venv in /opt/torch", []snapshot.Frame{fr("/opt/torch/.venv/lib/python3.12/site-packages/torch/optim/sgd.py", 1, "_init_group")}, OptimizerState},
	} {
		if got := Category(tc.frames); got != tc.want {
			t.Errorf("%s: category = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestFrameNameIsTheProgramsInnermost(t *testing.T) {
	frames := []snapshot.Frame{
		fr("/x/site-packages/torch/nn/functional.py", 2935, "layer_norm"),
		fr("/home/me/model.py", 12, "forward"),
		fr("/home/me/train.py", 40, "main"),
	}
	if got, want := frameName(frames, nil), "model.py:12 forward"; got != want {
		t.Errorf("frameName = %q, want %q", got, want)
	}
	if got, want := frameName(frames[:1], nil), "functional.py:2935 layer_norm"; got != want {
		t.Errorf("frameName of torch's frames only = %q, want %q", got, want)
	}
	// the script's own lines match across two versions of it
	a := []snapshot.Frame{frames[0], fr("/home/me/a.py", 41, "step"), fr("/home/me/a.py", 60, "<module>")}
	b := []snapshot.Frame{frames[0], fr("/tmp/b.py", 41, "step"), fr("/tmp/b.py", 62, "<module>")}
	if frameName(a, nil) != frameName(b, nil) || frameName(a, nil) != "line 41 step" {
		t.Errorf("frameName of a.py's and b.py's line 41 in step: %q and %q, want both %q", frameName(a, nil), frameName(b, nil), "line 41 step")
	}
}

// A script's own frames, with its lines known, are named by function
// and the line's text: a line that moved in the second version matches.
func TestFrameNameByTheLinesText(t *testing.T) {
	a := []snapshot.Frame{fr("/home/me/a.py", 18, "step"), fr("/home/me/a.py", 60, "<module>")}
	b := []snapshot.Frame{fr("/tmp/b.py", 19, "step"), fr("/tmp/b.py", 61, "<module>")}
	linesA := make([]string, 60)
	linesA[17] = "    opt.step()\n"
	linesB := append([]string{"# a comment\n"}, linesA...)
	if got, want := frameName(a, linesA), "step: opt.step()"; got != want || frameName(b, linesB) != got {
		t.Errorf("frameName = %q in a.py and %q in b.py, want %q in both", got, frameName(b, linesB), want)
	}
}

// A script's categories come from the tool, one an allocation in order;
// a list that does not name every allocation is not used.
func TestGroupTakesAScriptsCategories(t *testing.T) {
	line := snapshot.NewStack(fr("/home/me/run.py", 3, "<module>"))
	events := []snapshot.Event{
		{Action: "alloc", Addr: 1, Size: 4 * mib, Frames: line},
		{Action: "alloc", Addr: 2, Size: 2 * mib, Frames: line},
		{Action: "free_completed", Addr: 2},
	}
	_, cats, _ := group(events, 0, []string{"parameters", "temporaries"}, nil)
	want := []Group{{"parameters", 1, 4 * mib, 4 * mib}, {"temporaries", 1, 2 * mib, 2 * mib}}
	if len(cats) != 2 || cats[0] != want[0] || cats[1] != want[1] {
		t.Errorf("categories = %+v, want %+v", cats, want)
	}
	if _, cats, _ = group(events, 0, []string{"parameters"}, nil); cats != nil {
		t.Errorf("categories of a list short of the allocations: %+v, want none (the stacks say nothing)", cats)
	}
}

// The bytes at the peak are those live when the requested bytes first
// reach their most; a group freed before it holds none then.
func TestGroupBytesAtPeak(t *testing.T) {
	fwd := snapshot.NewStack(snapshot.Frame{Filename: "/m/model.py", Line: 3, Name: "forward"})
	opt := snapshot.NewStack(snapshot.Frame{Filename: "/t/torch/optim/adam.py", Line: 9, Name: "_init_group"})
	events := []snapshot.Event{
		{Action: "alloc", Addr: 1, Size: 2 * mib, Frames: fwd},
		{Action: "alloc", Addr: 2, Size: 512, Frames: opt},
		{Action: "free_completed", Addr: 1},
		{Action: "alloc", Addr: 3, Size: 12 * mib, Frames: fwd},
		{Action: "alloc", Addr: 4, Size: 512, Frames: opt}, // the peak: 12 MiB + 1024
		{Action: "free_completed", Addr: 3},
		{Action: "alloc", Addr: 5, Size: 12 * mib, Frames: opt}, // as high, not higher
	}
	classes, cats, frames := group(events, 1, nil, nil)
	wantClasses := []Group{
		{SizeClasses[0], 2, 1024, 1024},
		{SizeClasses[1], 1, 2 * mib, 0},
		{SizeClasses[2], 2, 24 * mib, 12 * mib},
	}
	for i, w := range wantClasses {
		if classes[i] != w {
			t.Errorf("size class %d = %+v, want %+v", i, classes[i], w)
		}
	}
	wantCats := []Group{{Activations, 2, 14 * mib, 12 * mib}, {OptimizerState, 3, 12*mib + 1024, 1024}}
	if len(cats) != 2 || cats[0] != wantCats[0] || cats[1] != wantCats[1] {
		t.Errorf("categories = %+v, want %+v", cats, wantCats)
	}
	if len(frames) != 1 || frames[0].Name != "line 3 forward" {
		t.Errorf("top frame = %+v, want line 3 forward alone", frames)
	}
}

func TestGroupWithoutStacks(t *testing.T) {
	classes, cats, frames := group([]snapshot.Event{{Action: "alloc", Addr: 1, Size: 100}}, 0, nil, nil)
	if cats != nil || frames != nil || classes[0].Count != 1 {
		t.Errorf("no stacks: categories %v, frames %v, size classes %v; want none, none, one small allocation", cats, frames, classes)
	}
	// a script's own frames name lines, not what was made there
	line := snapshot.NewStack(fr("/home/me/run.py", 3, "<module>"))
	_, cats, frames = group([]snapshot.Event{{Action: "alloc", Addr: 1, Size: 100, Frames: line}}, 0, nil, nil)
	if cats != nil || len(frames) != 1 || frames[0].Name != "line 3 <module>" {
		t.Errorf("a script's stacks: categories %v, frames %v; want none, and its line", cats, frames)
	}
}

// One trace under two configs: a 3 MiB request takes a 20 MiB segment
// (kLargeBuffer) by default, and 20 MiB of an expandable segment's
// pages under expandable_segments:True, which memory_stats() does not
// count as a segment.
func TestMeasureUnderTwoConfigs(t *testing.T) {
	tr, err := trace.New("t.json", "", []trace.Op{
		{Op: "alloc", ID: 0, Size: 3 * mib},
		{Op: "alloc", ID: 1, Size: 500},
		{Op: "free", ID: 0},
	})
	if err != nil {
		t.Fatal(err)
	}
	expandable := "expandable_segments:True"
	a, err := Measure(Source{Name: "t.json", Trace: tr}, trace.Options{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Measure(Source{Name: "t.json", Trace: tr}, trace.Options{AllocConf: &expandable}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a.Config != "default" || b.Config != expandable {
		t.Errorf("configs %q, %q; want default, %s", a.Config, b.Config, expandable)
	}
	if a.PeakReserved != 22*mib || a.FinalReserved != 22*mib || a.PeakSegments != 2 || a.SnapshotSegments != 2 {
		t.Errorf("default: %+v; want 22 MiB reserved (a 20 MiB and a 2 MiB segment), 2 segments", a)
	}
	if b.PeakSegments != 0 || b.SnapshotSegments != 2 {
		t.Errorf("expandable: %d segments in memory_stats, %d in the snapshot; want 0 and 2", b.PeakSegments, b.SnapshotSegments)
	}
	if a.PeakAllocated != 3*mib+512 || a.FinalAllocated != 512 || a.Ops != 3 {
		t.Errorf("default: peak allocated %d, final %d, %d ops; want 3 MiB + 512, 512, 3", a.PeakAllocated, a.FinalAllocated, a.Ops)
	}
	if a.Categories != nil || a.SizeClasses[1].Count != 1 || a.SizeClasses[1].AtPeak != 3*mib {
		t.Errorf("default: categories %v, size classes %v; want none, and the 3 MiB one at the peak", a.Categories, a.SizeClasses)
	}
	var out strings.Builder
	if err := (Report{A: a, B: b}).WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"A  t.json (default): 3 ops\nB  t.json (expandable_segments:True): 3 ops\n",
		"\nallocations by size class (bytes live at the peak of requested memory)\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the text lacks %q:\n%s", want, out.String())
		}
	}
	rows := map[string]string{}
	for _, line := range strings.Split(out.String(), "\n") {
		if label, figures, ok := strings.Cut(line, "  "); ok {
			rows[label] = strings.Join(strings.Fields(figures), " ")
		}
	}
	for label, want := range map[string]string{
		"segments at peak (memory_stats)":       "2 0 -2",
		"segments at the end (memory_snapshot)": "2 2 0",
		"peak reserved":                         "22.00 MiB 22.00 MiB 0",
		"<= 1 MiB (small pool)":                 "1 500 bytes 1 500 bytes 0",
	} {
		if rows[label] != want {
			t.Errorf("row %q = %q, want %q", label, rows[label], want)
		}
	}
	if strings.Contains(out.String(), "by category") {
		t.Errorf("a history without stacks has a category table:\n%s", out.String())
	}
}
