package snapshot

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// Replay is a snapshot made ready to replay: the trace of its ops, the
// segment events the recording saw, the segments it ended with, and how
// much of its history is missing.
type Replay struct {
	Trace         *trace.Trace
	SegmentEvents []SegmentEvent
	Final         []trace.Segment
	// WithRequested reports whether Final has the blocks' requested
	// sizes (the pickle does, the JSON flattening does not).
	WithRequested bool
	// Unknown counts frees of blocks allocated before the recording
	// began (a ring buffer that wrapped, or recording started late):
	// they are left out.
	Unknown int
	// segmentAllocs are the segments the recording's driver handed out,
	// in order, the preload's first (for Playback).
	segmentAllocs []Event
	// LateExpandable reports a history of expandable segments that
	// starts late: the replay starts from an empty allocator.
	LateExpandable bool
	// Releases counts the history's runs of segment releases by whose
	// they were; only the program's are replayed.
	Releases Releases
	// Pending are the alloc ops whose block the history frees
	// (free_requested) but never gives back (free_completed): a block
	// used on another stream (record_stream) whose events were still
	// outstanding at the end (see LeavePending).
	Pending []int
	// Failed counts the allocations that raised out-of-memory in the
	// recording: PyTorch records them with their rounded size, which is
	// what the replay asks for.
	Failed int
	// open is the runs the event order could not attribute, for Resolve.
	open []openRun
	// Preloaded and PreloadedBlocks count the segments and live blocks
	// the replay starts from, for a history that starts late; the replay's
	// first Preloaded segment events are theirs.
	Preloaded, PreloadedBlocks int
	// Problems are what the file holds that is contradictory or unknown.
	Problems []Problem
	// from is the snapshot prepared; hist its history.
	from *Snapshot
	hist *eventList
	// opEvent is, for each op, the index of the event it was made from
	// (-1: none, the preload's); freeReq, for a free, that of the
	// free_requested before its free_completed.
	opEvent, freeReq []int32
	// pass are the events not replayed (annotate, user_defined,
	// snapshot), each with the op it comes before.
	pass []passEvent
	// none is the event the preload's ops are made like: no stack, the
	// history's first time.
	none Event
}

// liveAlloc is an allocation of the history that is live: its op id
// and stream.
type liveAlloc struct {
	id     int
	stream uint64
}

// passEvent is an event kept in place, before op.
type passEvent struct{ op, event int32 }

// eventOf is the event an op was made from, by index in idx.
func (r *Replay) eventOf(idx []int32, op int) Event {
	if k := idx[op]; k >= 0 {
		return r.hist.event(int(k))
	}
	return r.none
}

// emit appends an op made from event ev (-1: none) and, for a free,
// the free_requested event req (-1: none).
func (r *Replay) emit(ops []trace.Op, op trace.Op, ev, req int) []trace.Op {
	r.opEvent = append(r.opEvent, int32(ev))
	r.freeReq = append(r.freeReq, int32(req))
	return append(ops, op)
}

// Notes says what of the recording the replay leaves out or changes;
// empty when nothing, or when r is nil (an ops trace).
func (r *Replay) Notes() string {
	if r == nil {
		return ""
	}
	var n []string
	if r.Preloaded > 0 {
		n = append(n, fmt.Sprintf("the recording began late: the replay starts from the %d segments and %d live blocks the allocator held then", r.Preloaded, r.PreloadedBlocks))
	}
	if r.LateExpandable {
		n = append(n, "the recording began late, and the pages its expandable segments had mapped then cannot be rebuilt: the replay starts from an empty allocator")
	}
	if r.Unknown > 0 {
		n = append(n, fmt.Sprintf("%d frees of blocks it never saw are left out", r.Unknown))
	}
	n = append(n, r.Releases.Notes()...)
	if r.Failed > 0 {
		n = append(n, fmt.Sprintf("allocations that failed in the recording, asking for the size PyTorch rounded them to there (it records no other): %d", r.Failed))
	}
	if len(n) == 0 {
		return ""
	}
	return " (" + strings.Join(n, "; ") + ")"
}

// WithoutRequested is a layout with the requested sizes zeroed, to
// compare with a recording that has none.
func WithoutRequested(l []trace.Segment) []trace.Segment {
	out := make([]trace.Segment, len(l))
	for i, g := range l {
		g.RequestedSize = 0
		g.Blocks = append([][]any(nil), g.Blocks...)
		for k, b := range g.Blocks {
			g.Blocks[k] = []any{b[0], b[1], b[2], uint64(0)}
		}
		out[i] = g
	}
	return out
}

// Prepare turns the snapshot's events into ops: each alloc an alloc on its
// stream, each free_completed the free of its block, an oom an allocation
// PyTorch could not make, and each run of segment_free (or, expandable,
// segment_unmap) events that was the program's an empty_cache; the
// allocator's own releases are left to the replaying allocator (see
// Releases).
func (s *Snapshot) Prepare(path string) (*Replay, error) {
	h := s.history()
	n := h.len()
	r := &Replay{Final: s.layout(), WithRequested: s.HasRequested, Problems: s.Problems, from: s, hist: h}
	if n > 0 {
		r.none.Time = h.record(0).time
	}
	ops := make([]trace.Op, 0, h.ops())
	r.opEvent, r.freeReq = make([]int32, 0, cap(ops)), make([]int32, 0, cap(ops))
	requested := map[uint64]int{} // address → its free_requested event
	stream := map[int]uint64{}    // the preload's op id → its allocation's stream
	next := 0
	var startIDs map[uint64]int
	segs, lateExpandable, blocks := s.startState(h)
	freed, opOf := blocks.freed, blocks.freed // an alloc event's op, in its own place
	if segs != nil {
		var pre []trace.Op
		pre, startIDs, r.segmentAllocs, next = preload(segs, 0, stream)
		for _, op := range pre {
			ops = r.emit(ops, op, -1, -1)
		}
		r.Preloaded, r.PreloadedBlocks = len(segs), len(startIDs)
	}
	start := len(ops)
	r.LateExpandable = lateExpandable
	conf, err := allocator.ParseConfig(s.AllocConf)
	if err != nil {
		conf = allocator.DefaultConfig() // the replay's Setup says what is wrong with it
	}
	peak := peakReserved(segs, h)
	cache := newCacheTracker(segs)
	var run *releaseRun // the run of releases under way
	for i := range n {
		e := h.record(i)
		if run != nil && !e.releases() && e.action != actFreeCompleted {
			ops = r.endRun(ops, run, run.attribute(e, h.record(i+1), conf, peak, cache.idle > 0))
			run = nil
		}
		if e.releases() {
			if run == nil {
				run = &releaseRun{reservedBefore: cache.reserved, firstEvent: len(r.SegmentEvents), event: i}
			}
			run.add(e)
		}
		cache.event(e)
		switch e.action {
		case actAlloc, actOOM:
			ops = r.emit(ops, trace.Op{Op: "alloc", ID: next, Size: e.size, OOM: e.action == actOOM, Stream: e.stream}, i, -1)
			if e.action == actAlloc {
				opOf[i] = int32(len(ops) - 1)
			} else {
				r.Failed++
			}
			next++
		case actFreeCompleted:
			var l liveAlloc
			if a := freed[i]; a >= 0 {
				l = liveAlloc{ops[opOf[a]].ID, h.record(int(a)).stream}
			} else {
				id, ok := startIDs[e.addr]
				if !ok {
					r.Unknown++
					continue
				}
				delete(startIDs, e.addr)
				l = liveAlloc{id, stream[id]}
				delete(stream, id)
			}
			req, ok := requested[e.addr]
			if !ok {
				req = -1
			}
			delete(requested, e.addr)
			ops = r.emit(ops, trace.Op{Op: "free", ID: l.id, Stream: l.stream}, i, req)
		case actFreeRequested:
			requested[e.addr] = i
		case actSegmentAlloc:
			r.segmentAllocs = append(r.segmentAllocs, h.event(i))
		case actSegmentFree, actSegmentMap, actSegmentUnmap:
		default: // not replayed, kept in place
			r.pass = append(r.pass, passEvent{int32(len(ops)), int32(i)})
		}
		switch e.action {
		case actSegmentAlloc, actSegmentFree, actSegmentMap, actSegmentUnmap:
			r.SegmentEvents = append(r.SegmentEvents, SegmentEvent{Action: knownActions[e.action], Size: e.size})
		}
	}
	if run != nil {
		ops = r.endRun(ops, run, run.attribute(&noEvent, &noEvent, conf, peak, cache.idle > 0))
	}
	for addr := range requested {
		if a, ok := blocks.live[addr]; ok {
			r.Pending = append(r.Pending, int(opOf[a]))
		}
	}
	slices.Sort(r.Pending)
	t, err := trace.New(path, s.AllocConf, ops)
	if err != nil {
		return nil, err
	}
	t.Device = s.Device
	t.Start = start
	r.Trace = t
	return r, nil
}

// endRun counts a run of releases as attributed and, when it was the
// program's, replays it as an empty_cache; one it could not attribute is
// kept for Resolve.
func (r *Replay) endRun(ops []trace.Op, run *releaseRun, w whose) []trace.Op {
	switch w {
	case byProgram:
		r.Releases.User++
		return r.emit(ops, trace.Op{Op: "empty_cache"}, run.event, -1)
	case byAllocator:
		r.Releases.Own++
	default:
		r.Releases.Unattributed++
		r.open = append(r.open, openRun{at: len(ops), from: run.firstEvent, to: len(r.SegmentEvents), event: run.event})
	}
	return ops
}

// releases reports whether an event gives memory back to the driver.
func releases(action string) bool { return action == "segment_free" || action == "segment_unmap" }

// layout is the final segments in the trace's recorded-layout form.
func (s *Snapshot) layout() []trace.Segment {
	var out []trace.Segment
	for _, g := range s.Segments {
		seg := trace.Segment{Pool: g.Type, TotalSize: g.TotalSize}
		for _, b := range g.Blocks {
			if strings.HasPrefix(b.State, "active") { // active_pending_free too
				seg.RequestedSize += b.Requested
			}
			if b.State == allocator.StateAllocated {
				seg.AllocatedSize += b.Size
			}
			seg.Blocks = append(seg.Blocks, []any{b.Address - g.Address, b.Size, b.State, b.Requested})
		}
		out = append(out, seg)
	}
	return trace.SortLayout(out)
}
