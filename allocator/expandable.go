package allocator

import (
	"errors"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// An expandableSegment is one virtual address range of a pool
// (expandable_segments:True): large enough for the whole device, with
// physical pages mapped into it on demand, so that free neighbours always
// merge and empty_cache can return the pages of any free block.
type expandableSegment struct {
	ptr, size uint64 // the reserved range
}

// growSize is how large b could become: its size plus the unmapped range
// right after it.
func (b *Block) growSize() uint64 {
	if b.next != nil && b.next.unmapped {
		return b.size + b.next.size
	}
	return b.size
}

func (p *BlockPool) insertUnmapped(b *Block) {
	i := 0
	for i < len(p.unmapped) && p.unmapped[i].ptr < b.ptr {
		i++
	}
	p.unmapped = append(p.unmapped, nil)
	copy(p.unmapped[i+1:], p.unmapped[i:])
	p.unmapped[i] = b
}

func (p *BlockPool) removeUnmapped(b *Block) {
	for i, u := range p.unmapped {
		if u == b {
			p.unmapped = append(p.unmapped[:i], p.unmapped[i+1:]...)
			return
		}
	}
}

func roundUp(n, unit uint64) uint64 { return (n + unit - 1) / unit * unit }

// allocExpandable is try_allocate_expandable_block: find free space that,
// with unmapped space after it, holds s bytes (or start a new segment),
// map the pages it lacks, and return it out of the pool. A nil block with
// a nil error means the device had no memory for the pages.
func (a *Allocator) allocExpandable(pool *BlockPool, s uint64) (*Block, error) {
	var c *Block
	for _, u := range pool.unmapped {
		start := u
		if u.prev != nil && !u.prev.allocated {
			start = u.prev
		}
		var sum uint64
		for x := start; x != nil && !x.allocated && sum < s; x = x.next {
			sum += x.size
		}
		if sum >= s {
			c = start
			break
		}
	}
	if c == nil {
		var err error
		if c, err = a.newExpandableSegment(pool); c == nil || err != nil {
			return nil, err
		}
	}
	if c.unmapped {
		m, err := a.mapBlock(c, min(c.size, s))
		if m == nil || err != nil {
			return nil, err
		}
		c = m
	}
	for c.size < s {
		m, err := a.mapBlock(c.next, min(s-c.size, c.next.size))
		if m == nil || err != nil {
			return nil, err
		}
		c = m
	}
	pool.remove(c)
	return c, nil
}

// newExpandableSegment reserves a pool's range: the device's memory plus
// an eighth, in whole pages, all unmapped.
func (a *Allocator) newExpandableSegment(pool *BlockPool) (*Block, error) {
	total := a.dev.TotalMemory()
	size := roundUp(total+total/8, pool.pageSize)
	ptr, err := a.dev.ReserveAddress(size)
	if errors.Is(err, device.ErrOutOfMemory) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	b := a.newBlock(pool, ptr, size)
	b.seg = &expandableSegment{ptr: ptr, size: size}
	b.unmapped = true
	pool.insertUnmapped(b)
	return b, nil
}

// mapBlock is map_block: map whole pages for the first n bytes of the
// unmapped block b, which then merges with free mapped neighbours and
// joins the pool. It returns the mapped block, or nil when the device had
// no memory.
func (a *Allocator) mapBlock(b *Block, n uint64) (*Block, error) {
	pool := b.pool
	mapped := roundUp(n, pool.pageSize)
	err := a.dev.MapPages(b.ptr, mapped)
	if errors.Is(err, device.ErrOutOfMemory) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	pool.removeUnmapped(b)
	if mapped < b.size {
		rest := a.newBlock(pool, b.ptr+mapped, b.size-mapped)
		rest.seg, rest.unmapped = b.seg, true
		rest.prev, rest.next = b, b.next
		if b.next != nil {
			b.next.prev = rest
		}
		b.next = rest
		b.size = mapped
		pool.insertUnmapped(rest)
	}
	b.unmapped = false
	for _, nb := range [2]*Block{b.prev, b.next} {
		if nb != nil && !nb.allocated && !nb.unmapped {
			pool.remove(nb)
			a.merge(b, nb)
			a.recycle(nb)
		}
	}
	pool.insert(b)
	a.totalAllocated += mapped
	a.stats.ReservedBytes.increase(pool.isSmall, int64(mapped))
	a.stats.NumDeviceAlloc++
	return b, nil
}

// unmapBlock is unmap_block: give back the whole pages inside the free
// block b. What is left of b before and after them stays cached.
func (a *Allocator) unmapBlock(b *Block) error {
	pool, page := b.pool, b.pool.pageSize
	base := b.seg.ptr
	start := base + roundUp(b.ptr-base, page)
	end := base + (b.ptr+b.size-base)/page*page
	if end <= start {
		return nil
	}
	if err := a.dev.UnmapPages(start, end-start); err != nil {
		return err
	}
	pool.remove(b)
	if start > b.ptr {
		before := a.newBlock(pool, b.ptr, start-b.ptr)
		before.seg = b.seg
		before.prev, before.next = b.prev, b
		if b.prev != nil {
			b.prev.next = before
		}
		b.prev = before
		pool.insert(before)
	}
	if end < b.ptr+b.size {
		after := a.newBlock(pool, end, b.ptr+b.size-end)
		after.seg = b.seg
		after.prev, after.next = b, b.next
		if b.next != nil {
			b.next.prev = after
		}
		b.next = after
		pool.insert(after)
	}
	b.ptr, b.size, b.unmapped = start, end-start, true
	for _, nb := range [2]*Block{b.prev, b.next} {
		if nb != nil && nb.unmapped {
			pool.removeUnmapped(nb)
			a.merge(b, nb)
			a.recycle(nb)
		}
	}
	a.totalAllocated -= end - start
	a.stats.ReservedBytes.decrease(pool.isSmall, int64(end-start))
	a.stats.NumDeviceFree++
	if b.prev == nil && b.next == nil { // the whole range is unmapped: drop it
		if err := a.dev.ReleaseAddress(b.seg.ptr, b.seg.size); err != nil {
			return err
		}
		a.recycle(b)
		return nil
	}
	pool.insertUnmapped(b)
	return nil
}

// ExpandableInfo describes one expandable segment's address range.
type ExpandableInfo struct {
	Small    bool
	Address  uint64
	Reserved uint64 // address space reserved
	Mapped   uint64 // of which backed by mapped pages
}

// Expandable lists the expandable segments, small pool first.
func (a *Allocator) Expandable() []ExpandableInfo {
	var out []ExpandableInfo
	for _, pool := range append(a.pools(true), a.pools(false)...) {
		start := len(out)
		for _, u := range pool.unmapped { // by address, so segments come in order
			if n := len(out); n > start && out[n-1].Address == u.seg.ptr {
				out[n-1].Mapped -= u.size
				continue
			}
			out = append(out, ExpandableInfo{Small: pool.isSmall, Address: u.seg.ptr, Reserved: u.seg.size, Mapped: u.seg.size - u.size})
		}
	}
	return out
}
