package snapshot

import (
	"slices"
	"sort"

	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// A history that starts late (the ring buffer of _record_memory_history
// wrapped, or recording began mid-run) frees blocks it never saw
// allocated, inside segments it never saw created. The replay then starts
// from what the allocator held when the recording began, worked out from
// the history and the snapshot's segments:
//
//   - the segments then: those at the end that the history does not
//     create, and those it frees without having created;
//   - the blocks live then: those the history frees without having
//     allocated, and those active at the end that it never allocated;
//   - everything else in those segments was free.
//
// The preload builds that state with ordinary allocations: one segment at
// a time, a whole-segment allocation creates it (at its recorded address,
// through Playback) and is freed, then its blocks and the free stretches
// between them are allocated in address order (every earlier segment is
// full, so each lands where it was), and the stretches are freed at the
// end. A free stretch of at most 1 MiB in a large segment cannot be asked
// of the large pool; it is added to its neighbour.

// startSegment is a segment the allocator held when the recording began.
type startSegment struct {
	addr, size uint64
	stream     uint64
	small      bool
	blocks     []startBlock // live then, by address
}

type startBlock struct{ addr, size uint64 }

// historyBlocks is what a history's blocks come to.
type historyBlocks struct {
	// freed is, for each free_completed event, the index of the alloc
	// event whose block it frees, or -1 when the history did not
	// allocate it.
	freed []int32
	// live is the blocks allocated and not freed at the end: address →
	// the alloc event.
	live map[uint64]int32
}

// largeThreshold is the largest request served from the small pool.
const largeThreshold = 1 << 20

// startState works out the segments and live blocks at the history's
// start; nil when the history is complete. lateExpandable reports a
// history of expandable segments that starts late: its start state is
// not worked out (the preload builds whole segments, and the pages an
// expandable range had mapped, holes included, cannot be built that way).
// It learns the history's blocks on the way.
func (s *Snapshot) startState(h *eventList) (segs []startSegment, lateExpandable bool, blocks historyBlocks) {
	freed := make([]int32, h.len())
	live := map[uint64]int32{} // address → the alloc event of the block there
	blocks = historyBlocks{freed, live}
	created := map[uint64]bool{}
	var mapped intervals               // what the history mapped into expandable segments
	var start []startBlock             // the blocks live then
	expandable, unseen := false, false // unseen: pages mapped before the history
	for i := range h.len() {
		e := h.record(i)
		switch e.action {
		case actSegmentMap:
			expandable = true
			mapped.add(e.addr, e.addr+e.size)
		case actSegmentUnmap:
			expandable = true
			unseen = unseen || !mapped.covers(e.addr, e.addr+e.size)
		case actAlloc:
			live[e.addr] = int32(i)
			// in an expandable history, a block in pages it did not map
			unseen = unseen || (expandable && !mapped.covers(e.addr, e.addr+e.size))
		case actFreeCompleted:
			a, ok := live[e.addr]
			if !ok {
				a = -1
				start = append(start, startBlock{e.addr, roundUp(e.size, 512)})
			}
			freed[i] = a
			delete(live, e.addr)
		case actSegmentAlloc:
			created[e.addr] = true
		case actSegmentFree:
			if !created[e.addr] {
				segs = append(segs, startSegment{addr: e.addr, size: e.size, stream: e.stream, small: e.size == 2<<20})
			}
			delete(created, e.addr)
		}
	}
	for _, g := range s.Segments {
		expandable = expandable || g.Expandable
		if created[g.Address] || mapped.overlaps(g.Address, g.Address+g.TotalSize) {
			continue // made by the history: allocated, or (expandable) mapped
		}
		segs = append(segs, startSegment{addr: g.Address, size: g.TotalSize, stream: g.Stream, small: g.Type == "small"})
		for _, b := range g.Blocks {
			if _, ok := live[b.Address]; b.State == "active_allocated" && !ok {
				start = append(start, startBlock{b.Address, b.Size})
			}
		}
	}
	if expandable {
		return nil, unseen || len(start) > 0 || len(segs) > 0, blocks
	}
	if len(segs) == 0 {
		return nil, false, blocks
	}
	sort.Slice(segs, func(i, j int) bool { return segs[i].addr < segs[j].addr })
	for _, b := range start {
		k := sort.Search(len(segs), func(i int) bool { return segs[i].addr+segs[i].size > b.addr })
		if k < len(segs) && segs[k].addr <= b.addr {
			segs[k].blocks = append(segs[k].blocks, b)
		}
	}
	for i := range segs {
		sort.Slice(segs[i].blocks, func(a, b int) bool { return segs[i].blocks[a].addr < segs[i].blocks[b].addr })
	}
	return segs, false, blocks
}

// intervals is a set of address ranges [from, to), kept sorted and
// merged.
type intervals [][2]uint64

// add puts [from, to) in the set.
func (s *intervals) add(from, to uint64) {
	l := *s
	i := sort.Search(len(l), func(i int) bool { return l[i][1] >= from }) // the first that ends at or after from
	j := i
	for j < len(l) && l[j][0] <= to {
		from, to = min(from, l[j][0]), max(to, l[j][1])
		j++
	}
	*s = slices.Replace(l, i, j, [2]uint64{from, to})
}

// covers reports whether [from, to) lies inside the set.
func (s intervals) covers(from, to uint64) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i][1] > from })
	return i < len(s) && s[i][0] <= from && to <= s[i][1]
}

// overlaps reports whether [from, to) meets the set.
func (s intervals) overlaps(from, to uint64) bool {
	i := sort.Search(len(s), func(i int) bool { return s[i][1] > from })
	return i < len(s) && s[i][0] < to
}

// piece is one allocation of the preload: a block live at the start, or
// a free stretch (filler) freed once every segment is built.
type piece struct {
	addr, size uint64
	filler     bool
	block      uint64 // a live block's own address (its piece may start earlier)
}

// pieces tiles a start segment with its live blocks and fillers.
func (g startSegment) pieces() []piece {
	var out []piece
	at, end := g.addr, g.addr+g.size
	add := func(p piece) {
		if p.size == 0 {
			return
		}
		for g.small && p.filler && p.size > largeThreshold { // a small-pool request is at most 1 MiB
			out = append(out, piece{p.addr, largeThreshold, true, 0})
			p.addr, p.size = p.addr+largeThreshold, p.size-largeThreshold
		}
		if n := len(out); p.filler && !g.small && p.size <= largeThreshold && n > 0 {
			out[n-1].size += p.size // too small to ask of the large pool
			return
		}
		if n := len(out); n > 0 && out[n-1].filler && !g.small && out[n-1].size <= largeThreshold {
			p.addr, p.size = out[n-1].addr, p.size+out[n-1].size // the first stretch, too small alone
			out = out[:n-1]
		}
		out = append(out, p)
	}
	for _, b := range g.blocks {
		if b.addr < at {
			continue // overlaps the one before: sizes were estimated
		}
		add(piece{at, b.addr - at, true, 0})
		size := min(b.size, end-b.addr)
		add(piece{b.addr, size, false, b.addr})
		at = b.addr + size
	}
	add(piece{at, end - at, true, 0})
	return out
}

// preload is the ops that rebuild the start state, each on its segment's
// stream (stream gets the stream of every block live then, by op id), the
// ids of those blocks (by address), the segment events it makes, and the
// next free op id.
func preload(segs []startSegment, firstID int, stream map[int]uint64) (ops []trace.Op, liveIDs map[uint64]int, segEvents []Event, next int) {
	liveIDs = map[uint64]int{}
	id := firstID
	var fillers []trace.Op
	for _, g := range segs {
		create := g.size
		if g.small {
			create = largeThreshold
		}
		ops = append(ops, trace.Op{Op: "alloc", ID: id, Size: create, Stream: g.stream}, trace.Op{Op: "free", ID: id, Stream: g.stream})
		id++
		segEvents = append(segEvents, Event{Action: "segment_alloc", Addr: g.addr, Size: g.size, Stream: g.stream})
		for _, p := range g.pieces() {
			ops = append(ops, trace.Op{Op: "alloc", ID: id, Size: p.size, Stream: g.stream})
			if p.filler {
				fillers = append(fillers, trace.Op{Op: "free", ID: id, Stream: g.stream})
			} else {
				liveIDs[p.block] = id
				stream[id] = g.stream
			}
			id++
		}
	}
	ops = append(ops, fillers...)
	return ops, liveIDs, segEvents, id
}

func roundUp(n, m uint64) uint64 { return (n + m - 1) / m * m }
