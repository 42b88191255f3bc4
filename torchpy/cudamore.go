package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// cudaDeviceType is torch.cuda.device(N): a context manager that makes
// N the current device inside it.
var cudaDeviceType = eval.NewClass("device", "torch.cuda")

// cudaDevice is one torch.cuda.device(N).
type cudaDevice struct {
	eval.Header
	index int
	prev  []int
}

func (d *cudaDevice) Type() *eval.Class         { return cudaDeviceType }
func (d *cudaDevice) Traverse(func(eval.Value)) {}
func (d *cudaDevice) Clear(*eval.Interp)        {}

func init() {
	cudaDeviceType.SetMethod(eval.NewBuiltin("__enter__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		d := s.(*cudaDevice)
		b := bindingOf(in)
		prev := b.S.CurrentDevice()
		if err := b.S.SetDevice(d.index); err != nil {
			return nil, b.pyErr(err)
		}
		d.prev = append(d.prev, prev)
		return eval.None, nil
	}))
	cudaDeviceType.SetMethod(eval.NewBuiltin("__exit__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		d := s.(*cudaDevice)
		if n := len(d.prev); n > 0 {
			err := bindingOf(in).S.SetDevice(d.prev[n-1])
			d.prev = d.prev[:n-1]
			if err != nil {
				return nil, bindingOf(in).pyErr(err)
			}
		}
		return false, nil
	}))
}

// cudaExtras declares the rest of torch.cuda in m: raw allocations
// (caching_allocator_alloc and _delete), torch.cuda.device(N), init and
// is_initialized, reset_accumulated_memory_stats, and the names the
// tool does not model (NVML's per-process figures),
// which say so where they are called.
func (b *Binding) cudaExtras(m *eval.ModuleObj) {
	b.fn(m, "caching_allocator_alloc", "caching_allocator_alloc(size, device=None, stream=None): a block of the caching allocator, its address", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("caching_allocator_alloc", args, kw, 1, "size", "device", "stream")
		if err != nil {
			return nil, err
		}
		size, ok := a[0].(int64)
		if !ok || size < 0 {
			return nil, in.Raise(eval.TypeErrorType, "caching_allocator_alloc(): size must be a non-negative int")
		}
		if a[2] != nil && a[2] != eval.None {
			return nil, b.notModelled("caching_allocator_alloc on a stream")
		}
		var devArgs []eval.Value
		if a[1] != nil {
			devArgs = []eval.Value{a[1]}
		}
		i, err := b.cudaIndex(devArgs, nil)
		if err != nil {
			return nil, err
		}
		t, err := b.S.NewTensor(engine.TensorSpec{Op: "empty", Shape: []int64{size}, DType: engine.DTypes["uint8"], Device: engine.Device{CUDA: true, Index: i}})
		if err != nil {
			return nil, b.pyErr(err)
		}
		ptr := int64(t.DataPtr())
		if size == 0 {
			b.S.Release(t) // PyTorch's raw_alloc(0) gives no block and address 0
			return ptr, nil
		}
		if b.raw == nil {
			b.raw = map[int64]*engine.Tensor{}
		}
		b.raw[ptr] = t
		return ptr, nil
	})
	b.fn(m, "caching_allocator_delete", "caching_allocator_delete(mem_ptr): frees a block caching_allocator_alloc gave", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("caching_allocator_delete", args, kw, 1, "mem_ptr")
		if err != nil {
			return nil, err
		}
		ptr, _ := a[0].(int64)
		t, ok := b.raw[ptr]
		if !ok {
			if ptr == 0 {
				return eval.None, nil
			}
			return nil, in.Raise(eval.RuntimeErrorType, "invalid device pointer: %#x", ptr)
		}
		delete(b.raw, ptr)
		b.S.Release(t)
		return eval.None, nil
	})
	b.fn(m, "device", "device(device): a context manager that makes device the current one inside it", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := b.cudaIndex(args, kw)
		if err != nil {
			return nil, err
		}
		return eval.Track(in, &cudaDevice{index: i}), nil
	})
	b.fn(m, "init", "init(): creates the current device's CUDA context", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return eval.None, b.pyErr(b.S.InitDevice(b.S.CurrentDevice()))
	})
	b.fn(m, "is_initialized", "is_initialized(): whether a CUDA context exists", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return b.S.CUDAInitialized(), nil
	})
	b.fn(m, "reset_accumulated_memory_stats", "reset_accumulated_memory_stats(device=None)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := b.cudaIndex(args, kw)
		if err != nil {
			return nil, err
		}
		return eval.None, b.pyErr(b.S.ResetAccumulated(i))
	})
	b.hostStats(m)
	for _, name := range []string{"memory_usage", "list_gpu_processes"} {
		b.fn(m, name, "not modelled", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			return nil, b.notModelled("torch.cuda." + name)
		})
	}
}
