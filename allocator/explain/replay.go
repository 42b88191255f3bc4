package explain

import (
	"errors"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// run is what one replay of a whole history did.
type run struct {
	first        *trace.OOM
	pastRecorded *int
	// peakReserved and peakAllocated are the history's highest
	// reserved_bytes and allocated_bytes; peakOp is the first op after
	// which reserved stood at its peak.
	peakReserved, peakAllocated int64
	peakOp                      int
}

// state is the allocator's state just after one op of a replay.
type state struct {
	oom   *allocator.OutOfMemoryError // the op's error; nil when it succeeded
	stats allocator.Stats
	segs  []allocator.SegmentInfo
	live  []int // the alloc ops whose blocks are live, in op order
}

// setup makes the allocator of one replay of t under o, on a device of
// in's making.
func (in *Input) setup(t *trace.Trace, o trace.Options) (*allocator.Allocator, error) {
	o.Progress = nil
	o.Device = nil
	if in.NewDevice != nil {
		o.Device = in.NewDevice(trace.NewDevice(t, o).TotalMemory())
	}
	return trace.Setup(t, o)
}

// replayAll replays the whole of t under o.
func (in *Input) replayAll(t *trace.Trace, o trace.Options) (run, error) {
	a, err := in.setup(t, o)
	if err != nil {
		return run{}, err
	}
	defer a.Close()
	w := trace.NewOOMWatch(t)
	var r run
	err = trace.NewReplayer(t, a).Run(func(i int, oom error) error {
		if i&4095 == 0 && in.Interrupted != nil && in.Interrupted() {
			return ErrInterrupted
		}
		if err := w.Op(i, oom); err != nil {
			return err
		}
		s := a.Stats()
		if p := s.ReservedBytes[0].Peak; p > r.peakReserved {
			r.peakReserved, r.peakOp = p, i
		}
		r.peakAllocated = s.AllocatedBytes[0].Peak
		return nil
	})
	r.first, r.pastRecorded = w.First, w.PastRecorded
	return r, err
}

// replayTo replays t under o up to and including op last and returns the
// state there.
func (in *Input) replayTo(t *trace.Trace, o trace.Options, last int) (*state, error) {
	a, err := in.setup(t, o)
	if err != nil {
		return nil, err
	}
	defer a.Close()
	st := &state{}
	liveOp := map[int]int{} // id -> its alloc op
	rp := trace.NewReplayer(t, a)
	for i := 0; i <= last && !rp.Done(); i++ {
		oom, err := rp.Step()
		if err != nil {
			return nil, err
		}
		op := t.Ops[i]
		switch {
		case op.Op == "alloc" && oom == nil:
			liveOp[op.ID] = i
		case op.Op == "free":
			delete(liveOp, op.ID)
		}
		if i == last {
			st.oom, _ = errors.AsType[*allocator.OutOfMemoryError](oom)
		}
	}
	for _, k := range liveOp {
		st.live = append(st.live, k)
	}
	slices.Sort(st.live)
	st.stats, st.segs = a.Stats(), a.Snapshot()
	return st, nil
}
