package torchpy

import (
	"math/big"
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// Install declares torch and its submodules in in, over session s.
func Install(in *eval.Interp, s *engine.Session) *Binding {
	b := &Binding{S: s, in: in, fnNodes: map[*eval.Instance]*fnContext{}}
	in.Embedder = b
	in.Hooks.MissingAttr = missingAttr
	in.Hooks.AutoCollect = func(gen int, run func() int) error {
		before := b.released
		run()
		if freed := b.released - before; freed > 0 {
			return b.pyErr(s.EstimateCollection(gen, freed))
		}
		return nil
	}
	// torch's modules are made as they are imported, all of them while
	// CPython imports torch whole: what they allocate counts nothing in
	// the collector's generations
	in.RegisterModule("torch", in.Unmetered(b.torchModule))
	// a script's first import of torch (or of a module of it) leaves
	// the collector as CPython's import torch does; the module the tool
	// made before for its command form is not the script's import
	in.Hooks.Imported = func(name string) {
		if !b.imported && (name == "torch" || strings.HasPrefix(name, "torch.")) {
			in.SetGCState(b.importedState())
			b.imported = true
		}
	}
	in.RegisterModule("torch.cuda", in.Unmetered(b.cudaModule))
	in.RegisterModule("torch.nn", in.Unmetered(b.nnModule))
	in.RegisterModule("torch.nn.functional", in.Unmetered(b.functionalModule))
	in.RegisterModule("torch.optim", in.Unmetered(b.optimModule))
	in.RegisterModule("torch.return_types", in.Unmetered(b.returnTypesModule))
	in.RegisterModule("torch.utils", in.Unmetered(func(in *eval.Interp) (*eval.ModuleObj, error) { return in.NewModule("torch.utils"), nil }))
	in.RegisterModule("torch.utils.checkpoint", in.Unmetered(b.checkpointModule))
	in.RegisterModule("torch.utils.data", in.Unmetered(b.dataModule))
	in.RegisterModule("torch.accelerator", in.Unmetered(b.acceleratorModule))
	in.RegisterModule("numpy", numpyModule)
	return b
}

// fn declares a function of module m.
func (b *Binding) fn(m *eval.ModuleObj, name, doc string, f eval.GoFunc) {
	m.Set(b.in, name, eval.NewBuiltin(name, doc, f))
}

// factoryOpts are the keywords a factory takes.
type factoryOpts struct {
	dtype        engine.DType
	device       engine.Device
	requiresGrad bool
	pinned       bool // pin_memory=True
}

// cudaStarts reads os.environ's PYTORCH_CUDA_ALLOC_CONF before the
// first CUDA allocation, as PyTorch reads the variable when its CUDA
// allocator starts.
func (b *Binding) cudaStarts(dev engine.Device) error {
	if !dev.CUDA || b.cudaUsed {
		return nil
	}
	b.cudaUsed = true
	// what CUDA's lazy initialization makes in Python, leaves for the
	// collector and keeps
	b.in.LeaveCycle(cudaInitLeft)
	b.cudaHeld = b.in.NewHeld(cudaInitKept)
	b.in.ListsFreed(cudaInitFreedLists)
	os, ok := b.in.Imported("os")
	if !ok {
		return nil
	}
	env, ok := os.Dict.GetStr("environ")
	if !ok {
		return nil
	}
	d, ok := env.(*eval.Dict)
	if !ok {
		return nil
	}
	if conf, ok := d.GetStr("PYTORCH_CUDA_ALLOC_CONF"); ok {
		if s, ok := conf.(string); ok {
			if err := b.S.SetAllocConf(s); err != nil {
				return b.pyErr(err)
			}
		}
	}
	return nil
}

// create runs a factory.
func (b *Binding) create(op string, shape []int64, o factoryOpts, values []float64) (eval.Value, error) {
	if err := b.cudaStarts(o.device); err != nil {
		return nil, err
	}
	t, err := b.S.NewTensor(engine.TensorSpec{Op: op, Shape: shape, DType: o.dtype, Device: o.device, RequiresGrad: o.requiresGrad, Values: values, Pinned: o.pinned})
	if err != nil {
		return nil, b.pyErr(err)
	}
	return b.wrap(t), nil
}

func (b *Binding) torchModule(in *eval.Interp) (*eval.ModuleObj, error) {
	collections, err := in.Import("collections") // as torch's own modules import it
	if err != nil {
		return nil, err
	}
	if b.orderedDict, err = in.GetAttr(collections, "OrderedDict"); err != nil {
		return nil, err
	}
	if b.defaultDict, err = in.GetAttr(collections, "defaultdict"); err != nil {
		return nil, err
	}
	m := in.NewModule("torch")
	m.Set(in, "__version__", "2.11.0")
	m.Set(in, "Tensor", TensorType)
	m.Set(in, "Size", SizeType)
	m.Set(in, "dtype", DTypeType)
	m.Set(in, "OutOfMemoryError", OutOfMemoryErrorType)
	m.Set(in, "AcceleratorError", AcceleratorErrorType)
	b.declareMemoryFormats(m)
	future := b.futureModule(in)
	in.AddModule("torch.__future__", future)
	m.Set(in, "__future__", future)
	in.Decref(future)
	b.declareLegacyTypes(m, false)
	b.declareCloseness(m)
	for name, d := range engine.DTypes {
		m.Set(in, name, dtypeObj(d))
	}
	b.fn(m, "device", "device(type_or_string, index=None)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(args) == 2 {
			i, err := in.Index(args[1])
			if err != nil {
				return nil, err
			}
			s, _ := args[0].(string)
			if s != "cuda" {
				return nil, in.Raise(eval.RuntimeErrorType, "an index goes with a cuda device only")
			}
			d, err := b.parseDevice(int64(i))
			if err != nil {
				return nil, err
			}
			return eval.Track(in, &DeviceObj{D: d, indexed: true}), nil
		}
		if len(args) != 1 {
			return nil, in.Raise(eval.TypeErrorType, "device() takes 1 or 2 arguments")
		}
		d, err := b.parseDevice(args[0])
		if err != nil {
			return nil, err
		}
		s, isStr := args[0].(string)
		return eval.Track(in, &DeviceObj{D: d, indexed: !isStr || len(s) > 4}), nil
	})
	b.fn(m, "is_tensor", "is_tensor(obj)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("is_tensor", args, 1); err != nil {
			return nil, err
		}
		_, ok := args[0].(*Tensor)
		return ok, nil
	})
	b.fn(m, "is_floating_point", "is_floating_point(input): whether input's dtype is a floating one", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("is_floating_point", args, kw, 1, "input")
		if err != nil {
			return nil, err
		}
		t, ok := a[0].(*Tensor)
		if !ok {
			return nil, in.Raise(eval.TypeErrorType, "is_floating_point(): argument 'input' (position 1) must be Tensor, not %s", in.TypeName(a[0]))
		}
		return t.T.DType.IsFloatingPoint(), nil
	})
	b.fn(m, "manual_seed", "manual_seed(seed): values are not computed; a cuDNN RNN with dropout makes its dropout state again after it", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		b.S.SeedCUDA()
		return eval.None, nil
	})
	b.opFunctions(m)
	if err := b.gradModes(m); err != nil {
		return nil, err
	}
	// torch.xpu, Intel's GPUs, as on a machine without one: none is
	// available, and empty_cache does nothing before one is initialized
	xpu := in.NewModule("torch.xpu")
	b.fn(xpu, "is_available", "is_available(): False, as on a machine without an Intel GPU", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return false, b.arity("is_available", args, 0)
	})
	b.fn(xpu, "device_count", "device_count(): 0", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return int64(0), b.arity("device_count", args, 0)
	})
	b.fn(xpu, "empty_cache", "empty_cache(): nothing, as no Intel GPU was initialized", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return eval.None, b.arity("empty_cache", args, 0)
	})
	in.AddModule("torch.xpu", xpu)
	m.Set(in, "xpu", xpu)
	in.Decref(xpu)
	backends := in.NewModule("torch.backends")
	for _, name := range []string{"cudnn", "cuda", "opt_einsum", "mps"} {
		sub := in.NewModule("torch.backends." + name)
		in.AddModule("torch.backends."+name, sub)
		backends.Set(in, name, sub)
		switch name {
		case "cudnn":
			b.cudnnFlags(in, sub)
			if err := b.execInto(sub, "<torch.backends.cudnn>", cudnnFlagsSource); err != nil {
				return nil, err
			}
		case "opt_einsum":
			b.optEinsumFlags(in, sub)
		case "cuda":
			b.cudaMatmulFlags(in, sub)
		case "mps":
			for _, f := range []string{"is_available", "is_built"} {
				b.fn(sub, f, f+"(): False, as on a machine without Apple's GPU", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
					return false, nil
				})
			}
		}
		in.Decref(sub)
	}
	in.AddModule("torch.backends", backends)
	m.Set(in, "backends", backends)
	in.Decref(backends)
	for _, sub := range []struct {
		name string
		make func(*eval.Interp) (*eval.ModuleObj, error)
	}{{"cuda", b.cudaModule}, {"nn", b.nnModule}, {"optim", b.optimModule}, {"_C", b.cModule}, {"accelerator", b.acceleratorModule}, {"return_types", b.returnTypesModule}} {
		sm, err := sub.make(in)
		if err != nil {
			return nil, err
		}
		in.AddModule("torch."+sub.name, sm)
		m.Set(in, sub.name, sm)
	}
	b.declareRNGStates(m)
	b.serialization(m)
	b.defaults(m)
	if err := b.eagerModules(m); err != nil {
		return nil, err
	}
	return m, nil
}

// number is a Python number as a float.
func number(v eval.Value) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	case bool:
		if x {
			return 1, true
		}
		return 0, true
	case *big.Int:
		f, _ := new(big.Float).SetInt(x).Float64()
		return f, true
	}
	return 0, false
}

// Kinds of torch.tensor's data, widest last.
const (
	kindBool = iota
	kindInt
	kindFloat
)

// data reads torch.tensor's nested lists of numbers: shape, values in
// order, and the widest kind of element.
func (b *Binding) data(v eval.Value) ([]int64, []float64, int, error) {
	var items []eval.Value
	switch x := v.(type) {
	case *eval.List:
		items = x.Items()
	case *eval.Tuple:
		items = x.Items()
	case *Tensor:
		return nil, nil, 0, b.notModelled("torch.tensor(a tensor)")
	default:
		f, ok := number(v)
		if !ok {
			return nil, nil, 0, b.in.Raise(eval.TypeErrorType, "Could not infer dtype of %s", eval.TypeOf(v).Name)
		}
		kind := kindFloat
		switch v.(type) {
		case bool:
			kind = kindBool
		case int64, *big.Int:
			kind = kindInt
		}
		return nil, []float64{f}, kind, nil
	}
	var inner []int64
	var vals []float64
	kind := kindBool
	for i, it := range items {
		s, vs, k, err := b.data(it)
		if err != nil {
			return nil, nil, 0, err
		}
		if i > 0 && !slices.Equal(s, inner) {
			return nil, nil, 0, b.in.Raise(eval.ValueErrorType, "expected sequence of length %d at dim %d (got %d)", firstOr(inner), 1, firstOr(s))
		}
		inner = s
		vals = append(vals, vs...)
		kind = max(kind, k)
	}
	if len(items) == 0 {
		kind = kindFloat
	}
	return append([]int64{int64(len(items))}, inner...), vals, kind, nil
}

func firstOr(s []int64) int64 {
	if len(s) == 0 {
		return 0
	}
	return s[0]
}

// optEinsumFlags gives torch.backends.opt_einsum the GPU machine's
// state (opt_einsum installed: is_available() True, enabled, strategy
// "auto") and lets the session read enabled and strategy from it at
// each einsum.
func (b *Binding) optEinsumFlags(in *eval.Interp, m *eval.ModuleObj) {
	m.Set(in, "enabled", true)
	m.Set(in, "strategy", "auto")
	b.fn(m, "is_available", "is_available(): True, as where opt_einsum is installed", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return true, nil
	})
	b.S.SetEinsumPathFlags(func() engine.EinsumPathFlags {
		f := engine.EinsumPathFlags{Strategy: "auto"}
		if v, ok := m.Dict.GetStr("enabled"); ok {
			on, err := in.Truth(v)
			f.Disabled = err == nil && !on
		}
		if v, ok := m.Dict.GetStr("strategy"); ok {
			if str, ok := v.(string); ok {
				f.Strategy = str
			}
		}
		return f
	})
}

// cudaMatmulFlags gives torch.backends.cuda.matmul PyTorch's defaults
// (TF32 off for matrix products, reduced-precision reductions allowed);
// none changes memory.
func (b *Binding) cudaMatmulFlags(in *eval.Interp, m *eval.ModuleObj) {
	matmul := in.NewModule("torch.backends.cuda.matmul")
	defer in.Decref(matmul)
	matmul.Set(in, "allow_tf32", false)
	matmul.Set(in, "allow_fp16_reduced_precision_reduction", true)
	matmul.Set(in, "allow_bf16_reduced_precision_reduction", true)
	m.Set(in, "matmul", matmul)
}

// cudnnFlags gives torch.backends.cudnn PyTorch's defaults and
// is_acceptable, and lets the session read benchmark, deterministic and
// enabled from it at each convolution and RNN.
func (b *Binding) cudnnFlags(in *eval.Interp, m *eval.ModuleObj) {
	for _, name := range []string{"benchmark", "deterministic"} {
		m.Set(in, name, false)
	}
	m.Set(in, "enabled", true)
	m.Set(in, "allow_tf32", true)
	flag := func(name string) bool {
		v, ok := m.Dict.GetStr(name)
		if !ok {
			return false
		}
		t, err := in.Truth(v)
		return err == nil && t
	}
	b.fn(m, "is_acceptable", "is_acceptable(tensor): whether cuDNN takes it (enabled, a CUDA tensor of float16, float32 or float64)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("is_acceptable", args, 1); err != nil {
			return nil, err
		}
		t, err := b.tensorOf(args[0], "is_acceptable")
		if err != nil {
			return nil, err
		}
		switch t.T.DType.Name {
		case "float16", "float32", "float64":
			v, set := m.Dict.GetStr("enabled")
			on, err := in.Truth(v)
			return t.T.Device().CUDA && (!set || err == nil && on), nil
		}
		return false, nil
	})
	b.S.SetCudnnFlags(func() engine.CudnnFlags {
		v, set := m.Dict.GetStr("enabled")
		off, err := in.Truth(v)
		return engine.CudnnFlags{Benchmark: flag("benchmark"), Deterministic: flag("deterministic"), Disabled: set && err == nil && !off}
	})
}
