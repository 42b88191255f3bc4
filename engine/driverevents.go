package engine

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// What the program does that makes the CUDA driver take device address
// space for itself (device.Event), reported to a device that models it
// (the simulated one: testdata/segments/README.md). The real driver sees
// these itself, and the CUDA device ignores them.

// noKernel are the ops of the table whose CUDA output no kernel the
// driver answers writes: PyTorch's random number generators (whose
// first launch grew nothing in the recordings) and the empty factories;
// the filling factories report their kernel themselves (NewTensor).
var noKernel = map[string]bool{
	"bernoulli": true, "cauchy": true, "exponential": true, "geometric": true, "log_normal": true,
	"normal": true, "rand": true, "rand_like": true, "randint": true, "randint_like": true,
	"randn": true, "randn_like": true, "random": true, "randperm": true, "uniform": true,
	"empty": true, "empty_like": true, "new_empty": true,
}

// driverEvent reports e on dev to its device, where the device models
// it and its context exists.
func (s *Session) driverEvent(dev Device, e device.Event) {
	if o := s.observer(dev); o != nil {
		o.Observe(e)
	}
}

// observer is dev's device where it models the driver's own address
// space (Options.DriverAddresses) and its context exists, else nil.
func (s *Session) observer(dev Device) device.Observer {
	if !s.opts.DriverAddresses || !dev.CUDA || dev.Index >= len(s.gpus) {
		return nil
	}
	if g := s.gpus[dev.Index]; g.alloc != nil {
		if o, ok := g.dev.(device.Observer); ok {
			return o
		}
	}
	return nil
}

// arenaGap is the room between two of the host's intra-op threads'
// malloc arenas (64 MiB each, on 128 MiB strides) above a context made
// after them: a 32 MiB chunk goes there (module_convert line 32, and
// h100/probe_host_room_{threads,ops}: their 20 MiB segments' chunks
// between the arenas, the 64 MiB ones below the context).
const arenaGap = 64 << 20

// hostGrain is the most elements of a host op's output that its
// parallel_for runs on the calling thread; more run on the host's
// intra-op threads, which start at the first such op: PyTorch's
// GRAIN_SIZE (32,768: probe_host_room_threads' fill of 3M elements), and
// 2048 for the elementwise math vml.h computes (its parallel_for's
// grain: probe_host_room_ops' cos of 8,192 elements started them, as
// llama_train's rope cache did).
func hostGrain(op string) uint64 {
	if vmlOps[strings.TrimSuffix(op, "_")] {
		return 2048
	}
	return 32768
}

// vmlOps are the unary ops whose CPU kernel is vml.h's (UnaryOpsKernel's
// IMPLEMENT_FLOAT_KERNEL and IMPLEMENT_COMPLEX_KERNEL).
var vmlOps = map[string]bool{
	"acos": true, "asin": true, "atan": true, "ceil": true, "cos": true, "cosh": true,
	"erf": true, "erfc": true, "erfinv": true, "exp": true, "expm1": true, "floor": true,
	"i0": true, "lgamma": true, "log": true, "log10": true, "log1p": true, "log2": true,
	"round": true, "sin": true, "sinh": true, "sqrt": true, "tan": true, "tanh": true, "trunc": true,
}

// contextCreated tells device i, whose CUDA context was just created,
// how much room the host's mappings may leave above it, and has its
// allocator tell it of each tie its best fit breaks by address
// (device.Observer). A host storage made before the context was mapped
// above it, by malloc on its own where large, and leaves a hole its size
// once freed (the model's tensors, as .cuda() moves them:
// h100/probe_old_lmem_host1 line 27, train_sweep line 56); the host's
// intra-op threads leave arenaGap between their arenas.
func (s *Session) contextCreated(i int) {
	if o := s.observer(Device{CUDA: true, Index: i}); o != nil {
		s.gpus[i].alloc.SetTieObserver(o.Tie)
		room := s.hostLargest
		if s.hostThreads {
			room = max(room, arenaGap)
		}
		o.HostRoom(room)
	}
}

// kernelOn reports the kernel of op that wrote t: to t's device where
// it is a GPU, else as the host's intra-op threads' where t is large
// enough (a meta tensor runs none).
func (s *Session) kernelOn(op string, t *Tensor) {
	switch dev := t.Device(); {
	case dev.CUDA:
		s.driverEvent(dev, device.Kernel)
	case !dev.Meta && t.Numel() > hostGrain(op):
		s.hostThreads = true
	}
}

// notePlacement records an estimate where dev's device cannot say that
// the allocation of n bytes just made is where the driver's addresses
// put it (device.Observer's Unplaced: its new segment placed elsewhere,
// or a tie of best fit broken by addresses it does not know), or, once,
// at the first segment of a simulated device whose driver addresses the
// user turned off (Options.PlacementUnmodelled): every figure from here
// on rests on it. Under --strict it is the error to raise.
func (s *Session) notePlacement(dev Device, n uint64) error {
	if _, sim := s.gpus[dev.Index].b.(*simBackend); sim && s.opts.PlacementUnmodelled && !s.placementNoted {
		s.placementNoted = true
		return s.estimate(nil, "cudaMalloc", "a new segment for %s on cuda:%d, placed without the driver's addresses (--driver-addresses=false): where two equal free blocks tie, PyTorch's best fit may take the other", allocator.FormatSize(n), dev.Index)
	}
	if o := s.observer(dev); o != nil {
		if err := o.Unplaced(); err != nil {
			return s.estimate(nil, "malloc", "%s on cuda:%d: %v", allocator.FormatSize(n), dev.Index, err)
		}
	}
	return nil
}

// processEvent reports e, something the process as a whole does (a
// library mapped), to every device whose context exists: their
// address space is the process's.
func (s *Session) processEvent(e device.Event) {
	for i := range s.gpus {
		s.driverEvent(Device{CUDA: true, Index: i}, e)
	}
}

// kernelRan reports the kernel of the op output last allocated
// (Session.alloc), if not yet told: it ran before anything the engine
// allocates next, but for a product's cuBLAS handle and workspace,
// which come first.
func (s *Session) kernelRan() {
	if d := s.kernelDue; d != nil {
		s.kernelDue = nil
		s.driverEvent(*d, device.Kernel)
	}
}

// reductionRan reports a reduction kernel on dev, its output allocated.
func (s *Session) reductionRan(dev Device) {
	s.kernelRan()
	s.driverEvent(dev, device.Reduction)
}

// opRan reports the kernel of op d, run on a with outputs outs, where
// it wrote a tensor (kernelOn): an output that is not a view of its
// input, or the input itself where d ran in place. A contiguous host
// tensor copied to the GPU in its dtype runs none (a cudaMemcpy:
// probe_old_lmem_host1's 96 MiB .cuda() grew nothing, its fill did).
func (s *Session) opRan(d *OpDef, a Args, outs []*Tensor, inPlace bool) {
	if noKernel[d.Name] {
		return
	}
	in := a.Tensor(0)
	if inPlace && in != nil && !in.number {
		s.kernelOn(d.Name, in)
		return
	}
	for _, t := range outs {
		memcpy := in != nil && !in.number && !in.Device().CUDA && t.Device().CUDA && in.DType == t.DType && in.IsContiguous()
		if t != nil && !t.number && t.st != nil && (in == nil || in.st != t.st) && !memcpy {
			s.kernelOn(d.Name, t)
		}
	}
}
