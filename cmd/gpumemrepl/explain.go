package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/gpumemrepl/gpumemrepl/allocator/diff"
	"github.com/gpumemrepl/gpumemrepl/allocator/explain"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
	"github.com/gpumemrepl/gpumemrepl/repl"
)

// explainConflicts are the replay flags that decide the output
// themselves, so they do not go with --explain.
var explainConflicts = []string{"check", "time", "summary", "export", "plot", "alloc-conf", "no-empty-cache"}

// refuseWithExplain returns a usage error for a flag that does not go
// with --explain.
func refuseWithExplain(fs *flag.FlagSet, comparing bool) error {
	if comparing {
		return errors.New("--explain and --compare do not go together: --explain picks the configs itself")
	}
	if d := fs.Lookup("device"); d != nil && d.Value.String() == "cuda" {
		return errors.New("--explain and --device cuda do not go together: --explain replays each candidate on a simulated device of the history's size")
	}
	given := givenFlags(fs)
	for _, f := range explainConflicts {
		if given[f] {
			return fmt.Errorf("--explain and --%s do not go together: --explain prints a diagnosis of its own, of the history as it ran", f)
		}
	}
	return nil
}

// explainOne replays a history as it ran (o: its limit and device) and
// prints why it ran out of memory, or where it peaked, and which change
// avoids the error; with asJSON, the diagnosis as one JSON object. A
// snapshot whose releases the event order leaves open has them decided
// at o's limit, unless resolved says they were already.
func explainOne(w io.Writer, t *trace.Trace, snap *snapshot.Replay, o trace.Options, resolved, asJSON bool) error {
	in := explain.Input{Trace: t, Options: o, GPUs: repl.ExplainGPUs()}
	if snap != nil {
		if !resolved && o.LimitBytes != nil {
			if err := snap.Resolve(trace.Options{LimitBytes: o.LimitBytes, TotalBytes: o.TotalBytes}); err != nil {
				return err
			}
			in.Trace = snap.Trace
		}
		in.Label = func(op int) string { return frameLabel(snap, op) }
		if hasStacks(snap, in.Trace) {
			in.Category = func(op int) string { return frameCategory(snap, op) }
		}
		in.Where = func(op int) string { return frameWhere(snap, op) }
		in.StepStart = func(op int) int { return snap.StatementStart(op, snapshot.ProgramFrame) }
	}
	d, err := explain.Explain(in)
	if err != nil {
		return err
	}
	if asJSON {
		b, err := json.Marshal(struct {
			Path string `json:"path"`
			*explain.Diagnosis
		}{in.Trace.Path, d})
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	fmt.Fprintf(w, "%s: %d ops%s\n", in.Trace.Path, len(in.Trace.Ops), snap.Notes())
	return d.Write(w)
}

// frameLabel names the code that allocated op's block: the innermost
// frame of the program's own (outside torch), and the innermost of all
// where that is torch's.
func frameLabel(snap *snapshot.Replay, op int) string {
	ev, ok := snap.OpEvent(op)
	if !ok {
		return "allocated before the recording began"
	}
	frames := ev.Frames.Frames()
	if len(frames) == 0 {
		return "no Python frames (C++: autograd's backward, say)"
	}
	f, ok := snapshot.ProgramFrame(frames)
	switch {
	case !ok:
		return frameAt(frames[0])
	case f == frames[0]:
		return frameAt(f)
	}
	return frameAt(f) + " (" + frameAt(frames[0]) + ")"
}

// hasStacks reports whether some allocation of the snapshot was
// recorded with its Python stack (_record_memory_history(stacks=...)).
func hasStacks(snap *snapshot.Replay, t *trace.Trace) bool {
	for op := range t.Ops {
		if ev, ok := snap.OpEvent(op); ok && ev.Action == "alloc" && len(ev.Frames.Frames()) > 0 {
			return true
		}
	}
	return false
}

// frameCategory is what op's block was for, as its stack tells (diff's
// rules: the optimizer's state, a module's parameters, a forward, ...).
func frameCategory(snap *snapshot.Replay, op int) string {
	ev, ok := snap.OpEvent(op)
	if !ok {
		return "allocated before the recording began"
	}
	return diff.Category(ev.Frames.Frames())
}

// frameWhere is the statement of the program that ran op: its innermost
// frame outside torch; empty when the recording has none.
func frameWhere(snap *snapshot.Replay, op int) string {
	ev, _ := snap.OpEvent(op)
	if f, ok := snapshot.ProgramFrame(ev.Frames.Frames()); ok {
		return frameAt(f)
	}
	return ""
}

// frameAt is a frame as FILE:LINE in FUNCTION.
func frameAt(f snapshot.Frame) string {
	return fmt.Sprintf("%s:%d in %s", filepath.Base(f.Filename), f.Line, f.Name)
}
