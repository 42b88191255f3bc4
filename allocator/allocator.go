// Package allocator is a Go implementation of PyTorch's CUDA caching
// allocator (c10/cuda/CUDACachingAllocator.cpp, PyTorch 2.11) for one
// device and any number of streams: the same rounding, pools, best-fit
// search, splitting, merging, cache release and retry, garbage
// collection, statistics and out-of-memory message, so that any sequence
// of allocations and frees reports what PyTorch reports. It asks a
// device.Device for segments and knows nothing of tensors.
package allocator

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// Allocator is the caching allocator of one device (PyTorch's
// DeviceCachingAllocator).
type Allocator struct {
	dev   device.Device
	index int // the device index shown in messages
	cfg   Config
	// streams are the pools of each stream, by stream, ascending;
	// streams[0] is the default stream's (0). PyTorch keeps one small and
	// one large pool ordered by stream first, so that a request sees its
	// own stream's blocks only, and walks them in that order when it
	// releases cache: pools per stream, visited in order, are the same.
	streams []*streamPools
	// freeBlocksCalls are get_free_blocks_call_count of the small and
	// the large pool, shared by the streams.
	freeBlocksCalls [2]int64
	// active is the handed-out blocks by address, for the calls that
	// name a block by its address. MallocHandle and FreeHandle, which
	// name it by handle, leave it stale instead of paying its hashing on
	// every call; activeTable rebuilds it when it is next needed.
	active      activeSet
	activeStale bool
	stats       Stats

	totalAllocated uint64 // bytes obtained from the device
	limit          uint64 // allowed_memory_maximum; valid when hasLimit
	hasLimit       bool
	refusals       uint64 // new segments the device or the limit refused (DeviceRefusals)

	divided bool // cfg rounds some sizes by roundup_power2_divisions

	arena blockArena // every Block, recycled, so steady state allocates nothing
	// scratch lists the blocks a release walks, reused from call to call.
	scratch []*Block
	pend    pendingState // frees waiting for other streams' events
	// onTie, when set, is told of each tie best fit breaks by address
	// (SetTieObserver).
	onTie func(x, y uint64)
}

// New returns the allocator of device number index, with config cfg.
func New(dev device.Device, index int, cfg Config) *Allocator {
	a := &Allocator{
		dev:     dev,
		index:   index,
		cfg:     cfg,
		divided: cfg.divided(),
	}
	a.streams = []*streamPools{a.newStreamPools(0)}
	a.stats.MaxSplitSize = int64(cfg.MaxSplitSize) // SIZE_MAX shows as -1
	if cfg.MemoryFraction < 1 {
		a.SetMemoryFraction(cfg.MemoryFraction) //nolint:errcheck // validated by ParseConfig
	}
	return a
}

// streamPools are one stream's large and small pools, in that order, so
// that a pool is picked by a flag's bit, without a branch (small and
// large requests come in random turns).
type streamPools [2]BlockPool

// pool is the small or the large pool.
func (sp *streamPools) pool(small bool) *BlockPool { return &sp[bit(small)] }

func (a *Allocator) newStreamPools(stream uint64) *streamPools {
	return &streamPools{
		{arena: &a.arena, pageSize: a.cfg.LargeSegmentSize, stream: stream, freeBlocksCalls: &a.freeBlocksCalls[1]},
		{isSmall: true, arena: &a.arena, pageSize: kSmallBuffer, stream: stream, freeBlocksCalls: &a.freeBlocksCalls[0]},
	}
}

// poolsOf returns the pools of stream, made on its first use. The
// default stream's are first, without a search (small enough to inline).
func (a *Allocator) poolsOf(stream uint64) *streamPools {
	if stream == 0 {
		return a.streams[0]
	}
	return a.streamPools(stream)
}

// streamPools is poolsOf for a stream other than the default.
func (a *Allocator) streamPools(stream uint64) *streamPools {
	i, found := slices.BinarySearchFunc(a.streams, stream, func(p *streamPools, s uint64) int { return cmp.Compare(p[0].stream, s) })
	if !found {
		a.streams = slices.Insert(a.streams, i, a.newStreamPools(stream))
	}
	return a.streams[i]
}

// pools lists every pool of one kind, stream by stream.
func (a *Allocator) pools(small bool) []*BlockPool {
	out := make([]*BlockPool, len(a.streams))
	for i, p := range a.streams {
		out[i] = p.pool(small)
	}
	return out
}

// allPools lists every pool, large ones first.
func (a *Allocator) allPools() []*BlockPool { return append(a.pools(false), a.pools(true)...) }

// Stats returns a copy of the current statistics. Active is allocated
// plus the blocks whose free waits for another stream's events (the hot
// path keeps allocated alone).
func (a *Allocator) Stats() Stats {
	s := a.stats.settled()
	s.Active, s.ActiveBytes = s.Allocation, s.AllocatedBytes
	if a.pend.events != nil {
		withPending(&s.Active, a.pend.blocks, &a.pend.activeBlocks)
		withPending(&s.ActiveBytes, a.pend.bytes, &a.pend.activeBytes)
	}
	return s
}

// DeviceRefusals counts the new segments refused so far for want of
// room, by the device or by the memory fraction: each one an allocation
// that the device's capacity decided.
func (a *Allocator) DeviceRefusals() uint64 { return a.refusals }

// ErrUnknownPointer is returned by Free for an address that is not a live
// allocation.
var ErrUnknownPointer = errors.New("pointer is not allocated by this allocator")

// SetMemoryFraction is set_per_process_memory_fraction: limit the memory
// this allocator may reserve to floor(fraction × total memory). 1 removes
// the limit.
func (a *Allocator) SetMemoryFraction(fraction float64) error {
	if !(fraction >= 0 && fraction <= 1) {
		return fmt.Errorf("invalid fraction:%g. Please set within [0, 1].", fraction)
	}
	a.hasLimit = fraction < 1
	a.limit = 0
	if a.hasLimit {
		a.limit = uint64(fraction * float64(a.dev.TotalMemory()))
	}
	return nil
}

func (a *Allocator) gcEnabled() bool { return a.hasLimit && a.cfg.GCThreshold > 0 }

func (a *Allocator) newBlock(pool *BlockPool, ptr, size uint64) *Block {
	return a.arena.alloc(pool, ptr, size)
}

// recycle gives b back to the arena, which clears it when it hands it
// out again.
func (a *Allocator) recycle(b *Block) { a.arena.release(b) }

// roundSize is the config's roundSize, inline where no size is rounded
// by divisions (the default).
func (a *Allocator) roundSize(n uint64) uint64 {
	if a.divided {
		return a.cfg.roundSize(n)
	}
	return roundBlocks(n)
}

// RoundSize is the size of the block a request of size bytes takes
// (round_size, under this allocator's configuration).
func (a *Allocator) RoundSize(size uint64) uint64 { return a.roundSize(size) }

// Malloc is the allocator's malloc on the default stream: it returns the
// address of a block of at least size bytes. On out-of-memory it returns
// an *OutOfMemoryError; the cache released on the way stays released, as
// in PyTorch.
func (a *Allocator) Malloc(size uint64) (uint64, error) { return a.MallocOn(0, size) }

// MallocOn is Malloc on a CUDA stream (cudaStream_t's value; 0 is the
// default stream). A block freed by one stream serves only that stream.
func (a *Allocator) MallocOn(stream, size uint64) (uint64, error) {
	// MallocHandle marks the table by address stale; a kept table stays
	// kept here, with the new block put in it.
	stale := a.activeStale
	p, h, err := a.MallocHandle(stream, size)
	a.activeStale = stale
	if h != 0 && !stale {
		a.active.put(p, a.arena.get(uint32(h-1)))
	}
	return p, err
}

// A Handle names a live block for FreeHandle: its arena id plus one, so
// that 0 names none.
type Handle uint32

// MallocHandle is MallocOn for a caller that frees the block by its
// handle (FreeHandle), as a trace replay does: no table by address is
// kept on the way. A request of 0 bytes gives the address 0 and the
// handle 0.
func (a *Allocator) MallocHandle(stream, size uint64) (uint64, Handle, error) {
	if len(a.pend.queue) > 0 {
		a.processEvents()
	}
	if size == 0 {
		return 0, 0, nil
	}
	if size >= maxRequest {
		return 0, 0, &OutOfMemoryError{Huge: true}
	}
	s := a.roundSize(size)
	pool := a.poolsOf(stream).pool(s <= kSmallSize)
	b, at := a.getFreeBlock(pool, s)
	if b == nil {
		var err error
		if b, err = a.newSegment(pool, s, a.cfg.allocationSize(s)); err != nil {
			return 0, 0, err
		}
	}
	h := a.allocFoundBlock(b, at, s, size)
	if len(a.pend.queue) > 0 { // some block waits for its events
		a.notePendingPeaks()
	}
	a.activeStale = true
	return h.ptr, Handle(h.id + 1), nil
}

// activeTable is the handed-out blocks by address, rebuilt from the
// arena if handle calls left it stale: every block marked allocated
// whose free does not wait for events.
func (a *Allocator) activeTable() *activeSet {
	if a.activeStale {
		a.activeStale = false
		a.active = activeSet{}
		for _, b := range a.arena.blocks {
			if b.allocated && b.eventCount == 0 {
				a.active.put(b.ptr, b)
			}
		}
	}
	return &a.active
}

// newSegment runs the slow path of malloc: GC, a new segment, then
// freeing cached blocks and trying again.
func (a *Allocator) newSegment(pool *BlockPool, s, allocSize uint64) (*Block, error) {
	if a.gcEnabled() {
		if err := a.garbageCollect(); err != nil {
			return nil, err
		}
	}
	b, err := a.allocBlock(pool, s, allocSize, false)
	if b != nil || err != nil {
		return b, err
	}
	released, err := a.releaseAvailableCachedBlocks(pool, s)
	if err != nil {
		return nil, err
	}
	if released {
		if b, err = a.allocBlock(pool, s, allocSize, false); b != nil || err != nil {
			return b, err
		}
	}
	if err := a.releaseCachedBlocks(); err != nil {
		return nil, err
	}
	if b, err = a.allocBlock(pool, s, allocSize, true); b != nil || err != nil {
		return b, err
	}
	return nil, a.outOfMemory(s, allocSize)
}

// getFreeBlock is get_free_block: the best-fitting cached block and its
// place in the pool (still in it), or nil.
func (a *Allocator) getFreeBlock(pool *BlockPool, s uint64) (*Block, poolCursor) {
	if a.gcEnabled() {
		*pool.freeBlocksCalls++
	}
	c := pool.lowerBound(s, 0)
	if !c.ok() {
		return nil, poolCursor{}
	}
	b := pool.block(c)
	if b.seg != nil {
		// Prefer a block that does not sit in front of unmapped space,
		// which can grow into a larger free block later.
		for n := c; b.seg != nil; {
			if n.next(); !n.ok() {
				break
			}
			nb := pool.block(n)
			if nb.growSize() >= b.growSize() {
				break
			}
			c, b = n, nb
		}
	}
	maxSplit := a.cfg.MaxSplitSize
	// An oversize block never serves a normal request, and serves an
	// oversize one only if it is less than max_non_split_rounding larger.
	if s < maxSplit && b.size >= maxSplit {
		return nil, poolCursor{}
	}
	if s >= maxSplit && b.size >= s+a.cfg.MaxNonSplitRounding {
		return nil, poolCursor{}
	}
	if a.onTie != nil {
		a.noteTies(b, c)
	}
	return b, c
}

// SetTieObserver has f told, where best fit takes the cached block at x
// over one of the same size at y (the pool orders them by address), of
// the two: the device may not know that the driver would order them so.
func (a *Allocator) SetTieObserver(f func(x, y uint64)) { a.onTie = f }

// noteTies tells onTie of each cached block of b's size after b (at c)
// in its pool.
func (a *Allocator) noteTies(b *Block, c poolCursor) {
	for {
		if c.next(); !c.ok() || c.entry().size != b.size {
			return
		}
		a.onTie(b.ptr, c.entry().ptr)
	}
}

// allocBlock is alloc_block: a new segment of size bytes from the device.
// A nil block with a nil error means the device (or the memory fraction)
// had no room.
func (a *Allocator) allocBlock(pool *BlockPool, s, size uint64, isRetry bool) (*Block, error) {
	if isRetry {
		a.stats.NumAllocRetries++
	}
	if a.hasLimit && a.totalAllocated+size > a.limit {
		a.refusals++
		return nil, nil
	}
	if a.cfg.ExpandableSegments {
		b, err := a.allocExpandable(pool, s)
		if b == nil && err == nil {
			a.refusals++
		}
		return b, err
	}
	ptr, err := a.dev.Malloc(size)
	if errors.Is(err, device.ErrOutOfMemory) {
		a.refusals++
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	a.totalAllocated += size
	b := a.newBlock(pool, ptr, size)
	a.stats.Segment.increase(pool.isSmall, 1)
	a.stats.ReservedBytes.increase(pool.isSmall, int64(size))
	if size >= a.cfg.MaxSplitSize {
		a.stats.OversizeSegments.Increase(1)
	}
	a.stats.NumDeviceAlloc++
	return b, nil
}

// shouldSplit is should_split: a small pool's block, or one of an
// expandable segment, splits when at least a block would remain; another
// large one when the request is not oversize and more than 1 MiB would
// remain. It takes no branch on which rule applies (small and large
// requests come in random turns): the rule's remainder is looked up and
// the conditions are combined as bits.
func (a *Allocator) shouldSplit(b *Block, s uint64) bool {
	byBlock := bit(b.pool.isSmall) | bit(b.seg != nil)
	return bit(b.size-s >= splitRemainder[byBlock])&(byBlock|bit(s < a.cfg.MaxSplitSize)) != 0
}

// splitRemainder is the least remainder that splits a block: of a large
// pool's, and of a small pool's or an expandable segment's.
var splitRemainder = [2]uint64{kSmallSize + 1, kMinBlockSize}

// allocFoundBlock is alloc_found_block: split b if the rule says so and
// hand out its front, which it returns. at is b's place in its pool, or a
// cursor without a leaf for a new segment's block, which is in no pool.
func (a *Allocator) allocFoundBlock(b *Block, at poolCursor, s, orig uint64) *Block {
	small := b.pool.isSmall
	alreadySplit := b.isSplit()
	h := b
	if a.shouldSplit(b, s) {
		// The front becomes a new Block; the old object is the remainder
		// and keeps its requested_size.
		h = a.newBlock(b.pool, b.ptr, s)
		h.seg = b.seg
		h.prev, h.next = b.prev, b
		if b.prev != nil {
			b.prev.next = h
		}
		b.prev = h
		b.ptr += s
		b.size -= s
		if at.leaf != nil {
			b.pool.rekey(at, b) // the remainder stays cached under its new key
		} else {
			b.pool.insert(b)
		}
		switch {
		case b.seg != nil: // expandable blocks are never counted as inactive splits
		case alreadySplit:
			a.stats.InactiveSplitBytes.decrease(small, int64(s))
		default:
			a.stats.InactiveSplit.increase(small, 1)
			a.stats.InactiveSplitBytes.increase(small, int64(b.size))
		}
	} else {
		if at.leaf != nil {
			b.pool.removeAt(at)
		}
		if alreadySplit && b.seg == nil {
			a.stats.InactiveSplit.decrease(small, 1)
			a.stats.InactiveSplitBytes.decrease(small, int64(b.size))
		}
	}
	h.allocated = true
	h.requestedSize = orig
	a.stats.Allocation.increase(small, 1)
	a.stats.AllocatedBytes.increase(small, int64(h.size))
	a.stats.RequestedBytes.increase(small, int64(orig))
	if h.size >= a.cfg.MaxSplitSize {
		a.stats.OversizeAllocs.Increase(1)
	}
	return h
}

// Free returns an allocation to the cache. An address that is not live is
// refused with ErrUnknownPointer and changes nothing.
func (a *Allocator) Free(ptr uint64) error {
	_, err := a.FreeWaiting(ptr)
	return err
}

// FreeWaiting is Free, reporting whether the block waits for the events
// of other streams it was used on (RecordStream): its free then completes
// later, told through StreamEvents.FreeCompleted.
func (a *Allocator) FreeWaiting(ptr uint64) (waiting bool, err error) {
	b, ok := a.activeTable().take(ptr)
	if !ok {
		return false, fmt.Errorf("free(%#x): %w", ptr, ErrUnknownPointer)
	}
	return a.free(b), nil
}

// FreeHandle is Free of the block MallocHandle named h. A handle whose
// block is not live is refused with ErrUnknownPointer and changes
// nothing; a handle kept past its block's free may name a later block,
// which FreeHandle cannot tell, so each is freed once.
func (a *Allocator) FreeHandle(h Handle) error {
	b := a.handleBlock(h)
	if b == nil {
		return unknownHandle(h)
	}
	a.activeStale = true
	a.free(b)
	return nil
}

// handleBlock is the live block h names, or nil.
func (a *Allocator) handleBlock(h Handle) *Block {
	i := int(h) - 1
	if uint(i) >= uint(len(a.arena.blocks)) {
		return nil
	}
	if b := a.arena.blocks[i]; b.allocated && b.eventCount == 0 {
		return b
	}
	return nil
}

// unknownHandle is FreeHandle's error for h, apart so that FreeHandle's
// frame holds nothing for the rare case.
//
//go:noinline
func unknownHandle(h Handle) error { return fmt.Errorf("free(handle %d): %w", h, ErrUnknownPointer) }

// HandleAddress is the address of the live block h names; 0 if h names
// none.
func (a *Allocator) HandleAddress(h Handle) uint64 {
	if b := a.handleBlock(h); b != nil {
		return b.ptr
	}
	return 0
}

// free is free of the live block b, out of the active table: it reports
// whether b waits for the events of other streams it was used on.
func (a *Allocator) free(b *Block) (waiting bool) {
	small := b.pool.isSmall
	a.stats.Allocation.decrease(small, 1)
	a.stats.AllocatedBytes.decrease(small, int64(b.size))
	if b.size >= a.cfg.MaxSplitSize {
		a.stats.OversizeAllocs.Decrease(1)
	}
	if a.pend.streamUses != nil && a.deferFree(b) {
		return true
	}
	b.allocated = false
	a.freeBlock(b)
	return false
}

// freeBlock is free_block: merge b with free neighbours and cache it.
// The two neighbours are taken one after the other, not in a loop over
// both: each side's merge is then known without a test.
func (a *Allocator) freeBlock(b *Block) {
	small := b.pool.isSmall
	req, size := b.requestedSize, b.size
	var merged int64
	var at poolCursor // a merged neighbour's entry, given to b at the end
	if n := b.prev; cachedNeighbour(n) {
		at = b.pool.index.locate(n.size, n.ptr) // a free neighbour is cached
		mergePrev(b, n)
		a.recycle(n)
		merged++
	}
	if n := b.next; cachedNeighbour(n) {
		if at.leaf != nil {
			b.pool.removeAt(at) // the next neighbour's entry is kept instead
		}
		at = b.pool.index.locate(n.size, n.ptr)
		mergeNext(b, n)
		a.recycle(n)
		merged++
	}
	if at.leaf != nil {
		b.pool.rekey(at, b)
	} else {
		b.pool.insert(b)
	}
	// A split block is an inactive split again, the merged ones are not:
	// counted without a branch on whether b is split.
	split := int64(bit(b.isSplit()))
	dBlocks, dBytes := split-merged, -split&int64(b.size)-int64(b.size-size)
	if b.seg == nil && dBytes != 0 { // no change at all when no count changes
		a.stats.InactiveSplit.change(small, dBlocks)
		a.stats.InactiveSplitBytes.change(small, dBytes)
	}
	a.stats.RequestedBytes.decrease(small, int64(req))
}

// cachedNeighbour reports whether n, a block's neighbour (or nil), is
// free and mapped: cached, so that the block merges with it.
func cachedNeighbour(n *Block) bool { return n != nil && !n.allocated && !n.unmapped }

// merge absorbs the neighbour n into b; the caller has taken n's entry
// out of the pool.
func (a *Allocator) merge(b, n *Block) {
	if n == b.prev {
		mergePrev(b, n)
	} else {
		mergeNext(b, n)
	}
}

// mergePrev absorbs b's previous neighbour n into b.
func mergePrev(b, n *Block) {
	b.ptr = n.ptr
	b.prev = n.prev
	if b.prev != nil {
		b.prev.next = b
	}
	b.size += n.size
}

// mergeNext absorbs b's next neighbour n into b.
func mergeNext(b, n *Block) {
	b.next = n.next
	if b.next != nil {
		b.next.prev = b
	}
	b.size += n.size
}

// releaseBlock is release_block: give a whole free segment back to the
// device.
func (a *Allocator) releaseBlock(b *Block) error {
	if err := a.dev.Free(b.ptr); err != nil {
		return err
	}
	small := b.pool.isSmall
	a.stats.NumDeviceFree++
	a.totalAllocated -= b.size
	a.stats.Segment.decrease(small, 1)
	a.stats.ReservedBytes.decrease(small, int64(b.size))
	if b.size >= a.cfg.MaxSplitSize {
		a.stats.OversizeSegments.Decrease(1)
	}
	b.pool.remove(b)
	a.recycle(b)
	return nil
}

// releasePools is release_blocks over every stream's pool of one kind:
// free each cached block that is a whole segment, in pool order, then
// give back the pages of the free blocks of expandable segments.
func (a *Allocator) releasePools(small bool) error {
	var expandable []*Block
	for _, sp := range a.streams {
		a.scratch = sp.pool(small).releasable(a.scratch[:0])
		for _, b := range a.scratch {
			switch {
			case b.seg != nil:
				expandable = append(expandable, b)
			case !b.isSplit():
				if err := a.releaseBlock(b); err != nil {
					return err
				}
			}
		}
	}
	for _, b := range expandable {
		if err := a.unmapBlock(b); err != nil {
			return err
		}
	}
	return nil
}

// releaseCachedBlocks is release_cached_blocks, which is also what
// empty_cache does: free every fully free segment, large pool first.
func (a *Allocator) releaseCachedBlocks() error {
	a.stats.NumSyncAllStreams++
	if len(a.pend.queue) > 0 {
		a.synchronizeAndFreeEvents()
	}
	if err := a.releasePools(false); err != nil {
		return err
	}
	return a.releasePools(true)
}

// EmptyCache is torch.cuda.empty_cache() for this device.
func (a *Allocator) EmptyCache() error { return a.releaseCachedBlocks() }

// Close frees every live block and returns all memory to the device, as
// the end of a process does; the allocator is empty afterwards.
func (a *Allocator) Close() error {
	var live []uint64
	a.activeTable().each(func(b *Block) { live = append(live, b.ptr) })
	for _, p := range live {
		if err := a.Free(p); err != nil {
			return err
		}
	}
	return a.EmptyCache()
}

// releaseAvailableCachedBlocks is release_available_cached_blocks: with
// max_split_size set, free one cached oversize block big enough for the
// request, or else oversize blocks from the largest down until enough is
// freed. It reports whether enough was freed; what it freed stays freed.
func (a *Allocator) releaseAvailableCachedBlocks(pool *BlockPool, s uint64) (bool, error) {
	maxSplit := a.cfg.MaxSplitSize
	if maxSplit == NoMaxSplit {
		return false, nil
	}
	key := max(s, maxSplit)
	c := pool.lowerBound(key, 0)
	if c.ok() && pool.block(c).seg == nil {
		return true, a.releaseBlock(pool.block(c))
	}
	// Down from the largest block below the key; releasing a block moves
	// no other, so the walk is listed first.
	var released uint64
	victims := a.scratch[:0]
	for c.prev() && released < key {
		cur := pool.block(c)
		if cur.size < maxSplit {
			break
		}
		if cur.seg == nil {
			released += cur.size
			victims = append(victims, cur)
		}
	}
	a.scratch = victims
	for _, b := range victims {
		if err := a.releaseBlock(b); err != nil {
			return false, err
		}
	}
	return released >= key, nil
}

// garbageCollect is garbage_collect_cached_blocks: above
// garbage_collection_threshold of the limit, free whole cached large
// segments that have waited longest (at least the average age), pass by
// pass, until the excess is reclaimed.
func (a *Allocator) garbageCollect() error {
	threshold := uint64(a.cfg.GCThreshold * float64(a.limit))
	if a.totalAllocated <= threshold {
		return nil
	}
	target := a.totalAllocated - threshold
	pools := a.pools(false)
	calls := a.freeBlocksCalls[1]
	var totalAge float64
	count := 0
	for _, pool := range pools {
		for c := pool.index.first(); c.ok(); c.next() {
			if b := pool.block(c); !b.isSplit() {
				totalAge += float64(calls - b.gcCountBase)
				count++
			}
		}
	}
	if count == 0 {
		return nil
	}
	var reclaimed uint64
	for freed := true; reclaimed < target && freed && count > 0; {
		avg := totalAge / float64(count)
		freed = false
		for _, pool := range pools {
			a.scratch = pool.cached(a.scratch[:0])
			for _, b := range a.scratch {
				age := float64(calls - b.gcCountBase)
				if b.isSplit() || b.seg != nil || age < avg {
					continue
				}
				freed = true
				reclaimed += b.size
				totalAge -= age
				count--
				if err := a.releaseBlock(b); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// ResetPeakStats is reset_peak_memory_stats.
func (a *Allocator) ResetPeakStats() {
	a.stats.resetPeak()
	a.pend.activeBlocks, a.pend.activeBytes = StatArray{}, StatArray{}
}

// ResetAccumulatedStats is reset_accumulated_memory_stats.
func (a *Allocator) ResetAccumulatedStats() { a.stats.resetAccumulated() }
