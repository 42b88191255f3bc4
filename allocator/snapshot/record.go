package snapshot

import (
	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// Recorder collects a device trace as PyTorch's _record_memory_history
// does: every allocation and free, and every segment the allocator took
// or gave back, in order, each with the stack and time it happened at.
type Recorder struct {
	Events []Event
	// Stream is the stream of the events added from now on: that of the
	// allocation or free being recorded. A segment_free takes the stream
	// its segment_alloc had.
	Stream uint64
	// Frames is the stack of the events added from now on (for the
	// REPL, the file, line and function of the statement running).
	Frames Stack
	// Now, when set, is each event's time_us (microseconds since the
	// epoch, as PyTorch's); unset, the events are numbered 1, 2, 3...,
	// which keeps their order.
	Now func() int64
	// like, when set, gives the events added their time, stack and other
	// fields: a replay's, the recorded event of the op being replayed.
	like     *Event
	clock    int64
	segments map[uint64]uint64 // segment address → its stream
}

// Add records one event.
func (r *Recorder) Add(action string, addr, size uint64) {
	stream := r.Stream
	switch action {
	case "segment_alloc":
		if r.segments == nil {
			r.segments = map[uint64]uint64{}
		}
		r.segments[addr] = stream
	case "segment_free":
		if s, ok := r.segments[addr]; ok {
			stream = s
			delete(r.segments, addr)
		}
	}
	ev := Event{Action: action, Addr: addr, Size: size, Stream: stream, Frames: r.Frames}
	switch {
	case r.like != nil:
		ev.Time, ev.Frames, ev.extra, ev.missing = r.like.Time, r.like.Frames, r.like.extra, r.like.missing&hasFrames
	case r.Now != nil:
		ev.Time = r.Now()
	default:
		r.clock++
		ev.Time = r.clock
	}
	r.Events = append(r.Events, ev)
}

// Record replays t under o and records what happened as a snapshot's
// history would: each allocation, failed allocation and free (a
// synchronous free completes at once), and every segment the allocator
// took or gave back, each event on its op's stream. It returns the
// events and the segments at the end.
func Record(t *trace.Trace, o trace.Options) ([]Event, []allocator.SegmentInfo, error) {
	return record(t, o, nil)
}

// Record replays the snapshot's history under o as Record does; each
// event takes the time, stack and other fields of the recorded event
// its op came from (a free_requested those of the recorded one), and the
// recorded events that are not replayed (annotate, user_defined,
// snapshot) keep their place. After DropEmptyCache it is Record.
func (r *Replay) Record(o trace.Options) ([]Event, []allocator.SegmentInfo, error) {
	if len(r.opEvent) != len(r.Trace.Ops) {
		return record(r.Trace, o, nil)
	}
	return record(r.Trace, o, r)
}

func record(t *trace.Trace, o trace.Options, src *Replay) ([]Event, []allocator.SegmentInfo, error) {
	var rec Recorder
	var like Event // the recorded event of the op replayed (src's)
	follow := func(idx []int32, op int) { like, rec.like = src.eventOf(idx, op), &like }
	log := NewSegmentLog(trace.NewDevice(t, o))
	log.OnEvent = rec.Add
	o.Device = log
	a, err := trace.Setup(t, o)
	if err != nil {
		return nil, nil, err
	}
	defer a.Close()
	r := trace.NewReplayer(t, a)
	r.Progress = o.Progress
	sizes := map[uint64]uint64{}
	cur, passed := 0, 0 // the op running; the kept events written
	r.Observe = func(action string, ptr, size uint64) {
		switch action {
		case "alloc", "oom":
			sizes[ptr] = size
			rec.Add(action, ptr, size)
		case "free":
			if src != nil {
				follow(src.freeReq, cur)
			}
			rec.Add("free_requested", ptr, sizes[ptr])
			if src != nil {
				follow(src.opEvent, cur)
			}
			rec.Add("free_completed", ptr, sizes[ptr])
			delete(sizes, ptr)
		}
	}
	// Each op's events, its segment events included, carry its stream
	// (and, from a snapshot, its recorded event's time and stack).
	before := func(i int) {
		if i < len(t.Ops) {
			rec.Stream = t.Ops[i].Stream
		}
		if src == nil {
			return
		}
		for ; passed < len(src.pass) && int(src.pass[passed].op) <= i; passed++ {
			rec.Events = append(rec.Events, src.hist.event(int(src.pass[passed].event)))
		}
		if i < len(t.Ops) {
			follow(src.opEvent, i)
		}
	}
	before(0)
	if err := r.Run(func(i int, _ error) error { cur = i + 1; before(i + 1); return nil }); err != nil {
		return nil, nil, err
	}
	return rec.Events, a.Snapshot(), nil
}

// Export replays the snapshot's history under o as Record does and
// makes the file of what happened: the replay's events and segments, and
// all the recording held besides.
func (r *Replay) Export(o trace.Options) (*File, error) {
	events, segs, err := r.Record(o)
	if err != nil {
		return nil, err
	}
	return &File{Device: r.Trace.Device, Segments: segs, Events: events, AllocConf: o.Conf(r.Trace), From: r.from}, nil
}
