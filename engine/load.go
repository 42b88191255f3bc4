package engine

import (
	"fmt"
	"maps"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// Loaded is what LoadHistory leaves allocated: the blocks of a replayed
// trace that were live at its end. FreeLoaded frees them.
type Loaded struct {
	path  string
	ops   int // how many were replayed
	live  []*storage
	bytes uint64
}

// String says what the load replayed and still holds.
func (l *Loaded) String() string {
	return fmt.Sprintf("loaded from %s: %d ops replayed, %d blocks still held (%s requested)", l.path, l.ops, len(l.live), allocator.FormatSize(l.bytes))
}

// LoadHistory replays the first until ops (all when until < 0) of a
// trace or snapshot through the session's allocators: the memory of a
// real run, to experiment on from there. What is live at the end stays
// allocated, held by the result until FreeLoaded. A snapshot's history of
// cuda:N goes to the session's cuda:N; a file with one device's history
// goes to cuda:0 when the session has no cuda:N.
func (s *Session) LoadHistory(path string, until int) (*Loaded, error) {
	histories, err := snapshot.Open(path)
	if err != nil {
		return nil, err
	}
	targets := make([]Device, len(histories)) // checked before anything is loaded
	for i, h := range histories {
		targets[i] = Device{CUDA: true, Index: h.Trace.Device}
		if h.Trace.Device >= len(s.gpus) {
			if len(histories) > 1 {
				return nil, fmt.Errorf("%s holds cuda:%d's history and this session has %d device(s) (--devices sets how many are simulated)", path, h.Trace.Device, len(s.gpus))
			}
			s.event("cuda:%d's history, replayed on cuda:0", h.Trace.Device)
			targets[i].Index = 0
		}
	}
	l := &Loaded{path: path}
	ooms := 0
	for i, h := range histories {
		n, err := s.loadOps(h.Trace, targets[i], until, l)
		if err != nil {
			return nil, err
		}
		ooms += n
	}
	if ooms > 0 {
		s.event("%d allocations of the trace ran out of memory here and were skipped", ooms)
	}
	return l, nil
}

// loadOps replays t's first until ops (all when until < 0) on dev, each
// allocation on its stream, and adds what is live at the end to l. It
// returns how many allocations ran out of memory.
func (s *Session) loadOps(t *trace.Trace, dev Device, until int, l *Loaded) (int, error) {
	g, err := s.initGPU(dev.Index)
	if err != nil {
		return 0, err
	}
	ops := t.Ops
	if until >= 0 && until < len(ops) {
		ops = ops[:until]
	}
	l.ops += len(ops)
	byID := map[int]*storage{}
	ooms := 0
	for _, op := range ops {
		switch op.Op {
		case "alloc":
			st, err := s.newStorageOn(dev, op.Stream, op.Size, false)
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
				return ooms, err
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(byID)) { // in allocation order, so that a del frees the same way every time
		l.live = append(l.live, byID[id])
		l.bytes += byID[id].bytes
	}
	return ooms, nil
}

// FreeLoaded lets go of what a load holds.
func (s *Session) FreeLoaded(l *Loaded) {
	for _, st := range l.live {
		s.release(st)
	}
	s.event("freed the %d blocks loaded from %s", len(l.live), l.path)
	l.live, l.bytes = nil, 0
}
