package torchpy

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// What model code names beyond tensors, as eager PyTorch runs it:
// torch.jit's and torch.fx's decorators and queries (no-ops outside
// TorchScript and FX tracing), torch.compile and torch.compiler (the
// model runs eagerly, with compileNote once), torch._dynamo's helpers,
// torch.finfo and torch.iinfo, torch._assert and torch's constants,
// torch.Generator.
// Each is written in Python, in the .py file of its module beside this
// one.

var (
	//go:embed jit.py
	jitSource string
	//go:embed jit_annotations.py
	jitAnnotationsSource string
	//go:embed fx.py
	fxSource string
	//go:embed compiler.py
	compilerSource string
	//go:embed dynamo.py
	dynamoSource string
	//go:embed typeinfo.py
	typeinfoSource string
	//go:embed distributed.py
	distributedSource string
	//go:embed grad_mode.py
	gradModeSource string
	//go:embed as_tensor.py
	asTensorSource string
	//go:embed functional.py
	functionalSource string
	//go:embed foreach.py
	foreachSource string
	//go:embed onnx.py
	onnxSource string
	//go:embed onnx_operators.py
	onnxOperatorsSource string
	//go:embed multiprocessing.py
	multiprocessingSource string
	//go:embed serialization.py
	serializationSource string
	//go:embed profiler.py
	profilerSource string
	//go:embed cudnn_flags.py
	cudnnFlagsSource string
	//go:embed dynamo_config.py
	dynamoConfigSource string
	//go:embed inductor_config.py
	inductorConfigSource string
	//go:embed distributed_fsdp.py
	fsdpSource string
	//go:embed distributed_fsdp_wrap.py
	fsdpWrapSource string
	//go:embed distributed_tensor.py
	dtensorSource string
	//go:embed distributed_tensor_parallel.py
	tensorParallelSource string
	//go:embed generator.py
	generatorSource string
	//go:embed numpy_array.py
	numpyArraySource string
	//go:embed storage.py
	storageSource string
	//go:embed distributions.py
	distributionsSource string
)

// compileNote is what torch.compile says once a run: the figures that
// follow are eager PyTorch's, and how a compiled model's differ.
const compileNote = "gpumemrepl: torch.compile runs the model eagerly here, so the figures are eager PyTorch's, an estimate for compiled code: " +
	"Inductor fuses elementwise ops (their temporaries are never made), its partitioner saves other activations for backward " +
	"(recomputing cheap ones), mode='reduce-overhead' keeps CUDA graphs' static buffers in a private pool, and compiling itself " +
	"(autotuning's benchmark buffers) allocates once\n"

// eagerModules declares torch.jit (with torch.jit.annotations),
// torch.fx, torch.compiler, torch._dynamo and torch._inductor (with their
// config modules) and torch.distributed (with fsdp, fsdp.wrap, tensor and
// tensor.parallel), torch.profiler, torch.serialization (its
// allowlist), torch.onnx (with operators) and torch.multiprocessing as
// modules of torch, and
// torch.compile, finfo, iinfo, _assert, as_tensor, the composites of
// functional.py (meshgrid, outer, hstack, vstack), layout and strided,
// the RNN cells (rnn_cells.py), the _foreach ops model code calls
// (foreach.py), Generator (generator.py), from_numpy (numpy_array.py, with
// Tensor.numpy's arrays), pi, e, inf and nan in
// torch
// itself.
func (b *Binding) eagerModules(torch *eval.ModuleObj) error {
	in := b.in
	noted := false
	for _, sub := range []struct{ name, src string }{{"jit", jitSource}, {"jit.annotations", jitAnnotationsSource}, {"fx", fxSource},
		{"compiler", compilerSource}, {"_dynamo", dynamoSource}, {"_dynamo.config", dynamoConfigSource}, {"_inductor", ""},
		{"_inductor.config", inductorConfigSource}, {"distributed", distributedSource}, {"distributed.fsdp", fsdpSource},
		{"distributed.fsdp.wrap", fsdpWrapSource}, {"distributed.tensor", dtensorSource}, {"distributed.tensor.parallel", tensorParallelSource}, {"profiler", profilerSource}, {"storage", storageSource}, {"distributions", distributionsSource}, {"serialization", serializationSource},
		{"onnx", onnxSource}, {"onnx.operators", onnxOperatorsSource}, {"multiprocessing", multiprocessingSource}} {
		m := in.NewModule("torch." + sub.name)
		if sub.name == "compiler" {
			b.fn(m, "_compile_note", "", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
				if !noted {
					noted = true
					fmt.Fprint(in.Stderr, compileNote)
				}
				return eval.None, nil
			})
		}
		if sub.name == "storage" {
			m.Set(in, "UntypedStorage", untypedStorageType)
		}
		if err := b.execInto(m, "<torch."+sub.name+">", sub.src); err != nil {
			return err
		}
		in.AddModule("torch."+sub.name, m)
		// the module's parent: torch, or the module named before the last dot
		parent := torch
		path, short, nested := strings.Cut(sub.name, ".")
		for nested {
			v, _ := parent.Dict.GetStr(path)
			parent = v.(*eval.ModuleObj)
			path, short, nested = strings.Cut(short, ".")
		}
		parent.Set(in, path, m)
		switch sub.name {
		case "compiler":
			compile, _ := m.Dict.GetStr("compile")
			torch.Set(in, "compile", compile)
		case "storage":
			for _, name := range []string{"UntypedStorage", "TypedStorage", "is_storage"} {
				v, _ := m.Dict.GetStr(name)
				torch.Set(in, name, v)
			}
		}
		in.Decref(m)
	}
	fx, _ := torch.Dict.GetStr("fx")
	for sub, names := range fxSubmodules {
		m := in.NewModule("torch.fx." + sub)
		for _, name := range strings.Fields(names) {
			v, _ := fx.(*eval.ModuleObj).Dict.GetStr(name)
			m.Set(in, name, v)
		}
		in.AddModule("torch.fx."+sub, m)
		fx.(*eval.ModuleObj).Set(in, sub, m)
		in.Decref(m)
	}
	c, _ := torch.Dict.GetStr("_C")
	b.fn(c.(*eval.ModuleObj), "_get_tracing_state", "_get_tracing_state(): None, as nothing is traced", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return eval.None, nil
	})
	info := in.NewModule("torch")
	defer in.Decref(info)
	for _, src := range []string{typeinfoSource, asTensorSource, functionalSource, foreachSource, layoutSource, rnnCellsSource, generatorSource, numpyArraySource} {
		if err := b.execInto(info, "<torch>", src); err != nil {
			return err
		}
	}
	for _, name := range []string{"finfo", "iinfo", "_assert", "pi", "e", "inf", "nan", "as_tensor", "meshgrid", "outer", "ger", "hstack", "vstack", "layout", "strided", "sparse_coo",
		"lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell",
		"_foreach_add_", "_foreach_sub_", "_foreach_mul_", "_foreach_copy_", "_foreach_lerp_", "_foreach_sub", "_shape_as_tensor", "Generator", "from_numpy"} {
		v, _ := info.Dict.GetStr(name)
		torch.Set(in, name, v)
	}
	b.strided, _ = info.Dict.GetStr("strided")
	eval.Incref(b.strided)
	b.toNumpy, _ = info.Dict.GetStr("_numpy")
	eval.Incref(b.toNumpy)
	return nil
}

// fxSubmodules are torch.fx's modules that code names fx's classes by
// (torch.fx.node.Node, torch.fx.proxy.Proxy), each holding those of
// fx.py.
var fxSubmodules = map[string]string{"node": "Node Target", "proxy": "Proxy", "graph": "Graph", "graph_module": "GraphModule _copy_attr"}

// execInto runs Python source src in module m's namespace.
func (b *Binding) execInto(m *eval.ModuleObj, file, src string) error {
	fr := b.in.ModuleFrame(file, m.Dict)
	defer b.in.Release(fr)
	return b.in.ExecSource(fr, file, src)
}
