package snapshot

import "testing"

func TestProgramFrame(t *testing.T) {
	torch := Frame{Filename: "/venv/lib/python3.12/site-packages/torch/nn/modules/linear.py", Line: 125, Name: "forward"}
	own := Frame{Filename: "/home/me/train.py", Line: 40, Name: "step"}
	if f, ok := ProgramFrame([]Frame{torch, own}); !ok || f != own {
		t.Errorf("ProgramFrame = %+v, %v; want the program's own frame", f, ok)
	}
	if _, ok := ProgramFrame([]Frame{torch}); ok {
		t.Error("a stack of torch's frames alone has a program frame")
	}
	// gpumemrepl's own Python of a module has no file; the prompt's
	// frame is the program's
	lib := Frame{Filename: "<lr_scheduler>", Line: 65, Name: "step"}
	prompt := Frame{Filename: "<stdin>", Line: 3, Name: "<module>"}
	if f, ok := ProgramFrame([]Frame{lib, prompt}); !ok || f != prompt {
		t.Errorf("ProgramFrame = %+v, %v; want the prompt's frame", f, ok)
	}
}

// Each op knows its event, and a statement's ops are those whose events
// share its frame: the allocations of line 2 start at op 1.
func TestOpEventAndStatementStart(t *testing.T) {
	at := func(line int) Stack { return NewStack(Frame{Filename: "s.py", Line: line, Name: "<module>"}) }
	s := &Snapshot{Events: []Event{
		{Action: "segment_alloc", Addr: 1 << 21, Size: 2 << 20, Frames: at(1)},
		{Action: "alloc", Addr: 1 << 21, Size: 512, Frames: at(1)},
		{Action: "alloc", Addr: 1<<21 + 512, Size: 512, Frames: at(2)},
		{Action: "alloc", Addr: 1<<21 + 1024, Size: 512, Frames: at(2)},
	}}
	r, err := s.Prepare("t")
	if err != nil {
		t.Fatal(err)
	}
	ev, ok := r.OpEvent(2)
	if !ok || ev.Addr != 1<<21+1024 || ev.Frames.Frames()[0].Line != 2 {
		t.Errorf("OpEvent(2) = %+v, %v", ev, ok)
	}
	if _, ok := r.OpEvent(len(r.Trace.Ops)); ok {
		t.Error("an op past the end has an event")
	}
	outermost := func(f []Frame) (Frame, bool) {
		if len(f) == 0 {
			return Frame{}, false
		}
		return f[len(f)-1], true
	}
	if got := r.StatementStart(2, outermost); got != 1 {
		t.Errorf("StatementStart(2) = %d, want 1", got)
	}
	if got := r.StatementStart(0, outermost); got != 0 {
		t.Errorf("StatementStart(0) = %d, want 0", got)
	}
}
