package allocator

import (
	"cmp"
	"slices"
)

// SegmentInfo is one segment of torch.cuda.memory_snapshot().
type SegmentInfo struct {
	Device        int
	Stream        uint64 // the CUDA stream the segment was allocated for
	Address       uint64
	TotalSize     uint64
	AllocatedSize uint64
	ActiveSize    uint64
	RequestedSize uint64
	Small         bool // segment_type "small", else "large"
	Expandable    bool // is_expandable: a mapped run of an expandable segment
	Blocks        []BlockInfo
}

// BlockInfo is one block of a SegmentInfo.
type BlockInfo struct {
	Address       uint64
	Size          uint64
	RequestedSize uint64
	State         string // "active_allocated", "active_pending_free" or "inactive"
}

// Block states as PyTorch names them.
const (
	StateAllocated   = "active_allocated"
	StatePendingFree = "active_pending_free" // freed, waiting for other streams' events
	StateInactive    = "inactive"
)

// Snapshot returns the segments and their blocks, by address.
func (a *Allocator) Snapshot() []SegmentInfo {
	var heads []*Block
	for _, pool := range a.allPools() {
		for c := pool.index.first(); c.ok(); c.next() {
			if b := pool.block(c); b.prev == nil || b.prev.unmapped {
				heads = append(heads, b)
			}
		}
	}
	isHead := func(b *Block) {
		if b.prev == nil || b.prev.unmapped {
			heads = append(heads, b)
		}
	}
	a.activeTable().each(isHead)
	for _, e := range a.pend.queue {
		if !slices.Contains(heads, e.b) {
			isHead(e.b)
		}
	}
	slices.SortFunc(heads, func(x, y *Block) int { return cmp.Compare(x.ptr, y.ptr) })
	segs := make([]SegmentInfo, 0, len(heads))
	for _, h := range heads {
		s := SegmentInfo{Device: a.index, Stream: h.pool.stream, Address: h.ptr, Small: h.pool.isSmall, Expandable: h.seg != nil}
		n := 0
		for b := h; b != nil && !b.unmapped; b = b.next {
			n++
		}
		s.Blocks = make([]BlockInfo, 0, n)
		for b := h; b != nil && !b.unmapped; b = b.next {
			bi := BlockInfo{Address: b.ptr, Size: b.size, RequestedSize: b.requestedSize, State: StateInactive}
			s.TotalSize += b.size
			switch {
			case b.eventCount > 0:
				bi.State = StatePendingFree
				s.ActiveSize += b.size
				s.RequestedSize += b.requestedSize
			case b.allocated:
				bi.State = StateAllocated
				s.AllocatedSize += b.size
				s.ActiveSize += b.size
				s.RequestedSize += b.requestedSize
			}
			s.Blocks = append(s.Blocks, bi)
		}
		segs = append(segs, s)
	}
	return segs
}

// FreeBlocks counts the segment's cached (inactive) blocks.
func (s *SegmentInfo) FreeBlocks() int {
	n := 0
	for _, b := range s.Blocks {
		if b.State == StateInactive {
			n++
		}
	}
	return n
}
