package snapshot

import (
	"fmt"
	"slices"
	"sort"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// A history gives memory back to the driver (segment_free, or
// segment_unmap of expandable pages) for two reasons: the program called
// empty_cache(), or the allocator did it on its own inside an allocation
// that found no free block: garbage collection above its threshold, an
// oversize block freed under max_split_size, or the whole cache emptied
// before its last cudaMalloc retry. Only the program's releases belong to
// the program; under another config the allocator makes its own.
//
// PyTorch records the allocator's own releases inside the allocation,
// before the segment_alloc (or segment_map) and the alloc it ends with,
// or before the oom it raises; nothing else comes between (a retry's
// sync may complete pending frees, free_completed). So a run of releases
// followed by anything else is the program's. A run followed by an
// allocation's new segment or by an oom is the allocator's when it left
// a whole free segment cached (empty_cache frees every one: the run was
// garbage collection or an oversize block); it is the program's when no
// limit can have refused that segment (the reserved bytes before the
// run plus the new segment fit within the history's own peak, which the
// limit was at least) and garbage collection, which frees large segments
// before the limit is reached, cannot explain it. Otherwise both read
// the same: the run could not be attributed, and is left to the
// replaying allocator like its own.

// Releases counts a history's runs of segment releases by whose they
// were.
type Releases struct {
	User         int // the program's empty_cache: replayed
	Own          int // the allocator's own: left to the replaying allocator
	Unattributed int // either; left to the replaying allocator
	// Resolved counts the runs Replay.Resolve decided (among User and
	// Own).
	Resolved int
}

// Notes says whose the history's releases were and what the replay does
// with them; empty when it has none.
func (r Releases) Notes() []string {
	var n []string
	for _, part := range []struct {
		count int
		what  string
	}{
		{r.User, "segment releases that were the program's empty_cache, replayed"},
		{r.Own, "the allocator's own releases, inside allocations that found no room, left to the replaying allocator"},
		{r.Resolved, "releases decided by replaying the history at its recorded limit"},
		{r.Unattributed, "releases that could not be attributed (each stands just before an allocation that took a new segment or failed, where the allocator releases on its own and where a program's empty_cache would look the same), treated as the allocator's"},
	} {
		if part.count > 0 {
			n = append(n, fmt.Sprintf("%s: %d", part.what, part.count))
		}
	}
	return n
}

// whose is whose a run of releases was.
type whose uint8

const (
	byProgram    whose = iota // its empty_cache
	byAllocator               // the allocator's own
	unattributed              // either
)

// releaseRun is a run of release events of a history (free_completed
// events may come between, from a sync), and what follows it.
type releaseRun struct {
	reservedBefore uint64 // bytes reserved before the run
	firstEvent     int    // the index of its first event among the segment events
	event          int    // the index of its first event in the history
	small          bool   // it frees a small-pool segment
	expandable     bool   // it unmaps expandable pages
}

// add takes one event of the run.
func (run *releaseRun) add(e *eventRecord) {
	run.small = run.small || (e.action == actSegmentFree && e.size == 2<<20)
	run.expandable = run.expandable || e.action == actSegmentUnmap
}

// attribute decides whose the run was, from the events after it (next
// and the one after that; noEvent at the history's end), under the
// history's config, given the most the history ever reserved and whether
// a whole free segment stays cached after the run.
func (run releaseRun) attribute(next, after *eventRecord, conf allocator.Config, peak uint64, idleLeft bool) whose {
	var newSegment uint64 // the segment of an allocation's segment_alloc
	if next.action == actSegmentAlloc && after.action == actAlloc && after.addr >= next.addr && after.addr < next.addr+next.size {
		newSegment = next.size
	}
	switch {
	case newSegment == 0 && next.action != actOOM && next.action != actSegmentMap:
		return byProgram // the allocator releases only inside an allocation
	case idleLeft && !run.expandable:
		return byAllocator // empty_cache leaves no whole free segment
	case newSegment == 0 || run.expandable:
		return unattributed
	}
	// within the peak, no limit refused the segment; garbage collection
	// frees large segments only
	if run.reservedBefore+newSegment <= peak && (conf.GCThreshold == 0 || run.small) {
		return byProgram
	}
	return unattributed
}

// cacheTracker follows, from a history's events alone, the segments the
// allocator holds (non-expandable ones), how many live blocks each has,
// and the bytes reserved.
type cacheTracker struct {
	starts   []uint64 // segment addresses, sorted
	segs     map[uint64]*trackedSegment
	idle     int // segments with no live block: whole free segments in the cache
	reserved uint64
}

type trackedSegment struct {
	size uint64
	live int
}

// newCacheTracker starts from a late history's start segments and their
// live blocks (none for a whole history).
func newCacheTracker(start []startSegment) *cacheTracker {
	c := &cacheTracker{segs: map[uint64]*trackedSegment{}}
	for _, g := range start {
		c.addSegment(g.addr, g.size)
		for _, b := range g.blocks {
			c.block(b.addr, +1)
		}
	}
	return c
}

// addSegment tracks a segment taken from the driver, free as yet.
func (c *cacheTracker) addSegment(addr, size uint64) {
	i, found := slices.BinarySearch(c.starts, addr)
	if found {
		return
	}
	c.starts = slices.Insert(c.starts, i, addr)
	c.segs[addr] = &trackedSegment{size: size}
	c.idle++
	c.reserved += size
}

// removeSegment drops a segment given back.
func (c *cacheTracker) removeSegment(addr, size uint64) {
	c.reserved -= min(size, c.reserved)
	g, ok := c.segs[addr]
	if !ok {
		return
	}
	if g.live == 0 {
		c.idle--
	}
	delete(c.segs, addr)
	i, _ := slices.BinarySearch(c.starts, addr)
	c.starts = slices.Delete(c.starts, i, i+1)
}

// block counts a block at addr coming (+1) or going (-1) in the segment
// that holds it, if one is tracked.
func (c *cacheTracker) block(addr uint64, delta int) {
	i := sort.Search(len(c.starts), func(i int) bool { return c.starts[i] > addr }) - 1
	if i < 0 {
		return
	}
	g := c.segs[c.starts[i]]
	if addr >= c.starts[i]+g.size || g.live+delta < 0 {
		return
	}
	if g.live == 0 {
		c.idle--
	}
	g.live += delta
	if g.live == 0 {
		c.idle++
	}
}

// event follows one event of the history.
func (c *cacheTracker) event(e *eventRecord) {
	switch e.action {
	case actSegmentAlloc:
		c.addSegment(e.addr, e.size)
	case actSegmentFree:
		c.removeSegment(e.addr, e.size)
	case actSegmentMap:
		c.reserved += e.size
	case actSegmentUnmap:
		c.reserved -= min(e.size, c.reserved)
	case actAlloc:
		c.block(e.addr, +1)
	case actFreeCompleted:
		c.block(e.addr, -1)
	}
}

// peakReserved is the most a history reserved, from its start state on.
func peakReserved(start []startSegment, h *eventList) uint64 {
	c := newCacheTracker(start)
	peak := c.reserved
	for i := range h.len() {
		switch e := h.record(i); e.action {
		case actSegmentAlloc, actSegmentFree, actSegmentMap, actSegmentUnmap:
			c.event(e)
			peak = max(peak, c.reserved)
		}
	}
	return peak
}
