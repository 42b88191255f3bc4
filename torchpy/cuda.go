package torchpy

import (
	"errors"
	"io/fs"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// bindingOf is the Binding of an interpreter (one per interpreter).
func bindingOf(in *eval.Interp) *Binding { return in.Embedder.(*Binding) }

func (b *Binding) cudaModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.cuda")
	m.Set(in, "OutOfMemoryError", OutOfMemoryErrorType)
	b.declareLegacyTypes(m, true)
	stats := map[string]string{
		"memory_allocated":     "allocated_bytes.all.current",
		"memory_reserved":      "reserved_bytes.all.current",
		"max_memory_allocated": "allocated_bytes.all.peak",
		"max_memory_reserved":  "reserved_bytes.all.peak",
		"memory_cached":        "reserved_bytes.all.current",
		"max_memory_cached":    "reserved_bytes.all.peak",
	}
	for name, key := range stats {
		doc := name + "(device=None)"
		if _, ok := renamed[name]; ok {
			doc += ": deprecated, " + renamedWarning(name)
		}
		b.fn(m, name, doc, func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			if _, ok := renamed[name]; ok {
				if err := in.Warn(eval.FutureWarningType, renamedWarning(name), 1); err != nil {
					return nil, err
				}
			}
			i, err := b.cudaIndexFor(args, kw, statsIndex)
			if err != nil {
				return nil, err
			}
			var v int64
			err = b.statsCall(deviceValue(args, kw), false, func() (err error) {
				v, err = b.S.MemoryStat(i, key)
				return b.pyErr(err)
			})
			return v, err
		})
	}
	b.fn(m, "memory_stats", "memory_stats(device=None)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := b.cudaIndexFor(args, kw, statsIndex)
		if err != nil {
			return nil, err
		}
		var st map[string]int64
		err = b.statsCall(deviceValue(args, kw), true, func() (err error) {
			st, err = b.S.MemoryStats(i)
			return b.pyErr(err)
		})
		if err != nil {
			return nil, err
		}
		return b.statsDict(st), nil
	})
	b.fn(m, "memory_summary", "memory_summary(device=None, abbreviated=False)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := b.cudaIndexFor(args, kw, statsIndex)
		if err != nil {
			return nil, err
		}
		s, err := b.S.MemorySummary(i)
		return s, b.pyErr(err)
	})
	b.fn(m, "empty_cache", "empty_cache()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return eval.None, b.pyErr(b.S.EmptyCache())
	})
	for _, name := range []string{"reset_peak_memory_stats", "reset_max_memory_allocated", "reset_max_memory_cached"} {
		b.fn(m, name, name+"(device=None)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			i, err := b.cudaIndexFor(args, kw, statsIndex)
			if err != nil {
				return nil, err
			}
			return eval.None, b.pyErr(b.S.ResetPeak(i))
		})
	}
	b.fn(m, "get_device_name", "get_device_name(device=None)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := b.cudaIndexFor(args, kw, propertiesIndex)
		if err != nil {
			return nil, err
		}
		return b.S.GPUName(i), nil
	})
	// the CUDA generators' seeds: values are not computed; a cuDNN RNN
	// with dropout makes its dropout state again after one, as after
	// torch.manual_seed (which seeds them all)
	for _, name := range []string{"manual_seed", "manual_seed_all"} {
		b.fn(m, name, name+"(seed): values are not computed; a cuDNN RNN with dropout makes its dropout state again after it", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			if _, err := in.ArgSpec(name, args, kw, 1, "seed"); err != nil {
				return nil, err
			}
			b.S.SeedCUDA()
			return eval.None, nil
		})
	}
	b.fn(m, "is_available", "is_available()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return b.S.DeviceCount() > 0, nil
	})
	b.fn(m, "device_count", "device_count()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return int64(b.S.DeviceCount()), nil
	})
	b.fn(m, "current_device", "current_device()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return int64(b.S.CurrentDevice()), nil
	})
	b.fn(m, "set_device", "set_device(device)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if negativeIndex(deviceValue(args, kw)) {
			return eval.None, nil // PyTorch sets no device for a negative index
		}
		i, err := b.cudaIndex(args, kw)
		if err != nil {
			return nil, err
		}
		return eval.None, b.pyErr(b.S.SetDevice(i))
	})
	b.fn(m, "set_per_process_memory_fraction", "set_per_process_memory_fraction(fraction, device=None)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(args) == 0 {
			return nil, in.Raise(eval.TypeErrorType, "set_per_process_memory_fraction() missing fraction")
		}
		f, ok := number(args[0])
		if !ok {
			return nil, in.Raise(eval.TypeErrorType, "Invalid type for fraction argument, must be `float`")
		}
		i, err := b.cudaIndex(args[1:], kw)
		if err != nil {
			return nil, err
		}
		return eval.None, b.pyErr(b.S.SetFraction(f, i))
	})
	mem := in.NewModule("torch.cuda.memory")
	b.fn(mem, "_record_memory_history", "_record_memory_history(): the tool records every session's history already", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return eval.None, nil
	})
	b.fn(mem, "_dump_snapshot", "_dump_snapshot(filename): the device's snapshot and history, each event with its Python stack", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("_dump_snapshot", args, kw, 0, "filename")
		if err != nil {
			return nil, err
		}
		path := "dump_snapshot.pickle"
		if a[0] != nil {
			s, ok := a[0].(string)
			if !ok {
				return nil, in.Raise(eval.TypeErrorType, "_dump_snapshot(): filename must be str")
			}
			path = s
		}
		if err := b.S.SaveSnapshot(path, b.S.CurrentDevice()); err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				return nil, in.RaiseOS(err)
			}
			return nil, b.pyErr(err)
		}
		return eval.None, nil
	})
	b.fn(mem, "_snapshot", "_snapshot(device=None): the current device's segments and history as the dict _dump_snapshot pickles", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if _, err := in.ArgSpec("_snapshot", args, kw, 0, "device"); err != nil {
			return nil, err
		}
		objs, err := b.S.SnapshotObjects(b.S.CurrentDevice())
		if err != nil {
			return nil, b.pyErr(err)
		}
		v, err := pyObject(in, objs)
		if err != nil {
			return nil, b.pyErr(err)
		}
		return v, nil
	})
	in.AddModule("torch.cuda.memory", mem)
	m.Set(in, "memory", mem)
	in.Decref(mem)
	b.deviceInfo(m)
	info, _ := m.Dict.GetStr("mem_get_info")
	mem.Set(in, "mem_get_info", info)
	b.cudaExtras(m)
	b.cudaAmp(m)
	if err := b.cudaStreams(in, m); err != nil {
		return nil, err
	}
	b.fn(m, "memory_snapshot", "memory_snapshot(mempool_id=None): every device's segments and blocks, as dicts", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("memory_snapshot", args, kw, 0, "mempool_id")
		if err != nil {
			return nil, err
		}
		if a[0] != nil && a[0] != eval.None {
			return nil, b.notModelled("memory_snapshot of a memory pool (CUDA graphs' pools)")
		}
		return b.memorySnapshot(in)
	})
	return m, nil
}

// statsCall runs read as torch.cuda.memory_stats() reads the
// allocator's statistics, leaving for the collector what its Python
// leaves (eval's LeaveClosureCycle): a (key, value) pair per statistic
// once CUDA has started (none before: it reads an empty dict), and,
// for device None, the current device found through a lambda.
func (b *Binding) statsCall(device eval.Value, returned bool, read func() error) error {
	pairs := 0
	started := b.S.CUDAInitialized()
	if started {
		pairs = len(allocator.StatKeys)
	}
	return b.in.LeaveClosureCycle(pairs, started && (device == nil || device == eval.None), returned, read)
}

// statsDict is memory_stats() as a dict, in the allocator's key order.
func (b *Binding) statsDict(st map[string]int64) *eval.Dict {
	d := b.in.NewDict()
	for _, k := range allocator.StatKeys {
		if v, ok := st[k]; ok {
			b.in.SetStr(d, k, v)
		}
	}
	return d
}

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
