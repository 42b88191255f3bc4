package allocator

import "fmt"

// StreamEvents is what the allocator needs of the streams a block was
// used on (Tensor.record_stream): PyTorch records a CUDA event on each of
// them when the block is freed, and the block goes back to its pool only
// once every one has completed. Without StreamEvents (SetStreamEvents
// never called) a block's other uses are not waited for.
type StreamEvents interface {
	// Record records an event on stream at this point of its work and
	// returns it.
	Record(stream uint64) uint64
	// Done reports whether the host knows event, recorded on stream, to
	// have completed (cudaEventQuery).
	Done(stream, event uint64) bool
	// Wait waits for event to complete (cudaEventSynchronize).
	Wait(stream, event uint64)
	// FreeCompleted tells that the free of the block at ptr, of the
	// allocation stream stream and requested bytes, has completed: the
	// block is back in its pool (the history's free_completed).
	FreeCompleted(stream, ptr, requested uint64)
}

// streamEvent is one event recorded at a pending free.
type streamEvent struct {
	stream, event uint64
	b             *Block
}

// pendingState is what the allocator keeps for frees that wait for
// events: the blocks' other streams, the events in the order they were
// recorded, and the statistics that differ from the allocated ones while
// they wait (a pending block is active but not allocated).
type pendingState struct {
	events     StreamEvents
	streamUses map[uint32][]uint64 // by live block id: the streams recorded besides its own
	queue      []streamEvent
	// blocks and bytes are the pending blocks' counts; activeBlocks and
	// activeBytes keep the peaks of active that exceed allocated's.
	blocks, bytes, activeBlocks, activeBytes StatArray
}

// SetStreamEvents makes the allocator wait for the events of the
// streams a freed block was used on (RecordStream) before reusing it.
func (a *Allocator) SetStreamEvents(e StreamEvents) { a.pend.events = e }

// RecordStream is recordStream (Tensor.record_stream): the live block at
// ptr is used on stream, so its free will wait for that stream's work
// queued until then. Its own allocation stream needs no event.
func (a *Allocator) RecordStream(ptr, stream uint64) error {
	b, ok := a.activeTable().get(ptr)
	if !ok {
		return fmt.Errorf("record_stream(%#x): %w", ptr, ErrUnknownPointer)
	}
	if stream == b.pool.stream || a.pend.events == nil {
		return nil
	}
	if a.pend.streamUses == nil {
		a.pend.streamUses = map[uint32][]uint64{}
	}
	uses := a.pend.streamUses[b.id]
	for _, s := range uses {
		if s == stream {
			return nil
		}
	}
	a.pend.streamUses[b.id] = append(uses, stream)
	return nil
}

// deferFree records an event on each stream the freed block b was used
// on and keeps b out of its pool until they complete. It reports false,
// doing nothing, for a block without such uses.
func (a *Allocator) deferFree(b *Block) bool {
	uses, ok := a.pend.streamUses[b.id]
	if !ok {
		return false
	}
	delete(a.pend.streamUses, b.id)
	b.eventCount = int32(len(uses))
	for _, s := range uses {
		a.pend.queue = append(a.pend.queue, streamEvent{s, a.pend.events.Record(s), b})
	}
	small := b.pool.isSmall
	a.pend.blocks.increase(small, 1)
	a.pend.bytes.increase(small, int64(b.size))
	return true
}

// processEvents is process_events, at the start of every malloc: the
// blocks whose events have all completed go back to their pools. Each
// stream's events are looked at in the order they were recorded, up to
// the first one not done.
func (a *Allocator) processEvents() {
	var blocked []uint64 // streams with an event not done
	keep := a.pend.queue[:0]
	for _, e := range a.pend.queue {
		if contains(blocked, e.stream) || !a.pend.events.Done(e.stream, e.event) {
			blocked = append(blocked, e.stream)
			keep = append(keep, e)
			continue
		}
		a.eventDone(e.b)
	}
	clear(a.pend.queue[len(keep):])
	a.pend.queue = keep
}

// synchronizeAndFreeEvents is synchronize_and_free_events (empty_cache
// and the last retry of a malloc): wait for every event, and every
// pending block goes back to its pool.
func (a *Allocator) synchronizeAndFreeEvents() {
	q := a.pend.queue
	a.pend.queue = nil
	for _, e := range q {
		a.pend.events.Wait(e.stream, e.event)
		a.eventDone(e.b)
	}
}

// eventDone counts one of b's events completed, and frees b with its last.
func (a *Allocator) eventDone(b *Block) {
	if b.eventCount--; b.eventCount > 0 {
		return
	}
	small := b.pool.isSmall
	a.pend.blocks.decrease(small, 1)
	a.pend.bytes.decrease(small, int64(b.size))
	ptr, req := b.ptr, b.requestedSize
	b.allocated = false
	a.freeBlock(b)
	a.pend.events.FreeCompleted(b.pool.stream, ptr, req)
}

// notePendingPeaks raises active's peaks after a malloc while blocks
// wait for events: active is then allocated plus the pending blocks.
func (a *Allocator) notePendingPeaks() {
	raise := func(peak *StatArray, alloc, pend StatArray) {
		alloc.settle()
		pend.settle()
		for k := range peak {
			peak[k].Peak = max(peak[k].Peak, alloc[k].Current+pend[k].Current)
		}
	}
	raise(&a.pend.activeBlocks, a.stats.Allocation, a.pend.blocks)
	raise(&a.pend.activeBytes, a.stats.AllocatedBytes, a.pend.bytes)
}

// withPending makes active (a settled copy of the allocated figures)
// count the pending blocks pend: they leave active, and count as freed,
// only when their events complete. peaks are active's peaks of the times
// blocks were pending.
func withPending(active *StatArray, pend StatArray, peaks *StatArray) {
	pend.settle()
	for k := range active {
		active[k].Current += pend[k].Current
		active[k].Freed -= pend[k].Current
		active[k].Peak = max(active[k].Peak, peaks[k].Peak, active[k].Current)
	}
}

func contains(s []uint64, v uint64) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
