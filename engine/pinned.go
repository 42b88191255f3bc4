package engine

import (
	"fmt"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator/host"
)

// pinnedHost is the session's caching host allocator (pinned memory),
// made at its first use.
func (s *Session) pinnedHost() *host.Allocator {
	if s.pinned == nil {
		s.pinned = host.New()
		s.pinnedBufs = map[*host.Block]*hostBuf{}
	}
	return s.pinned
}

// newPinnedStorage is n bytes of pinned host memory: a block of the
// caching host allocator. A block the driver gives anew is written
// through (page-locked memory is resident), so host RSS rises by its
// size, and stays so while the block is cached.
func (s *Session) newPinnedStorage(n uint64) (*storage, error) {
	st := &storage{device: Device{}, bytes: n, refs: 1, inference: s.inference}
	if n == 0 {
		return st, nil
	}
	var buf *hostBuf
	b, err := s.pinnedHost().Alloc(n, func(size uint64) error {
		if avail, ok := memAvailable(); ok && size > avail {
			return fmt.Errorf("cannot pin %d bytes of host memory (a %d-byte block): this machine has %d bytes available", n, size, avail)
		}
		if !s.opts.FakeHost {
			var err error
			buf, err = s.newHostBuf(size, true)
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if cached, ok := s.pinnedBufs[b]; ok {
		buf = cached
	} else {
		s.pinnedBufs[b] = buf
	}
	st.pinned = b
	if buf != nil {
		st.host = &hostBuf{mem: buf.mem[:n]}
	}
	return st, nil
}

// releasePinned gives a pinned storage's block back to the host
// allocator's cache. A block a non-blocking copy used waits for the
// point each copy's stream had reached then.
func (s *Session) releasePinned(st *storage) {
	b := st.pinned
	for _, u := range s.pinnedUses[b] {
		mark := pinnedMark{u.Device, u.Handle, s.gpus[u.Device].streams.clock(u.Handle)[u.Handle]}
		s.pinnedWaits[b] = append(s.pinnedWaits[b], mark)
	}
	delete(s.pinnedUses, b)
	s.pinned.Free(b)
}

// pinnedMark is a point of a stream's work that a freed pinned block
// waits for.
type pinnedMark struct {
	device int
	stream uint64
	point  uint64
}

func init() {
	declare(&OpDef{Name: "pin_memory", Method: true, Params: []Param{input},
		Memory: "itself when pinned already, else a copy in pinned host memory (the caching host allocator's power-of-two blocks)",
		run: func(s *Session, a Args) (*Tensor, error) {
			if x := a.Tensor(0); !x.IsPinned() {
				return s.PinMemory(x)
			}
			return a.Tensor(0), nil
		}})
}

// PinMemory is t.pin_memory() of a CPU tensor that is not pinned: a copy
// of it in pinned memory.
func (s *Session) PinMemory(t *Tensor) (*Tensor, error) {
	if t.Device().CUDA {
		return nil, fmt.Errorf("cannot pin '%s' only dense CPU tensors can be pinned", tensorType(t))
	}
	st, err := s.newPinnedStorage(t.Bytes())
	if err == nil {
		if err = s.copyBytes(st, t.st, t.offset*t.DType.Size, readBytes(t)); err != nil {
			s.release(st)
		}
	}
	if err != nil {
		return nil, err
	}
	st.vals = elementValues(t)
	return &Tensor{Shape: t.Shape, DType: t.DType, st: st}, nil
}

// IsPinned reports whether t is in pinned host memory (is_pinned()).
func (t *Tensor) IsPinned() bool { return t.st.pinned != nil }

// CopiedAsync notes that t was copied to or from the GPU gpu with
// non_blocking=True, on its current stream (work on it): when t is
// pinned, its block is not reused until that copy is known to be done
// (a synchronize of the stream or the device).
func (s *Session) CopiedAsync(t *Tensor, gpu Device) {
	x := Stream{Device: gpu.Index, Handle: s.currentStream(gpu)}
	s.gpus[gpu.Index].streams.point(x.Handle)
	if b := t.st.pinned; b != nil {
		s.pinned.RecordUse(b)
		if s.pinnedUses == nil {
			s.pinnedUses, s.pinnedWaits = map[*host.Block][]Stream{}, map[*host.Block][]pinnedMark{}
		}
		if !slices.Contains(s.pinnedUses[b], x) {
			s.pinnedUses[b] = append(s.pinnedUses[b], x)
		}
	}
}

// completePinned completes the copies behind freed pinned blocks whose
// streams the host has waited for.
func (s *Session) completePinned() {
	if s.pinned == nil {
		return
	}
	s.pinned.Complete(func(b *host.Block) bool {
		for _, m := range s.pinnedWaits[b] {
			if s.gpus[m.device].streams.done[m.stream] < m.point {
				return false
			}
		}
		delete(s.pinnedWaits, b)
		return true
	})
}

// HostEmptyCache is torch._C._host_emptyCache(): the cached pinned
// blocks go back to the driver.
func (s *Session) HostEmptyCache() {
	if s.pinned == nil {
		return
	}
	for _, b := range s.pinned.EmptyCache() {
		if buf := s.pinnedBufs[b]; buf != nil {
			buf.free()
		}
		delete(s.pinnedBufs, b)
	}
}

// HostMemoryStats is torch.cuda.host_memory_stats() without its timings:
// nil until CUDA is initialized, as PyTorch reports none before.
func (s *Session) HostMemoryStats() map[string]int64 {
	if !s.CUDAInitialized() {
		return nil
	}
	return s.pinnedHost().Stats().Values()
}

// ResetPeakHost is torch.cuda.reset_peak_host_memory_stats().
func (s *Session) ResetPeakHost() { s.pinnedHost().ResetPeak() }

// pinnedReserved is the pinned host memory held, in use or cached.
func (s *Session) pinnedReserved() uint64 {
	if s.pinned == nil {
		return 0
	}
	return s.pinned.Reserved()
}
