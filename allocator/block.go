package allocator

import "math/bits"

// A Block is a contiguous range of a segment: handed out (allocated) or
// cached (in its pool's free set). Blocks of one segment form a list in
// address order.
//
// The fields a malloc and a free read are first, and the order leaves no
// padding: 80 bytes, so that more blocks stay in the first-level cache
// and a block's key and neighbours share a cache line.
type Block struct {
	ptr        uint64
	size       uint64
	prev, next *Block
	allocated  bool
	unmapped   bool   // an unmapped range of an expandable segment
	id         uint32 // index in the allocator's blockArena
	pool       *BlockPool
	seg        *expandableSegment // nil unless in an expandable segment
	// requestedSize is the last request this Block object served; kept
	// after free.
	requestedSize uint64
	gcCountBase   int64 // pool.freeBlocksCalls when last cached
	// eventCount is the events a freed block waits for (event_count):
	// while it is above 0 the block stays marked allocated, out of its
	// pool and unmerged, and shows as active_pending_free.
	eventCount int32
}

// blockArena owns every Block of an allocator and recycles them, so that
// pools can refer to blocks by index: their entries hold no pointers for
// the garbage collector to scan.
type blockArena struct {
	blocks []*Block
	free   []uint32
}

func (ar *blockArena) get(id uint32) *Block { return ar.blocks[id] }

// alloc hands out a Block of pool at ptr of size bytes, its other
// fields cleared: a recycled one when there is one.
func (ar *blockArena) alloc(pool *BlockPool, ptr, size uint64) *Block {
	var b *Block
	if n := len(ar.free); n > 0 {
		b = ar.blocks[ar.free[n-1]]
		ar.free = ar.free[:n-1]
	} else {
		b = &Block{id: uint32(len(ar.blocks))}
		ar.blocks = append(ar.blocks, b)
	}
	*b = Block{id: b.id, pool: pool, ptr: ptr, size: size}
	return b
}

func (ar *blockArena) release(b *Block) {
	ar.free = append(ar.free, b.id)
}

// isSplit reports whether the block shares its segment with others. It
// takes no branch: on the hot path whether a block has a neighbour is a
// coin toss.
func (b *Block) isSplit() bool { return bit(b.prev != nil)|bit(b.next != nil) != 0 }

// bit is 1 for true and 0 for false: a move of the flag, without a branch.
func bit(c bool) int {
	if c {
		return 1
	}
	return 0
}

// A BlockPool is PyTorch's BlockPool: the cached (free) blocks of one
// size class, ordered by (size, address) so that the first block of at
// least a size is its best fit.
type BlockPool struct {
	index           blockIndex
	arena           *blockArena
	unmapped        []*Block // unmapped ranges of expandable segments, by address
	pageSize        uint64   // expandable segments' page: 2 MiB small, large_segment_size large
	isSmall         bool
	stream          uint64 // the CUDA stream whose blocks these are
	freeBlocksCalls *int64 // get_free_blocks_call_count of the pool's kind, for GC ageing
}

// poolEntry keeps a cached block's key beside it, so the search reads
// one contiguous array instead of chasing pointers.
type poolEntry struct {
	size, ptr uint64
	id        uint32
}

func entryOf(b *Block) poolEntry { return poolEntry{b.size, b.ptr, b.id} }

// block returns the cached block at c.
func (p *BlockPool) block(c poolCursor) *Block { return p.arena.get(c.entry().id) }

// len is how many blocks the pool caches.
func (p *BlockPool) len() int { return p.index.n }

// lowerBound returns the first cached block >= (size, ptr), or the end.
func (p *BlockPool) lowerBound(size, ptr uint64) poolCursor { return p.index.lowerBound(size, ptr) }

// noEntry fills a leaf's unused entries: its key is above every block's.
var noEntry = poolEntry{size: ^uint64(0), ptr: ^uint64(0)}

// below is 1 when the entry's key is less than (size, ptr), else 0.
func (e *poolEntry) below(size, ptr uint64) int {
	_, borrow := bits.Sub64(e.ptr, ptr, 0)
	_, borrow = bits.Sub64(e.size, size, borrow)
	return int(borrow)
}

// insert caches b under its current key.
func (p *BlockPool) insert(b *Block) {
	b.gcCountBase = *p.freeBlocksCalls
	p.index.insert(entryOf(b))
}

// remove takes b out of the pool, if the pool caches it; b's key must be
// the one it was cached under.
func (p *BlockPool) remove(b *Block) {
	if c := p.index.find(entryOf(b)); c.leaf != nil {
		p.index.removeAt(c)
	}
}

// rekey moves the entry at c, which was b's, to b's changed key.
func (p *BlockPool) rekey(c poolCursor, b *Block) {
	b.gcCountBase = *p.freeBlocksCalls
	p.index.rekey(c, entryOf(b))
}

// removeAt takes the block at c out of the pool.
func (p *BlockPool) removeAt(c poolCursor) { p.index.removeAt(c) }

// releasable appends the pool's blocks that release_blocks may give
// back, in order: whole segments and the blocks of expandable segments.
// It is a list that stays valid while the caller releases them.
func (p *BlockPool) releasable(dst []*Block) []*Block {
	for x := p.index.firstLeaf(); x != nil; x = x.next {
		for _, e := range x.ents[:x.n] {
			// Most cached blocks are split: the tests that end early
			// cost less here than isSplit's, which takes no branch.
			if b := p.arena.get(e.id); b.seg != nil || b.prev == nil && b.next == nil {
				dst = append(dst, b)
			}
		}
	}
	return dst
}

// cached appends the pool's blocks, in order, to dst: a list that stays
// valid while the caller releases them.
func (p *BlockPool) cached(dst []*Block) []*Block {
	for c := p.index.first(); c.ok(); c.next() {
		dst = append(dst, p.block(c))
	}
	return dst
}
