package trace

import (
	"errors"
	"fmt"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/device"
	"github.com/gpumemrepl/gpumemrepl/allocator/device/sim"
)

// Options override what a trace file says about its process.
type Options struct {
	AllocConf  *string // PYTORCH_CUDA_ALLOC_CONF
	LimitBytes *uint64 // per-process limit, as set_per_process_memory_fraction(limit/total)
	TotalBytes uint64  // simulated device size; 0: the trace's total_memory
	// Device is the device to replay on; nil: a simulated device. The
	// caller closes the allocator after the replay (Allocator.Close), so
	// that a real device gets its memory back.
	Device device.Device
	// Progress is handed to the replay's Replayer (see Replayer.Progress).
	Progress func(done, total int)
}

// Row is the state after one replayed op.
type Row struct {
	Stats [allocator.NumStatKeys]int64 // in allocator.StatKeys order
	Err   error                        // the op's out-of-memory error, if any
}

// Conf is the PYTORCH_CUDA_ALLOC_CONF a replay of t runs under: o's, else
// the trace's own.
func (o Options) Conf(t *Trace) string {
	if o.AllocConf != nil {
		return *o.AllocConf
	}
	return t.AllocConf
}

// Setup makes the allocator a trace ran on: a simulated device of the
// trace's size (or o.Device), its config and its memory fraction.
func Setup(t *Trace, o Options) (*allocator.Allocator, error) {
	cfg, err := allocator.ParseConfig(o.Conf(t))
	if err != nil {
		return nil, err
	}
	dev := NewDevice(t, o)
	total := dev.TotalMemory()
	a := allocator.New(dev, t.Device, cfg)
	switch {
	case o.LimitBytes != nil:
		err = a.SetMemoryFraction(float64(*o.LimitBytes) / float64(total))
	case t.MemoryFraction != nil:
		err = a.SetMemoryFraction(*t.MemoryFraction)
	}
	return a, err
}

// NewDevice is the device a replay of t runs on: o.Device, else a
// simulated device of o.TotalBytes, of the trace's total memory, or of an
// H200's.
func NewDevice(t *Trace, o Options) device.Device {
	if o.Device != nil {
		return o.Device
	}
	total := t.TotalMemory
	switch {
	case o.TotalBytes != 0:
		total = o.TotalBytes
	case total == 0:
		total = sim.H200Total
	}
	return sim.New(total)
}

// Replayer runs a trace's ops one by one.
type Replayer struct {
	A *allocator.Allocator
	// Observe, when set, hears every allocation ("alloc", its address and
	// size), failed allocation ("oom", 0, size) and free ("free", its
	// address, 0) as it happens.
	Observe func(action string, ptr, size uint64)
	// Progress, when set, hears every 4096 ops how far the replay is.
	Progress func(done, total int)
	steps    []step             // the trace's ops, packed as Step reads them
	live     []allocator.Handle // by op slot (dense id); 0 when not live
	next     int
}

// step is an op as Step reads it, packed: 24 bytes where an Op is 48,
// so the replay streams half the memory (about 3% of a 200k-op trace's
// replay time).
type step struct {
	size, stream uint64
	slot         uint32
	kind         opKind
}

// NewReplayer returns a Replayer for t's ops on a.
func NewReplayer(t *Trace, a *allocator.Allocator) *Replayer {
	steps := make([]step, len(t.Ops))
	for i, op := range t.Ops {
		steps[i] = step{op.Size, op.Stream, op.slot, op.kind}
	}
	return &Replayer{A: a, steps: steps, live: make([]allocator.Handle, t.slots)}
}

// Done reports whether every op has run.
func (r *Replayer) Done() bool { return r.next == len(r.steps) }

// Step runs the next op. An out-of-memory error is the op's result and is
// returned as oom; err is any other failure, which ends the replay.
func (r *Replayer) Step() (oom error, err error) {
	i := r.next
	op := &r.steps[i]
	r.next++
	switch op.kind {
	case opAlloc:
		p, h, e := r.A.MallocHandle(op.stream, op.size)
		if e != nil {
			return r.allocFailed(i, e)
		}
		r.live[op.slot] = h
		if r.Observe != nil {
			r.Observe("alloc", p, op.size)
		}
	case opFree:
		h := r.live[op.slot]
		if h == 0 {
			// PyTorch's alloc of this id raised OOM; nothing to free.
			return nil, nil
		}
		r.live[op.slot] = 0
		if r.Observe != nil {
			r.Observe("free", r.A.HandleAddress(h), 0)
		}
		if e := r.A.FreeHandle(h); e != nil {
			return nil, opError(i, e)
		}
	case opEmptyCache:
		if e := r.A.EmptyCache(); e != nil {
			return nil, opError(i, e)
		}
	}
	return nil, nil
}

// allocFailed is Step's result for the alloc op i, whose malloc failed
// with e: out of memory is the op's result, anything else ends the
// replay. It and opError are apart from Step so that Step's frame holds
// nothing for the rare case.
func (r *Replayer) allocFailed(i int, e error) (oom error, err error) {
	if _, isOOM := errors.AsType[*allocator.OutOfMemoryError](e); isOOM {
		if r.Observe != nil {
			r.Observe("oom", 0, r.steps[i].size)
		}
		return e, nil
	}
	return nil, opError(i, e)
}

// opError is op i's failure e, which ends the replay.
//
//go:noinline
func opError(i int, e error) error { return fmt.Errorf("op %d: %w", i, e) }

// Run steps through the remaining ops, calling each (when not nil) after
// every op with its index and its out-of-memory error. An error from a
// step or from each stops the run and is returned.
func (r *Replayer) Run(each func(i int, oom error) error) error {
	for !r.Done() {
		i := r.next
		if r.Progress != nil && i&4095 == 0 {
			r.Progress(i, len(r.steps))
		}
		oom, err := r.Step()
		if err != nil {
			return err
		}
		if each != nil {
			if err := each(i, oom); err != nil {
				return err
			}
		}
	}
	return nil
}

// Rewind frees what the replay holds and restarts it on the same
// allocator, whose cache stays: the next run starts warm.
func (r *Replayer) Rewind() error {
	for slot, h := range r.live {
		if h != 0 {
			if err := r.A.FreeHandle(h); err != nil {
				return err
			}
			r.live[slot] = 0
		}
	}
	r.next = 0
	return nil
}

// Reset restarts the replay on a fresh allocator.
func (r *Replayer) Reset(a *allocator.Allocator) {
	r.A = a
	r.next = 0
	clear(r.live)
}

// Live returns the address of the block op i allocated, while it is
// live in the replay; 0 otherwise.
func (r *Replayer) Live(i int) uint64 {
	if h := r.live[r.steps[i].slot]; h != 0 {
		return r.A.HandleAddress(h)
	}
	return 0
}
