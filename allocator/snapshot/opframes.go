package snapshot

import (
	"path/filepath"
	"strings"
)

// OpEvent is the recorded event op i of the replay's trace was made
// from (an allocation's alloc or oom event, with its address, size and
// stack; a free's free_completed; an empty_cache's first segment
// release); false for an op the recording has no event for, one that
// rebuilds a late history's start state.
func (r *Replay) OpEvent(i int) (Event, bool) {
	if i < 0 || i >= len(r.opEvent) || r.opEvent[i] < 0 {
		return Event{}, false
	}
	return r.hist.event(int(r.opEvent[i])), true
}

// OpEventIndex is the index in the history of the event OpEvent gives
// for op i; -1 where it gives none.
func (r *Replay) OpEventIndex(i int) int {
	if i < 0 || i >= len(r.opEvent) {
		return -1
	}
	return int(r.opEvent[i])
}

// StatementStart is the first op of the statement that ran op i: the
// ops just before it whose events have the same frame, as frame picks
// it from their stacks (the outermost, say: the prompt's statement); -1
// when op i's event has none.
func (r *Replay) StatementStart(i int, frame func([]Frame) (Frame, bool)) int {
	at := func(k int) (Frame, bool) {
		ev, ok := r.OpEvent(k)
		if !ok {
			return Frame{}, false
		}
		return frame(ev.Frames.Frames())
	}
	want, ok := at(i)
	if !ok {
		return -1
	}
	start := i
	for start > 0 {
		if f, ok := at(start - 1); !ok || f != want {
			break
		}
		start--
	}
	return start
}

// ProgramFrame is a stack's innermost frame of the program's own code,
// outside torch and outside sources with no file (a file under a folder
// named torch is torch's; gpumemrepl's own Python of a module, named
// <torch.nn>, <copy>, ..., is no file the program can open; <stdin>, the
// prompt, and <string>, python -c's, are the program's): the statement
// that made an allocation; false when no frame is the program's.
func ProgramFrame(frames []Frame) (Frame, bool) {
	for _, f := range frames {
		if !strings.Contains(filepath.ToSlash(f.Filename), "/torch/") && (!strings.HasPrefix(f.Filename, "<") || f.Filename == "<stdin>" || f.Filename == "<string>") {
			return f, true
		}
	}
	return Frame{}, false
}
