package repl

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
	"github.com/gpumemrepl/gpumemrepl/repl/plot"
)

// What a recorded allocation was for, as far as its stack tells: a
// PyTorch snapshot keeps each allocation's frames and no category.

// FrameCategories name FrameCategory's answers, in order.
var FrameCategories = []string{"made in an optimizer's step", "made in backward", "made elsewhere (forward, data, other)"}

// The indexes of FrameCategories.
const (
	FrameOptimizer = iota
	FrameBackward
	FrameOther
)

// FrameCategory tells an allocation's category from its stack: made
// under torch/optim (an optimizer's state or temporaries), under
// autograd's backward (gradients and backward's temporaries), or
// elsewhere.
func FrameCategory(frames []snapshot.Frame) int {
	for _, f := range frames {
		file := slashed(f.Filename)
		switch {
		case strings.Contains(file, "torch/optim/"):
			return FrameOptimizer
		case strings.Contains(file, "torch/autograd/") && (f.Name == "backward" || f.Name == "_engine_run_backward" || f.Name == "grad"):
			return FrameBackward
		}
	}
	return FrameOther
}

// slashed is a frame's file with forward slashes.
func slashed(name string) string { return strings.ReplaceAll(name, "\\", "/") }

// FrameLine is where the program made an allocation: the innermost
// frame outside PyTorch's own files (torch/), as FILE:LINE in FUNCTION.
func FrameLine(frames []snapshot.Frame) string {
	for i, f := range frames {
		if !strings.Contains(slashed(f.Filename), "/torch/") && !strings.HasPrefix(f.Filename, "<torch") {
			return userLine(frames[i:])
		}
	}
	return userLine(frames)
}

// ReplayAllocs are t's allocations over its ops, with their stacks and
// categories from snap when there is one (nil: a trace without stacks).
func ReplayAllocs(t *trace.Trace, snap *snapshot.Replay) []plot.Alloc {
	var allocs []plot.Alloc
	live := map[int]int{}
	for i, op := range t.Ops {
		switch op.Op {
		case "alloc":
			live[op.ID] = len(allocs)
			a := plot.Alloc{Size: op.Size, Made: i, Freed: -1, Category: FrameOther}
			if snap != nil {
				if ev, ok := snap.OpEvent(i); ok {
					frames := ev.Frames.Frames()
					a.Addr, a.Where, a.Stack, a.Category = ev.Addr, FrameLine(frames), stackText(frames), FrameCategory(frames)
				}
			}
			allocs = append(allocs, a)
		case "free":
			if k, ok := live[op.ID]; ok {
				allocs[k].Freed = i
				delete(live, op.ID)
			}
		}
	}
	return allocs
}
