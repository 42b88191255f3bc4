package engine

import (
	"fmt"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// Loaded is what `load` leaves in the session: the blocks of a replayed
// trace that were live at its end, on cuda:0. Deleting its name frees
// them.
type Loaded struct {
	Path  string
	Ops   int
	live  []*storage
	bytes uint64
}

// String says what the load replayed and still holds.
func (l *Loaded) String() string {
	return fmt.Sprintf("loaded from %s: %d ops replayed, %d blocks still held (%s requested)", l.Path, l.Ops, len(l.live), allocator.FormatSize(l.bytes))
}

// load replays a trace or snapshot's ops on cuda:0 through the session's
// allocator: the memory of a real run, to experiment on from there.
func (s *Session) load(c *Load) error {
	t, _, err := snapshot.Open(c.Path)
	if err != nil {
		return err
	}
	g, err := s.initGPU(0)
	if err != nil {
		return err
	}
	ops := t.Ops
	if c.Until >= 0 && c.Until < len(ops) {
		ops = ops[:c.Until]
	}
	byID := map[int]*storage{}
	l := &Loaded{Path: c.Path, Ops: len(ops)}
	ooms := 0
	for _, op := range ops {
		switch op.Op {
		case "alloc":
			st, err := s.newStorage(Device{CUDA: true}, op.Size, false)
			if err != nil {
				ooms++
				continue
			}
			byID[op.ID] = st
		case "free":
			if st, ok := byID[op.ID]; ok {
				s.release(st)
				delete(byID, op.ID)
			}
		case "empty_cache":
			if err := g.alloc.EmptyCache(); err != nil {
				return err
			}
		}
	}
	for _, st := range byID {
		l.live = append(l.live, st)
		l.bytes += st.bytes
	}
	s.bind(c.Name, l)
	if ooms > 0 {
		s.event("%d allocations of the trace ran out of memory here and were skipped", ooms)
	}
	return nil
}

// freeLoaded lets go of what a load holds.
func (s *Session) freeLoaded(l *Loaded) {
	for _, st := range l.live {
		s.release(st)
	}
	s.event("freed the %d blocks loaded from %s", len(l.live), l.Path)
	l.live, l.bytes = nil, 0
}
