package allocator

import "math/bits"

// A Block is a contiguous range of a segment: handed out (allocated) or
// cached (in its pool's free set). Blocks of one segment form a list in
// address order.
type Block struct {
	ptr           uint64
	size          uint64
	requestedSize uint64 // the last request this Block object served; kept after free
	pool          *BlockPool
	allocated     bool
	prev, next    *Block
	gcCountBase   int64              // pool.freeBlocksCalls when last cached
	id            uint32             // index in the allocator's blockArena
	seg           *expandableSegment // nil unless in an expandable segment
	unmapped      bool               // an unmapped range of an expandable segment
}

// blockArena owns every Block of an allocator and recycles them, so that
// pools can refer to blocks by index: their arrays hold no pointers, and
// shifting them is a plain memmove the garbage collector never scans.
type blockArena struct {
	blocks []*Block
	free   []uint32
	slot   []int32 // by block id: its index in the pool that caches it
}

func (ar *blockArena) get(id uint32) *Block { return ar.blocks[id] }

func (ar *blockArena) alloc() *Block {
	if n := len(ar.free); n > 0 {
		id := ar.free[n-1]
		ar.free = ar.free[:n-1]
		b := ar.blocks[id]
		*b = Block{id: id}
		return b
	}
	b := &Block{id: uint32(len(ar.blocks))}
	ar.blocks = append(ar.blocks, b)
	ar.slot = append(ar.slot, -1)
	return b
}

func (ar *blockArena) release(b *Block) {
	ar.free = append(ar.free, b.id)
}

// isSplit reports whether the block shares its segment with others.
func (b *Block) isSplit() bool { return b.prev != nil || b.next != nil }

// A BlockPool is PyTorch's BlockPool: the cached (free) blocks of one
// size class, ordered by (size, address) so that the first block of at
// least a size is its best fit.
type BlockPool struct {
	blocks          []poolEntry // sorted by (size, ptr)
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

// block returns the i-th cached block.
func (p *BlockPool) block(i int) *Block { return p.arena.get(p.blocks[i].id) }

func (e *poolEntry) less(size, ptr uint64) bool {
	return e.size < size || (e.size == size && e.ptr < ptr)
}

// lowerBound returns the index of the first cached block >= (size, ptr).
func (p *BlockPool) lowerBound(size, ptr uint64) int {
	return p.search(0, len(p.blocks), size, ptr)
}

// search is lowerBound within blocks[lo:hi]. It has no branch on the
// data: each step compares (size, ptr) keys as one 128-bit number (the
// borrow of a subtraction) and moves by a mask, since pools are a few
// dozen blocks and a mispredicted branch per step cost more than the
// steps.
func (p *BlockPool) search(lo, hi int, size, ptr uint64) int {
	bl := p.blocks[lo:hi]
	n := len(bl)
	if n == 0 {
		return lo
	}
	base := 0
	for n > 1 {
		half := n >> 1
		base += half & -bl[base+half].below(size, ptr)
		n -= half
	}
	return lo + base + bl[base].below(size, ptr)
}

// below is 1 when the entry's key is less than (size, ptr), else 0.
func (e *poolEntry) below(size, ptr uint64) int {
	_, borrow := bits.Sub64(e.ptr, ptr, 0)
	_, borrow = bits.Sub64(e.size, size, borrow)
	return int(borrow)
}

// Every entry's index is kept in the arena's slot table as it moves, so
// that a cached block's entry is found without a search (a free block's
// neighbours, on every free).

// put places e at index i of the pool.
func (p *BlockPool) put(i int, e poolEntry) {
	p.blocks[i] = e
	p.arena.slot[e.id] = int32(i)
}

// renumber records the indices of entries [from, to) after a bulk move.
func (p *BlockPool) renumber(from, to int) {
	for k := from; k < to; k++ {
		p.arena.slot[p.blocks[k].id] = int32(k)
	}
}

func (p *BlockPool) insert(b *Block) {
	b.gcCountBase = *p.freeBlocksCalls
	i := p.lowerBound(b.size, b.ptr)
	p.blocks = append(p.blocks, poolEntry{})
	bl := p.blocks
	if len(bl)-i > shortMove {
		copy(bl[i+1:], bl[i:])
		p.renumber(i+1, len(bl))
	} else {
		for k := len(bl) - 1; k > i; k-- {
			p.put(k, bl[k-1])
		}
	}
	p.put(i, poolEntry{b.size, b.ptr, b.id})
}

// shortMove is how many entries a pool shifts by hand rather than with
// memmove, whose call costs more for a few dozen.
const shortMove = 64

// rekey moves the entry at index i to b's (changed) key, as a removal and
// an insert_into_blocks in one shift of the entries in between.
func (p *BlockPool) rekey(i int, b *Block) {
	b.gcCountBase = *p.freeBlocksCalls
	e := poolEntry{b.size, b.ptr, b.id}
	bl := p.blocks
	// Blocks move a few places in pools of a few dozen: a walk costs less
	// than a search and a call to memmove. A long way goes at once.
	for k := 0; i+1 < len(bl) && bl[i+1].less(e.size, e.ptr); k++ { // moves up
		if k == shortMove {
			j := p.search(i+1, len(bl), e.size, e.ptr)
			copy(bl[i:j-1], bl[i+1:j])
			p.renumber(i, j-1)
			i = j - 1
			break
		}
		p.put(i, bl[i+1])
		i++
	}
	for k := 0; i > 0 && !bl[i-1].less(e.size, e.ptr); k++ { // moves down
		if k == shortMove {
			j := p.search(0, i, e.size, e.ptr)
			copy(bl[j+1:i+1], bl[j:i])
			p.renumber(j+1, i+1)
			i = j
			break
		}
		p.put(i, bl[i-1])
		i--
	}
	p.put(i, e)
}

// indexOf is the index of b's entry, or -1 when the pool does not cache
// it.
func (p *BlockPool) indexOf(b *Block) int {
	if i := int(p.arena.slot[b.id]); i >= 0 && i < len(p.blocks) && p.blocks[i].id == b.id {
		return i
	}
	return -1
}

func (p *BlockPool) remove(b *Block) {
	if i := p.indexOf(b); i >= 0 {
		p.removeAt(i)
	}
}

// removeAt drops the i-th cached block.
func (p *BlockPool) removeAt(i int) {
	bl := p.blocks
	p.arena.slot[bl[i].id] = -1
	if len(bl)-i > shortMove {
		copy(bl[i:], bl[i+1:])
		p.blocks = bl[:len(bl)-1]
		p.renumber(i, len(bl)-1)
		return
	}
	for ; i+1 < len(bl); i++ {
		p.put(i, bl[i+1])
	}
	p.blocks = bl[:len(bl)-1]
}
