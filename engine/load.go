package engine

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
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
		n, err := s.loadOps(h, targets[i], until, l)
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

// loadSpan is a run of a device's history that LoadHistory replayed
// from a file: events [from, to).
type loadSpan struct {
	from, to int
	source   string // "snapshot FILE" or "trace FILE"
}

// ReplayedFrom says where event ev of History(dev) came from when a
// load replayed it: "snapshot FILE" or "trace FILE" (the file's base
// name); "" for an event of the session's own program. The event's
// stack is the recorded one (none where the file has none).
func (s *Session) ReplayedFrom(dev, ev int) string {
	for _, sp := range s.gpus[dev].loads {
		if ev >= sp.from && ev < sp.to {
			return sp.source
		}
	}
	return ""
}

// loadOps replays h's first until ops (all when until < 0) on dev, each
// allocation on its stream with its recorded stack, and adds what is
// live at the end to l. It returns how many allocations ran out of
// memory.
func (s *Session) loadOps(h snapshot.Opened, dev Device, until int, l *Loaded) (int, error) {
	g, err := s.initGPU(dev.Index)
	if err != nil {
		return 0, err
	}
	ops := h.Trace.Ops
	if until >= 0 && until < len(ops) {
		ops = ops[:until]
	}
	l.ops += len(ops)
	span := loadSpan{from: len(g.history.Events), source: "trace " + filepath.Base(l.path)}
	if h.Replay != nil {
		span.source = "snapshot " + filepath.Base(l.path)
	}
	defer func() {
		s.replaying = nil
		span.to = len(g.history.Events)
		g.loads = append(g.loads, span)
	}()
	byID := map[int]*storage{}
	ooms := 0
	for i, op := range ops {
		var stack snapshot.Stack
		if h.Replay != nil {
			if ev, ok := h.Replay.OpEvent(i); ok {
				stack = ev.Frames
			}
		}
		s.replaying = &stack
		switch op.Op {
		case "alloc":
			st, err := s.newStorageOn(dev, op.Stream, op.Size, false)
			if err != nil {
				ooms++
				continue
			}
			st.role = roleLoaded
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
