package snapshot

import (
	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// Record replays t under o and records what happened as a snapshot's
// history would: each allocation, failed allocation and free (a
// synchronous free completes at once), and every segment the allocator
// took or gave back, each event on its op's stream. It returns the
// events and the segments at the end.
func Record(t *trace.Trace, o trace.Options) ([]Event, []allocator.SegmentInfo, error) {
	var rec Recorder
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
	r.Observe = func(action string, ptr, size uint64) {
		switch action {
		case "alloc", "oom":
			sizes[ptr] = size
			rec.Add(action, ptr, size)
		case "free":
			rec.Add("free_requested", ptr, sizes[ptr])
			rec.Add("free_completed", ptr, sizes[ptr])
			delete(sizes, ptr)
		}
	}
	// Each op's events, its segment events included, carry its stream.
	streamOf := func(i int) uint64 {
		if i < len(t.Ops) {
			return t.Ops[i].Stream
		}
		return 0
	}
	rec.Stream = streamOf(0)
	if err := r.Run(func(i int, _ error) error { rec.Stream = streamOf(i + 1); return nil }); err != nil {
		return nil, nil, err
	}
	return rec.Events, a.Snapshot(), nil
}
