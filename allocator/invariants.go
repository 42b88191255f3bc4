package allocator

import "fmt"

// CheckInvariants verifies the allocator's bookkeeping against its blocks:
// the blocks of each segment tile it, no two free neighbours are left
// unmerged, the cached sets hold exactly the free blocks, and the current
// stats equal what the blocks say. It returns the first violation.
func (a *Allocator) CheckInvariants() error {
	var want Stats
	for _, seg := range a.Snapshot() {
		small := seg.Small
		if !seg.Expandable {
			want.Segment.increase(small, 1)
		}
		want.ReservedBytes.increase(small, int64(seg.TotalSize))
		addr := seg.Address
		for i, b := range seg.Blocks {
			if b.Address != addr {
				return fmt.Errorf("segment %#x: block %d at %#x, want %#x", seg.Address, i, b.Address, addr)
			}
			addr += b.Size
			if b.Size%kMinBlockSize != 0 {
				return fmt.Errorf("block %#x: size %d is not a multiple of 512", b.Address, b.Size)
			}
			if b.State == StateAllocated {
				want.Allocation.increase(small, 1)
				want.AllocatedBytes.increase(small, int64(b.Size))
				want.RequestedBytes.increase(small, int64(b.RequestedSize))
				continue
			}
			if b.State == StatePendingFree { // freed, not cached: neither allocated nor inactive
				want.RequestedBytes.increase(small, int64(b.RequestedSize))
				continue
			}
			if i > 0 && seg.Blocks[i-1].State == StateInactive {
				return fmt.Errorf("block %#x: free neighbours not merged", b.Address)
			}
			if len(seg.Blocks) > 1 && !seg.Expandable {
				want.InactiveSplit.increase(small, 1)
				want.InactiveSplitBytes.increase(small, int64(b.Size))
			}
		}
	}
	for _, pool := range append(a.pools(true), a.pools(false)...) {
		if err := pool.index.check(); err != nil {
			return err
		}
		for c := pool.index.first(); c.ok(); c.next() {
			e := c.entry()
			if b := pool.block(c); b.allocated || e.size != b.size || e.ptr != b.ptr || b.pool != pool {
				return fmt.Errorf("pool entry %#x is stale", e.ptr)
			}
			if pool.index.find(*e).leaf == nil {
				return fmt.Errorf("pool entry %#x is not found by its key", e.ptr)
			}
		}
	}
	st, want := a.Stats(), want.settled()
	if got := int64(a.activeTable().n); got != st.Allocation[bucketAll].Current {
		return fmt.Errorf("active: %d blocks, stat says %d", got, st.Allocation[bucketAll].Current)
	}
	checks := []struct {
		name      string
		got, want *StatArray
	}{
		{"allocation", &st.Allocation, &want.Allocation},
		{"allocated_bytes", &st.AllocatedBytes, &want.AllocatedBytes},
		{"requested_bytes", &st.RequestedBytes, &want.RequestedBytes},
		{"segment", &st.Segment, &want.Segment},
		{"reserved_bytes", &st.ReservedBytes, &want.ReservedBytes},
		{"inactive_split", &st.InactiveSplit, &want.InactiveSplit},
		{"inactive_split_bytes", &st.InactiveSplitBytes, &want.InactiveSplitBytes},
	}
	for _, c := range checks {
		for k := range c.got {
			if c.got[k].Current != c.want[k].Current {
				return fmt.Errorf("%s.%s.current = %d, blocks say %d", c.name, bucketNames[k], c.got[k].Current, c.want[k].Current)
			}
		}
	}
	if uint64(st.ReservedBytes[bucketAll].Current) != a.totalAllocated {
		return fmt.Errorf("reserved %d != total allocated %d", st.ReservedBytes[bucketAll].Current, a.totalAllocated)
	}
	// With expandable segments PyTorch checks the limit against the
	// segment size of the request but maps whole pages, which can pass
	// the limit by less than one large page.
	slack := uint64(0)
	if a.cfg.ExpandableSegments {
		slack = a.cfg.LargeSegmentSize
	}
	if a.hasLimit && a.totalAllocated > a.limit+slack {
		return fmt.Errorf("reserved %d exceeds the limit %d", a.totalAllocated, a.limit)
	}
	return nil
}
