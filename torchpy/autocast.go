package torchpy

import (
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// autocastObj is a torch.autocast region (torch.amp.autocast,
// torch.cuda.amp.autocast): a context manager, and a decorator when
// called with a function. Only CUDA's autocast is modelled.
type autocastObj struct {
	eval.Header
	st   engine.AutocastState
	prev []engine.AutocastState
}

var autocastType = eval.NewClass("autocast", "torch.amp.autocast_mode")

// Type is torch.autocast.
func (a *autocastObj) Type() *eval.Class { return autocastType }

// Traverse visits nothing: a region holds no Python values.
func (a *autocastObj) Traverse(func(eval.Value)) {}

// Clear drops nothing.
func (a *autocastObj) Clear(*eval.Interp) {}

// enter is __enter__: the region's setting on, the one before kept.
func (a *autocastObj) enter(s *engine.Session) { a.prev = append(a.prev, s.EnterAutocast(a.st)) }

// exit is __exit__: the setting before back (the cast cache cleared
// when the outermost region exits).
func (a *autocastObj) exit(s *engine.Session) {
	if n := len(a.prev); n > 0 {
		s.ExitAutocast(a.prev[n-1])
		a.prev = a.prev[:n-1]
	}
}

func init() {
	autocastType.SetMethod(eval.NewBuiltin("__enter__", "", func(in *eval.Interp, self eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		self.(*autocastObj).enter(bindingOf(in).S)
		return eval.None, nil
	}))
	autocastType.SetMethod(eval.NewBuiltin("__exit__", "", func(in *eval.Interp, self eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		self.(*autocastObj).exit(bindingOf(in).S)
		return false, nil
	}))
	autocastType.SetMethod(eval.NewBuiltin("__call__", "", func(in *eval.Interp, self eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(args) != 1 || len(kw) != 0 {
			return nil, in.Raise(eval.TypeErrorType, "autocast decorates one function")
		}
		eval.Incref(args[0])
		region := self.(*autocastObj)
		w := &eval.Builtin{Name: "decorate_autocast", Self: args[0], Fn: func(in *eval.Interp, fn eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			s := bindingOf(in).S
			region.enter(s)
			defer region.exit(s)
			return in.Call(fn, args, kw)
		}}
		return eval.Track(in, w), nil
	}))
}

// newAutocast is autocast(device_type, dtype, enabled, cache_enabled)
// with its arguments read (nil: absent): dtype and cache_enabled
// default to the setting in force, as PyTorch's constructor reads them.
func (b *Binding) newAutocast(device, dtype, enabled, cache eval.Value) (eval.Value, error) {
	in := b.in
	dev, ok := device.(string)
	if !ok {
		return nil, in.Raise(eval.ValueErrorType, "Expected `device_type` of type `str`, got: `%s`", eval.TypeOf(device).Name)
	}
	if kind, _, _ := strings.Cut(dev, ":"); kind != "cuda" {
		if !slices.Contains(deviceTypes, kind) {
			return nil, in.Raise(eval.RuntimeErrorType, "Expected one of %s device type at start of device string: %s", strings.Join(deviceTypes, ", "), dev)
		}
		return nil, b.notModelled("torch.autocast on device '" + dev + "' (only 'cuda' is)")
	}
	st := b.S.Autocast()
	st.Enabled = true
	if dtype != nil && dtype != eval.None {
		d, ok := dtype.(*DTypeObj)
		if !ok {
			return nil, in.Raise(eval.TypeErrorType, "autocast(): dtype must be a torch.dtype, not %s", eval.TypeOf(dtype).Name)
		}
		st.DType = d.D
	}
	for i, v := range []eval.Value{enabled, cache} {
		if v == nil || v == eval.None {
			continue
		}
		on, ok := v.(bool)
		if !ok {
			return nil, in.Raise(eval.ValueErrorType, "Expected `%s` of type `bool`, got: `%s`", []string{"enabled", "cache_enabled"}[i], eval.TypeOf(v).Name)
		}
		if i == 0 {
			st.Enabled = on
		} else {
			st.CacheEnabled = on
		}
	}
	if !slices.Contains([]string{"float16", "bfloat16", "float32"}, st.DType.Name) {
		return nil, b.notModelled("torch.autocast to " + st.DType.Name)
	}
	return eval.Track(in, &autocastObj{st: st}), nil
}

// deviceTypes are the device types PyTorch 2.11 parses, as its error
// lists them (amp_probe.txt).
var deviceTypes = []string{"cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
	"maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone"}

// autocasts declares torch.autocast and the functions that read its
// setting in torch, and torch.amp.
func (b *Binding) autocasts(torch *eval.ModuleObj) {
	in := b.in
	b.fn(torch, "autocast", "autocast(device_type, dtype=None, enabled=True, cache_enabled=None): ops of PyTorch's lists run in dtype (their inputs cast, a weight's cast kept until the outermost region exits)", b.autocastFn)
	b.fn(torch, "is_autocast_enabled", "is_autocast_enabled(device_type='cuda')", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("is_autocast_enabled", args, kw, 0, "device_type")
		if err != nil {
			return nil, err
		}
		if a[0] != nil && a[0] != "cuda" {
			return nil, b.notModelled("autocast on another device than 'cuda'")
		}
		return b.S.Autocast().Enabled, nil
	})
	b.fn(torch, "get_autocast_dtype", "get_autocast_dtype(device_type)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("get_autocast_dtype", args, kw, 1, "device_type")
		if err != nil {
			return nil, err
		}
		if a[0] != "cuda" {
			return nil, b.notModelled("autocast on another device than 'cuda'")
		}
		return dtypeObj(b.S.Autocast().DType), nil
	})
	b.fn(torch, "get_autocast_gpu_dtype", "get_autocast_gpu_dtype(): get_autocast_dtype('cuda')", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("get_autocast_gpu_dtype", args, 0); err != nil {
			return nil, err
		}
		return dtypeObj(b.S.Autocast().DType), nil
	})
	// the host's autocast is refused (autocastFn), so never on
	b.fn(torch, "is_autocast_cpu_enabled", "is_autocast_cpu_enabled(): is_autocast_enabled('cpu'), False: autocast on the host is not modelled", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("is_autocast_cpu_enabled", args, 0); err != nil {
			return nil, err
		}
		return false, nil
	})
	b.fn(torch, "get_autocast_cpu_dtype", "get_autocast_cpu_dtype(): the host's autocast dtype, PyTorch's default torch.bfloat16", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("get_autocast_cpu_dtype", args, 0); err != nil {
			return nil, err
		}
		return dtypeObj(engine.DTypes["bfloat16"]), nil
	})
	b.fn(torch, "is_autocast_cache_enabled", "is_autocast_cache_enabled()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("is_autocast_cache_enabled", args, 0); err != nil {
			return nil, err
		}
		return b.S.Autocast().CacheEnabled, nil
	})
	b.fn(torch, "clear_autocast_cache", "clear_autocast_cache(): frees the cast copies only the cache holds", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("clear_autocast_cache", args, 0); err != nil {
			return nil, err
		}
		b.S.ClearAutocastCache()
		return eval.None, nil
	})
	amp := in.NewModule("torch.amp")
	b.fn(amp, "autocast", "autocast(device_type, dtype=None, enabled=True, cache_enabled=None)", b.autocastFn)
	b.fn(amp, "GradScaler", "GradScaler(device='cuda', init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return b.newGradScaler("GradScaler", args, kw, true)
	})
	in.AddModule("torch.amp", amp)
	torch.Set(in, "amp", amp)
	in.Decref(amp)
}

// autocastFn is torch.autocast's constructor.
func (b *Binding) autocastFn(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	a, err := in.ArgSpec("autocast", args, kw, 1, "device_type", "dtype", "enabled", "cache_enabled")
	if err != nil {
		return nil, err
	}
	return b.newAutocast(a[0], a[1], a[2], a[3])
}

// cudaAmp declares torch.cuda.amp in torch.cuda: autocast and
// GradScaler, each deprecated for torch.amp's with PyTorch's warning.
func (b *Binding) cudaAmp(cuda *eval.ModuleObj) {
	in := b.in
	m := in.NewModule("torch.cuda.amp")
	b.fn(m, "autocast", "autocast(enabled=True, dtype=torch.float16, cache_enabled=True): deprecated for torch.amp.autocast('cuda', ...)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("autocast", args, kw, 0, "enabled", "dtype", "cache_enabled")
		if err != nil {
			return nil, err
		}
		if err := in.Warn(eval.FutureWarningType, "`torch.cuda.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cuda', args...)` instead.", 1); err != nil {
			return nil, err
		}
		if a[1] == nil {
			a[1] = dtypeObj(engine.DTypes["float16"])
		}
		if a[2] == nil {
			a[2] = true
		}
		return b.newAutocast("cuda", a[1], a[0], a[2])
	})
	b.fn(m, "GradScaler", "GradScaler(init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=True): deprecated for torch.amp.GradScaler('cuda', ...)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := in.Warn(eval.FutureWarningType, "`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', args...)` instead.", 1); err != nil {
			return nil, err
		}
		return b.newGradScaler("GradScaler", args, kw, false)
	})
	in.AddModule("torch.cuda.amp", m)
	cuda.Set(in, "amp", m)
	in.Decref(m)
}
