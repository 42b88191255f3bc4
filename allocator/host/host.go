// Package host is PyTorch 2.11's caching host allocator: the pinned
// (page-locked) host memory that tensor.pin_memory() and
// torch.empty(..., pin_memory=True) take, kept for reuse after a free.
//
// Its rules, from ATen's CachingHostAllocator and recorded with PyTorch
// 2.11 on the H200 (scripts/record_host.py, testdata/host): a request is
// rounded up to a power of two and served by a free block of exactly
// that size, the one freed last, or else by a new block from the driver
// (cudaHostAlloc); a block is never split. A freed block that a
// non-blocking copy used waits for that copy's event, and is taken back
// by the next allocation after the event is done: the simulated device
// counts a copy done once the program synchronizes the copy's stream or
// the device (PyTorch's own run reused a 16 MiB block only after
// torch.cuda.synchronize(); behind a copy on a side stream, after that
// stream's synchronize and not the default stream's:
// testdata/pyrules/streams_probe.txt). empty_cache gives every free
// block back.
//
// host_memory_stats() in 2.11 counts as follows, bugs included:
// "allocations" and "allocated_bytes" are the blocks held from the
// driver; "active_requests" and "active_bytes" count each request (its
// rounded size) and go down only when a block comes back through an
// event, "active_bytes" then by -1, so it grows by one byte instead.
package host

import (
	"math/bits"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// Block is one pinned block.
type Block struct {
	Size uint64 // a power of two
	Addr uint64 // the block's host address (simulated)
	// used is set when a non-blocking copy used the block since it was
	// taken: its free waits for that copy's event.
	used bool
	done bool // its event has completed (freed blocks in events only)
}

// resetPeak starts a figure's peak again from its current value.
func resetPeak(s *allocator.Stat) { s.Peak = s.Current }

// buckets is the number of free lists: one per power of two.
const buckets = 64

// Stats are host_memory_stats() without its timings.
type Stats struct {
	Allocations, AllocatedBytes, ActiveRequests, ActiveBytes allocator.Stat
}

// Allocator is one process's caching host allocator.
type Allocator struct {
	free   [buckets][]*Block // by log2 of the size; the last freed last
	events []*Block          // blocks freed while a copy used them, newest first
	next   uint64            // the next new block's address
	stats  Stats
}

// hostBase is where the simulated pinned blocks start.
const hostBase = 0x7f0000000000

// New returns an empty allocator.
func New() *Allocator { return &Allocator{next: hostBase} }

// index is a size's free list: the log2 of it, rounded up.
func index(size uint64) int { return bits.Len64(size - 1) }

// Alloc takes a block of at least n bytes; nil for n == 0 (PyTorch gives
// no block and a null pointer). It first takes back the freed blocks
// whose copies are done. A block the driver must give anew is asked of
// take (cudaHostAlloc) first; when take fails, Alloc fails with its
// error and counts nothing.
func (a *Allocator) Alloc(n uint64, take func(size uint64) error) (*Block, error) {
	if n == 0 {
		return nil, nil
	}
	a.processEvents()
	i := index(n)
	size := uint64(1) << i
	if l := a.free[i]; len(l) > 0 {
		b := l[len(l)-1]
		a.free[i] = l[:len(l)-1]
		a.countRequest(size)
		return b, nil
	}
	if err := take(size); err != nil {
		return nil, err
	}
	b := &Block{Size: size, Addr: a.next}
	a.next += max(size, 4096)
	a.stats.Allocations.Increase(1)
	a.stats.AllocatedBytes.Increase(int64(size))
	a.countRequest(size)
	return b, nil
}

// countRequest counts one request served by a block of size.
func (a *Allocator) countRequest(size uint64) {
	a.stats.ActiveRequests.Increase(1)
	a.stats.ActiveBytes.Increase(int64(size))
}

// RecordUse notes that a non-blocking copy used b: its free will wait
// for the copy.
func (a *Allocator) RecordUse(b *Block) {
	if b != nil {
		b.used = true
	}
}

// Free gives b back: to its free list, or, when a copy used it, to the
// events that a later allocation checks.
func (a *Allocator) Free(b *Block) {
	switch {
	case b == nil:
	case b.used:
		b.used, b.done = false, false
		a.events = append([]*Block{b}, a.events...)
	default:
		a.free[index(b.Size)] = append(a.free[index(b.Size)], b)
	}
}

// Synchronize completes every copy issued so far
// (torch.cuda.synchronize()): the blocks freed behind them can come back.
func (a *Allocator) Synchronize() {
	for _, b := range a.events {
		b.done = true
	}
}

// Complete completes the copies of the freed blocks for which done
// reports true (a synchronize of the streams they were copied on).
func (a *Allocator) Complete(done func(*Block) bool) {
	for _, b := range a.events {
		b.done = b.done || done(b)
	}
}

// processEvents takes back the freed blocks whose copies are done,
// oldest first, up to the first that is not.
func (a *Allocator) processEvents() {
	for len(a.events) > 0 {
		b := a.events[len(a.events)-1]
		if !b.done {
			return
		}
		a.events = a.events[:len(a.events)-1]
		a.free[index(b.Size)] = append(a.free[index(b.Size)], b)
		a.stats.ActiveRequests.Decrease(1)
		a.stats.ActiveBytes.Decrease(-1) // PyTorch's: the size it passes is -1
	}
}

// EmptyCache is torch._C._host_emptyCache(): the free blocks go back to
// the driver (those behind a finished copy too), and are returned.
func (a *Allocator) EmptyCache() []*Block {
	a.processEvents()
	var gone []*Block
	for i := range a.free {
		for _, b := range a.free[i] {
			a.stats.Allocations.Decrease(1)
			a.stats.AllocatedBytes.Decrease(int64(b.Size))
			gone = append(gone, b)
		}
		a.free[i] = nil
	}
	return gone
}

// Reserved is the pinned memory held from the driver, in use or cached.
func (a *Allocator) Reserved() uint64 { return uint64(a.stats.AllocatedBytes.Current) }

// ResetPeak is torch.cuda.reset_peak_host_memory_stats().
func (a *Allocator) ResetPeak() {
	for _, s := range []*allocator.Stat{&a.stats.Allocations, &a.stats.AllocatedBytes, &a.stats.ActiveRequests, &a.stats.ActiveBytes} {
		resetPeak(s)
	}
}

// Stats reads the counters.
func (a *Allocator) Stats() Stats { return a.stats }

// Values are the stats under host_memory_stats()'s keys.
func (s Stats) Values() map[string]int64 {
	v := map[string]int64{"num_host_alloc": s.Allocations.Allocated, "num_host_free": s.Allocations.Freed}
	for name, st := range map[string]allocator.Stat{"allocations": s.Allocations, "allocated_bytes": s.AllocatedBytes, "active_requests": s.ActiveRequests, "active_bytes": s.ActiveBytes} {
		v[name+".current"], v[name+".peak"], v[name+".allocated"], v[name+".freed"] = st.Current, st.Peak, st.Allocated, st.Freed
	}
	return v
}
