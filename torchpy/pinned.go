package torchpy

import "github.com/gpumemrepl/gpumemrepl/python/eval"

func init() {
	method("is_pinned", "is_pinned(device=None): whether the tensor is in pinned host memory", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if _, err := in.ArgSpec("is_pinned", args, kw, 0, "device"); err != nil {
			return nil, err
		}
		return s.(*Tensor).T.IsPinned(), nil
	})
}

// hostStats declares torch.cuda's host_memory_stats and
// reset_peak_host_memory_stats in m.
func (b *Binding) hostStats(m *eval.ModuleObj) {
	b.fn(m, "host_memory_stats", "host_memory_stats(): the caching host allocator's counters (pinned memory), {} until CUDA is initialized", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if _, err := in.ArgSpec("host_memory_stats", args, kw, 0); err != nil {
			return nil, err
		}
		st := b.S.HostMemoryStats()
		d := in.NewDict()
		for _, k := range hostStatKeys {
			if v, ok := st[k]; ok {
				in.SetStr(d, k, v)
			}
		}
		return d, nil
	})
	b.fn(m, "reset_peak_host_memory_stats", "reset_peak_host_memory_stats()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if _, err := in.ArgSpec("reset_peak_host_memory_stats", args, kw, 0); err != nil {
			return nil, err
		}
		b.S.ResetPeakHost()
		return eval.None, nil
	})
}

// hostStatKeys are host_memory_stats()'s keys in PyTorch's order, less
// the timings (their values are durations).
var hostStatKeys = func() []string {
	var keys []string
	for _, name := range []string{"active_bytes", "active_requests", "allocated_bytes", "allocations"} {
		for _, f := range []string{"allocated", "current", "freed", "peak"} {
			keys = append(keys, name+"."+f)
		}
	}
	return append(keys, "num_host_alloc", "num_host_free")
}()

// cModule is torch._C, as far as the tool has it: _host_emptyCache.
func (b *Binding) cModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch._C")
	b.fn(m, "_host_emptyCache", "_host_emptyCache(): the cached pinned blocks go back to the driver", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		b.S.HostEmptyCache()
		return eval.None, nil
	})
	m.Set(in, "_CudaDeviceProperties", DevicePropertiesType)
	return m, nil
}
