// Package torchpy is the torch module of python/eval's Python: torch,
// torch.cuda, torch.nn, torch.nn.functional and torch.optim declared as
// Go builtins over the engine's Go API. A Python tensor object is one
// engine tensor reference (a TensorImpl); when the object dies, as
// python/eval's reference counts decide, the reference is released and
// the storage freed with its last one. What the engine does not model
// raises NotImplementedError saying so; nothing is made up.
package torchpy

import (
	"slices"
	"strings"
	"sync"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// Tensor is a torch.Tensor (or nn.Parameter) object.
type Tensor struct {
	eval.Header
	T     *engine.Tensor
	b     *Binding
	param bool
	// base is what a view was made of (x for x.view(-1) and for
	// x.view(-1)[1:]): its _base, kept alive with it as PyTorch's view
	// keeps its base.
	base *Tensor
}

// TensorType is torch.Tensor; ParameterType is torch.nn.Parameter.
var (
	TensorType    = eval.NewClass("Tensor", "torch")
	ParameterType = eval.NewClass("Parameter", "torch.nn.parameter", TensorType)
	// OutOfMemoryErrorType is torch.OutOfMemoryError (a RuntimeError).
	OutOfMemoryErrorType = eval.NewExceptionClass("OutOfMemoryError", "torch", eval.RuntimeErrorType)
)

// Type is Tensor or Parameter.
func (t *Tensor) Type() *eval.Class {
	if t.param {
		return ParameterType
	}
	return TensorType
}

// Traverse visits a view's base, the one Python object a tensor holds.
func (t *Tensor) Traverse(visit func(eval.Value)) {
	if t.base != nil {
		visit(t.base)
	}
}

// Clear drops a view's base; Finalize releases the engine reference.
func (t *Tensor) Clear(in *eval.Interp) {
	if b := t.base; b != nil {
		t.base = nil
		in.Decref(b)
	}
}

// Finalize releases the tensor's reference; the freeing of its storage
// is an event named as the Python program last called it.
func (t *Tensor) Finalize(in *eval.Interp) {
	if t.T == nil {
		return
	}
	t.Clear(in) // the base's reference first, so the view frees what they share, under its name
	et := t.T
	t.T = nil
	if n, dev, ok := t.b.S.Release(et); ok {
		t.b.released += n
		if l := t.b.label(in, t); l != "" {
			t.b.S.Eventf("freed %s (%s on %s)", l, allocator.FormatSize(n), dev)
		}
	}
}

// viewOf makes the new tensor v a view of t, when it shares t's storage
// (an op that returned a view, not a copy): its _base is t's base, or t.
func viewOf(v, t *Tensor) *Tensor {
	if v == t || v.base != nil || !v.T.SameStorage(t.T) {
		return v
	}
	v.base = t
	if t.base != nil {
		v.base = t.base
	}
	eval.Incref(v.base)
	return v
}

// Binding ties an interpreter's torch module to an engine session.
type Binding struct {
	S  *engine.Session
	in *eval.Interp
	// AsRecorded runs a script as scripts/record_gc.py records it (the
	// collector's state after import torch as in its recordings; the
	// runner calls RecorderReads after each statement); imported is set
	// once the script has imported torch (an import statement).
	AsRecorded, imported bool
	// cudaHeld is what CUDA's start made in Python and keeps (cudaInitKept).
	cudaHeld eval.Value
	// typingHeld is what the first backwards (backwardPython) and
	// load_state_dict keep for good; backwards counts the backwards.
	typingHeld []eval.Value
	backwards  int
	// stateLoaded is set once a load_state_dict ran
	// (loadStateDictPython keeps what its first call makes there too).
	stateLoaded bool
	// dynamoImported is set once an optimizer's add_param_group ran
	// (the first imports torch._dynamo: dynamoImport).
	dynamoImported bool
	// cudaUsed is set once CUDA was first used (PYTORCH_CUDA_ALLOC_CONF
	// is read then).
	cudaUsed bool
	raw      map[int64]*engine.Tensor // caching_allocator_alloc's blocks, by address
	marks    []engine.EventMark       // torch.cuda.Event's records, by cuda_event - 1
	// legacyWarned is set once a torch.cuda.*Tensor constructor warned
	// (PyTorch warns once a process).
	legacyWarned bool
	// accWarned is set once a backward warned that a leaf's
	// AccumulateGrad took a gradient of another stream (once a process).
	accWarned bool
	// accWarnOff is set by
	// torch.autograd.graph.set_warn_on_accumulate_grad_stream_mismatch(False).
	accWarnOff bool
	// decorate is grad_mode.py's _decorate(mode, fn): a grad mode's
	// wrapper of a function it decorates.
	decorate eval.Value
	// orderedDict is collections.OrderedDict, which import torch
	// imports (Module.__init__'s hook registries are OrderedDicts), and
	// defaultDict collections.defaultdict (an optimizer's state).
	orderedDict, defaultDict eval.Value
	// gradObjects are the Python objects of parameters' gradients that
	// PyTorch keeps while the gradient lives, by parameter
	// (optim_python.go); zeroGradKept what the first zero_grad keeps.
	gradObjects  map[*engine.Tensor]eval.Value
	zeroGradKept []eval.Value
	// adamBetas is Adam's and AdamW's default betas, (0.9, 0.999).
	adamBetas eval.Value
	// deviceBlocks are the default devices that torch.device blocks
	// entered replaced, innermost last (defaults.go).
	deviceBlocks []engine.Device
	// fnNodes are the custom Functions' contexts whose nodes live
	// (autograd_function.go); the saved-tensor hooks installed,
	// innermost last (savedHooks), and hooksOff, when set,
	// disable_saved_tensors_hooks' message.
	fnNodes    map[*eval.Instance]*fnContext
	savedHooks []*pyHooks
	hooksOff   *string
	// strided is torch.strided, every tensor's layout.
	strided eval.Value
	// toNumpy is numpy_array.py's _numpy(tensor, force): Tensor.numpy.
	toNumpy eval.Value
	// released is the bytes tensors let go of, ever (what a collection
	// freed is the difference).
	released uint64
	// overwriteParams is torch.__future__'s
	// set_overwrite_module_params_on_conversion.
	overwriteParams bool
	// members keeps the modules' parameters and buffers that the walk
	// of names found (holders.go).
	members memberCache
}

// label is what an event calls a dying tensor: "" for a temporary
// (made and freed inside one statement, it changes no figure of the
// step, and the step says nothing of it).
func (b *Binding) label(in *eval.Interp, t *Tensor) string {
	if l := in.DyingLabel(t); l != "" {
		return l
	}
	if l := in.DroppingLabel(); l != "" {
		return "a tensor of " + l
	}
	return ""
}

// wrap makes the Python object of an engine tensor reference (owned).
func (b *Binding) wrap(t *engine.Tensor) *Tensor {
	return eval.Track(b.in, &Tensor{T: t, b: b})
}

// arity is the TypeError for a method called with other than n
// arguments.
func (b *Binding) arity(name string, args []eval.Value, n int) error {
	if len(args) != n {
		return b.in.Raise(eval.TypeErrorType, "%s() takes %d argument%s (%d given)", name, n, map[bool]string{true: "", false: "s"}[n == 1], len(args))
	}
	return nil
}

// Wrap makes the Python object of an engine tensor reference, which it
// takes over (an owned value).
func (b *Binding) Wrap(t *engine.Tensor) *Tensor { return b.wrap(t) }

// Error is an engine error as the Python exception PyTorch raises.
func (b *Binding) Error(err error) error { return b.pyErr(err) }

// tensorOf is v as a tensor, or a TypeError naming what wanted one.
func (b *Binding) tensorOf(v eval.Value, what string) (*Tensor, error) {
	if t, ok := v.(*Tensor); ok && t.T != nil {
		return t, nil
	}
	return nil, b.in.Raise(eval.TypeErrorType, "%s(): argument must be Tensor, not %s", what, eval.TypeOf(v).Name)
}

// notModelled is the error for a part of PyTorch the tool does not
// model: it says so rather than guess.
func (b *Binding) notModelled(what string) error {
	return b.in.Refuse(eval.NotImplementedErrType, "gpumemrepl does not model %s yet, so it cannot say what memory it uses", what)
}

// method declares a Tensor method.
func method(name, doc string, fn eval.GoFunc) {
	TensorType.SetMethod(eval.NewBuiltin(name, doc, fn))
}

// property declares a read-only Tensor property.
func property(name string, get func(b *Binding, t *Tensor) (eval.Value, error)) {
	TensorType.SetAttr(name, eval.NewProperty(eval.NewBuiltin(name, "", func(in *eval.Interp, self eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		t := self.(*Tensor)
		if t.T == nil {
			return nil, in.Raise(eval.RuntimeErrorType, "tensor already released")
		}
		return get(t.b, t)
	}), nil))
}

// self is a method's receiver as a live tensor.
func self(in *eval.Interp, v eval.Value) (*Tensor, error) {
	t, ok := v.(*Tensor)
	if !ok || t.T == nil {
		return nil, in.Raise(eval.TypeErrorType, "descriptor requires a 'torch.Tensor' object but received a '%s'", eval.TypeOf(v).Name)
	}
	return t, nil
}

// tensorMethod declares a method whose receiver is a tensor.
func tensorMethod(name, doc string, fn func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error)) {
	method(name, doc, func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		t, err := self(in, s)
		if err != nil {
			return nil, err
		}
		return fn(t.b, t, args, kw)
	})
}

func init() {
	property("shape", func(b *Binding, t *Tensor) (eval.Value, error) { return b.size(t.T.Shape), nil })
	property("dtype", func(b *Binding, t *Tensor) (eval.Value, error) { return dtypeObj(t.T.DType), nil })
	property("device", func(b *Binding, t *Tensor) (eval.Value, error) { return b.deviceObj(t.T.Device()), nil })
	property("is_cuda", func(b *Binding, t *Tensor) (eval.Value, error) { return t.T.Device().CUDA, nil })
	property("is_meta", func(b *Binding, t *Tensor) (eval.Value, error) { return t.T.IsMeta(), nil })
	property("is_cpu", func(b *Binding, t *Tensor) (eval.Value, error) { return !t.T.Device().CUDA && !t.T.IsMeta(), nil })
	property("is_xpu", func(b *Binding, t *Tensor) (eval.Value, error) { return false, nil }) // no Intel GPU here
	property("is_leaf", func(b *Binding, t *Tensor) (eval.Value, error) { return t.T.IsLeaf(), nil })
	property("_version", func(b *Binding, t *Tensor) (eval.Value, error) { return int64(t.T.Version()), nil })
	property("ndim", func(b *Binding, t *Tensor) (eval.Value, error) { return int64(len(t.T.Shape)), nil })
	property("nbytes", func(b *Binding, t *Tensor) (eval.Value, error) { return int64(t.T.Bytes()), nil })
	TensorType.SetAttr("data", eval.NewProperty(
		eval.NewBuiltin("data", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			t, err := self(in, s)
			if err != nil {
				return nil, err
			}
			return t.b.wrap(t.b.S.Detach(t.T)), nil
		}),
		eval.NewBuiltin("data", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			t, err := self(in, s)
			if err != nil {
				return nil, err
			}
			if len(args) != 1 {
				return nil, in.Raise(eval.TypeErrorType, "data takes one value")
			}
			src, ok := args[0].(*Tensor)
			if !ok || src.T == nil {
				return nil, in.Raise(eval.TypeErrorType, "Variable data has to be a tensor, but got %s", eval.TypeOf(args[0]).Name)
			}
			return eval.None, t.b.pyErr(t.b.S.SetData(t.T, src.T))
		})))
	property("grad_fn", func(b *Binding, t *Tensor) (eval.Value, error) {
		return b.gradFnOf(t.T.GradNode()), nil
	})
	TensorType.SetAttr("grad", eval.NewProperty(
		eval.NewBuiltin("grad", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			t, err := self(in, s)
			if err != nil {
				return nil, err
			}
			if g := t.b.S.Grad(t.T); g != nil {
				return t.b.wrap(g), nil
			}
			return eval.None, nil
		}),
		eval.NewBuiltin("grad", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			t, err := self(in, s)
			if err != nil {
				return nil, err
			}
			if len(args) != 1 {
				return nil, in.Raise(eval.TypeErrorType, "grad takes one value")
			}
			if args[0] == eval.None {
				t.b.S.ZeroGrad([]*engine.Tensor{t.T}, true)
				t.b.dropGradObjects([]*engine.Tensor{t.T})
				return eval.None, nil
			}
			g, ok := args[0].(*Tensor)
			if !ok || g.T == nil {
				return nil, in.Raise(eval.TypeErrorType, "assigned grad expected to be a Tensor or None but got grad of type %s", eval.TypeOf(args[0]).Name)
			}
			if err := t.b.S.SetGrad(t.T, g.T); err != nil {
				return nil, t.b.pyErr(err)
			}
			t.b.dropGradObjects([]*engine.Tensor{t.T})
			return eval.None, nil
		})))
	method("__repr__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		t, err := self(in, s)
		if err != nil {
			return nil, err
		}
		r, err := t.b.S.Repr(t.T)
		if err != nil {
			return nil, t.b.pyErr(err)
		}
		if t.param {
			r = "Parameter containing:\n" + r
		}
		return r, nil
	})
	// Tensor.__format__: a 0-d tensor formats its item() (no print, so
	// nothing on the GPU); any other takes no format spec and is str(t).
	method("__format__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		t, err := self(in, s)
		if err != nil {
			return nil, err
		}
		spec := ""
		if len(args) == 1 {
			var ok bool
			if spec, ok = args[0].(string); !ok {
				return nil, in.Raise(eval.TypeErrorType, "__format__() argument must be str, not %s", eval.TypeOf(args[0]).Name)
			}
		}
		if len(t.T.Shape) == 0 {
			v, ok := knownItem(t.T)
			if !ok {
				v = eval.Unknown{What: "tensor.item()"}
			}
			return in.Format(v, spec)
		}
		if spec != "" {
			return nil, in.Raise(eval.TypeErrorType, "unsupported format string passed to Tensor.__format__")
		}
		return in.Str(s)
	})
	tensorMethod("size", "size(dim=None)", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(args) == 0 {
			return b.size(t.T.Shape), nil
		}
		d, err := b.dim(t, args[0])
		if err != nil {
			return nil, err
		}
		return t.T.Shape[d], nil
	})
	tensorMethod("dim", "dim()", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return int64(len(t.T.Shape)), nil
	})
	for _, name := range []string{"numel", "nelement"} {
		tensorMethod(name, name+"()", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			return int64(t.T.Numel()), nil
		})
	}
	tensorMethod("element_size", "element_size()", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return int64(t.T.DType.Size), nil
	})
	tensorMethod("__len__", "", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(t.T.Shape) == 0 {
			return nil, b.in.Raise(eval.TypeErrorType, "len() of a 0-d tensor")
		}
		return t.T.Shape[0], nil
	})
	tensorMethod("item", "item(): the value when the tool knows it (a constant, a range), else not computed", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if t.T.Numel() != 1 {
			return nil, b.in.Raise(eval.RuntimeErrorType, "a Tensor with %d elements cannot be converted to Scalar", t.T.Numel())
		}
		if v, ok := knownItem(t.T); ok {
			return v, nil
		}
		return eval.Unknown{What: "tensor.item()"}, nil
	})
	for _, name := range []string{"__float__", "__int__"} {
		tensorMethod(name, "", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			if t.T.Numel() != 1 {
				return nil, b.in.Raise(eval.RuntimeErrorType, "only one element tensors can be converted to Python scalars")
			}
			v, ok := knownItem(t.T)
			if !ok {
				return eval.Unknown{What: "a tensor's value"}, nil
			}
			f, _ := number(v)
			if name == "__int__" { // int() truncates toward zero
				return int64(f), nil
			}
			return f, nil
		})
	}
	tensorMethod("__index__", "", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		// a one-element integer tensor indexes as its value (x[:n], range(n))
		if t.T.Numel() != 1 || t.T.DType.IsFloatingPoint() || strings.HasPrefix(t.T.DType.Name, "complex") {
			return nil, b.in.Raise(eval.TypeErrorType, "only integer tensors of a single element can be converted to an index")
		}
		v, ok := knownItem(t.T)
		if !ok {
			return nil, b.in.Refuse(eval.UnknownValueErrorType, "this tool does not compute tensor values, so a tensor's value cannot be used as an index here")
		}
		f, _ := number(v)
		return int64(f), nil
	})
	tensorMethod("__bool__", "", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if t.T.Numel() != 1 {
			return nil, b.in.Raise(eval.RuntimeErrorType, "Boolean value of Tensor with more than one value is ambiguous")
		}
		if v, ok := knownItem(t.T); ok { // its item(), whose truth is the value's
			return b.in.Truth(v)
		}
		return nil, b.in.Refuse(eval.UnknownValueErrorType, "this tool does not compute tensor values, so a tensor has no truth value here")
	})
	tensorMethod("set_", "set_(source=None, storage_offset=0, size=None, stride=None): take source's storage (a tensor's, with its shape and strides, or an untyped storage's, laid out by the rest), an empty one without it", (*Binding).tensorSet)
	tensorMethod("untyped_storage", "untyped_storage()", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return b.storageObj(t), nil
	})
	property("_base", func(b *Binding, t *Tensor) (eval.Value, error) {
		if t.base == nil {
			return eval.None, nil
		}
		eval.Incref(t.base)
		return t.base, nil
	})
	tensorMethod("_is_view", "_is_view(): whether the tensor is a view of another (its _base)", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return t.base != nil, b.arity("_is_view", args, 0)
	})
	tensorMethod("is_set_to", "is_set_to(tensor): the same storage, offset, shape and strides", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("is_set_to", args, 1); err != nil {
			return nil, err
		}
		o, err := b.tensorOf(args[0], "is_set_to")
		if err != nil {
			return nil, err
		}
		return t.T.SameStorage(o.T) && t.T.StorageOffset() == o.T.StorageOffset() && slices.Equal(t.T.Shape, o.T.Shape) && slices.Equal(t.T.Strides(), o.T.Strides()), nil
	})
	tensorMethod("backward", "backward(gradient=None, retain_graph=None)", (*Binding).tensorBackward)
	tensorMethod("requires_grad_", "requires_grad_(requires_grad=True)", (*Binding).requiresGrad)
	property("T", func(b *Binding, t *Tensor) (eval.Value, error) {
		if len(t.T.Shape) != 2 {
			return nil, b.notModelled("Tensor.T of other than a matrix")
		}
		v, err := b.S.Permute(t.T, []int64{1, 0}) // PyTorch's T is permute(1, 0)
		if err != nil {
			return nil, b.pyErr(err)
		}
		return b.wrap(v), nil
	})
	property("mT", func(b *Binding, t *Tensor) (eval.Value, error) {
		return b.matrixTranspose(t, "mT", "matrices or batches of matrices", 2)
	})
	property("mH", func(b *Binding, t *Tensor) (eval.Value, error) {
		return b.matrixTranspose(t, "mH", "matrices or batches of matrices", 2)
	})
	property("H", func(b *Binding, t *Tensor) (eval.Value, error) {
		return b.matrixTranspose(t, "H", "matrices (2-D tensors)", -2)
	})
	tensorMethod("is_floating_point", "is_floating_point()", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return t.T.DType.IsFloatingPoint(), nil
	})
	tensorMethod("is_inference", "is_inference(): made under torch.inference_mode", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return t.T.IsInference(), nil
	})
	tensorMethod("is_contiguous", "is_contiguous()", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return t.T.IsContiguous(), nil
	})
	tensorMethod("data_ptr", "data_ptr(): the (simulated) address of the first element", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return int64(t.T.DataPtr()), nil
	})
	tensorMethod("stride", "stride(dim=None)", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := b.in.ArgSpec("stride", args, kw, 0, "dim")
		if err != nil {
			return nil, err
		}
		st := t.T.Strides()
		if a[0] != nil && a[0] != eval.None {
			d, err := b.dim(t, a[0])
			if err != nil {
				return nil, err
			}
			return st[d], nil
		}
		items := make([]eval.Value, len(st))
		for i, n := range st {
			items[i] = n
		}
		return b.in.NewTuple(items), nil
	})
	tensorMethod("storage_offset", "storage_offset()", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("storage_offset", args, 0); err != nil {
			return nil, err
		}
		return t.T.StorageOffset(), nil
	})
	tensorMethod("__getitem__", "t[i], t[a:b], t[a:b, :]", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("__getitem__", args, 1); err != nil {
			return nil, err
		}
		return b.index(t, args[0])
	})
	tensorMethod("__setitem__", "t[key] = value: written in place", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("__setitem__", args, 2); err != nil {
			return nil, err
		}
		return eval.None, b.setItem(t, args[0], args[1])
	})
}

// dim is a dimension argument, negative ones counted from the end.
func (b *Binding) dim(t *Tensor, v eval.Value) (int, error) {
	d, err := b.in.Index(v)
	if err != nil {
		return 0, err
	}
	n := int64(len(t.T.Shape))
	if d < -n || d >= n {
		return 0, b.in.Raise(eval.IndexErrorType, "Dimension out of range (expected to be in range of [%d, %d], but got %d)", -n, n-1, d)
	}
	if d < 0 {
		d += n
	}
	return int(d), nil
}

// gradFn is a tensor's .grad_fn, or a node of its next_functions.
type gradFn struct {
	eval.Header
	node *engine.GradNode
	b    *Binding
}

// gradFnOf is node as Python's Node (None for nil).
func (b *Binding) gradFnOf(node *engine.GradNode) eval.Value {
	if node == nil {
		return eval.None
	}
	if ctx, ok := node.Object().(eval.Value); ok { // a custom Function's node is its context
		eval.Incref(ctx)
		return ctx
	}
	return eval.Track(b.in, &gradFn{node: node, b: b})
}

var gradFnType = eval.NewClass("Node", "torch.autograd.graph")

// gradFnClasses are the node classes by name: PyTorch makes one class a
// backward function, named as it (SumBackward0, of module builtins), of
// which torch.autograd.graph.Node is a virtual base; here it is a real
// base, so the class's __mro__ names it too.
var gradFnClasses sync.Map // string -> *eval.Class

// Type is the class of g's node's name.
func (g *gradFn) Type() *eval.Class {
	name := g.node.Class()
	if c, ok := gradFnClasses.Load(name); ok {
		return c.(*eval.Class)
	}
	c, _ := gradFnClasses.LoadOrStore(name, eval.NewClass(name, "builtins", gradFnType))
	return c.(*eval.Class)
}

func (g *gradFn) Traverse(func(eval.Value)) {}
func (g *gradFn) Clear(*eval.Interp)        {}

func init() {
	gradFnType.SetMethod(eval.NewBuiltin("name", "name()", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return s.(*gradFn).node.Name(), nil
	}))
	gradFnType.SetMethod(eval.NewBuiltin("__repr__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return "<" + s.(*gradFn).node.Class() + " object>", nil
	}))
	gradFnType.SetAttr("next_functions", eval.NewProperty(eval.NewBuiltin("next_functions", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		g := s.(*gradFn)
		nodes, outs := g.node.Next()
		items := make([]eval.Value, len(nodes))
		for i, n := range nodes {
			items[i] = in.NewTuple([]eval.Value{g.b.gradFnOf(n), int64(outs[i])})
		}
		return in.NewTuple(items), nil
	}), nil))
}

// setItem is t[key] = value: PyTorch writes the indexed part of t in
// place (a number through a host scalar, a tensor of either device by a
// copy), allocating nothing on the GPU (testdata/pyrules/
// setitem_compare.py). Under autograd, the tool does not model the graph
// the write records, and says so.
func (b *Binding) setItem(t *Tensor, key, value eval.Value) error {
	switch v := value.(type) {
	case int64, float64, bool:
	case eval.Unknown: // a number the tool did not compute (losses[k] = loss.item()): written as one
		if items, _ := keyItems(key); slices.ContainsFunc(items, isIndexItem) {
			return b.notModelled("writing a number the tool did not compute (" + v.What + ") through an index tensor or a mask")
		}
	case *Tensor:
		if v.T == nil {
			return b.in.Raise(eval.RuntimeErrorType, "tensor already released")
		}
		if b.S.GradEnabled() && v.T.RequiresGrad() {
			return b.notModelled("writing a tensor that requires grad into another")
		}
	default:
		return b.in.Raise(eval.TypeErrorType, "can't assign a %s to a torch.FloatTensor", b.in.TypeName(value))
	}
	if b.S.GradEnabled() && t.T.RequiresGrad() {
		if t.T.IsLeaf() {
			return b.in.Raise(eval.RuntimeErrorType, "a view of a leaf Variable that requires grad is being used in an in-place operation.")
		}
		return b.notModelled("writing into a tensor that autograd records")
	}
	if mask, ok := key.(*Tensor); ok && mask.T.DType.Name == "bool" {
		return b.maskAssign(t, mask, value)
	}
	items, tuple := keyItems(key)
	if slices.ContainsFunc(items, isIndexItem) {
		return b.indexPut(t, items, tuple, value)
	}
	part, err := b.index(t, key)
	if err != nil {
		return err
	}
	if p, ok := part.(*Tensor); ok {
		if isZero(value) {
			b.S.WriteZeroInto(p.T)
		} else {
			b.S.WriteInto(p.T)
		}
	}
	b.in.Decref(part)
	return nil
}

// isZero reports whether a value written into a tensor is the number 0
// (False too).
func isZero(v eval.Value) bool {
	switch x := v.(type) {
	case int64:
		return x == 0
	case float64:
		return x == 0
	case bool:
		return !x
	}
	return false
}

// maskAssign is t[mask] = value (engine.MaskAssign; a mask on the host
// of a CUDA t, engine.HostMaskAssign).
func (b *Binding) maskAssign(t, mask *Tensor, value eval.Value) error {
	var v *engine.Tensor
	var num float64
	switch x := value.(type) {
	case *Tensor:
		v = x.T
	case int64:
		num = float64(x)
	case float64:
		num = x
	case bool:
		num = map[bool]float64{true: 1}[x]
	}
	if t.T.Device().CUDA && !mask.T.Device().CUDA {
		return b.pyErr(b.S.HostMaskAssign(t.T, mask.T, v))
	}
	return b.pyErr(b.S.MaskAssign(t.T, mask.T, v, num))
}

// index is t[key]: for basic indexing a view: per dimension an int
// (select), a slice (narrowed, or strided with a step), None (a new
// dimension of size 1) and one ... (the dimensions it skips, whole); a
// key with lists or tensors is advanced indexing (advancedIndex).
func (b *Binding) index(t *Tensor, key eval.Value) (eval.Value, error) {
	items, tuple := keyItems(key)
	advanced := false
	for _, k := range items {
		switch k.(type) {
		case int64, *eval.SliceObj, *eval.List, *Tensor, eval.EllipsisType, eval.NoneType:
		default:
			return nil, b.notModelled("indexing a tensor with " + b.in.TypeName(k))
		}
		advanced = advanced || isIndexItem(k)
	}
	if usedDims(items) > len(t.T.Shape) {
		if len(t.T.Shape) == 0 && !advanced {
			return nil, b.in.Raise(eval.IndexErrorType, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
		}
		return nil, b.in.Raise(eval.IndexErrorType, "too many indices for tensor of dimension %d", len(t.T.Shape))
	}
	if advanced {
		return b.advancedIndex(t, items, tuple)
	}
	view, _, err := b.basicView(t, items, tuple)
	if err != nil {
		return nil, err
	}
	if view == nil { // t[...], t[()] or t[:, :]: an alias of all of t
		view = b.S.Alias(t.T)
	}
	return viewOf(b.wrap(view), t), nil
}

// keyItems are the items of an index key: a tuple's, or the key alone.
func keyItems(key eval.Value) (items []eval.Value, tuple bool) {
	if tu, ok := key.(*eval.Tuple); ok {
		return tu.Items(), true
	}
	return []eval.Value{key}, false
}

// usedDims is how many dimensions of a tensor a key's items index: an
// int, a slice, a list or an index tensor one, a bool or uint8 mask as
// many as it has, None and ... none.
func usedDims(items []eval.Value) int {
	used := 0
	for _, k := range items {
		switch k := k.(type) {
		case eval.EllipsisType, eval.NoneType:
		case *Tensor:
			used += indexDims(k)
		default:
			used++
		}
	}
	return used
}

// indexDims is how many dimensions of a tensor an index tensor covers:
// a bool or uint8 mask as many as it has, any other one.
func indexDims(k *Tensor) int {
	if k.T.DType.Name == "bool" || k.T.DType.Name == "uint8" {
		return len(k.T.Shape)
	}
	return 1
}

// basicView applies the basic items of a key (of a tuple when tuple) to
// t, as PyTorch does before any advanced indexing: the view (nil: t
// itself, untouched) and, in order, the dimensions of the view that the
// key's lists and tensors index (a mask's, one for each of its
// dimensions), each of which keeps its dimension.
func (b *Binding) basicView(t *Tensor, items []eval.Value, tuple bool) (*engine.Tensor, []int, error) {
	used := usedDims(items)
	var cur *engine.Tensor // the view so far (nil: t itself)
	at := func() *engine.Tensor {
		if cur == nil {
			return t.T
		}
		return cur
	}
	next := func(v *engine.Tensor, err error) error {
		if cur != nil {
			b.S.Release(cur)
		}
		cur = v
		return b.pyErr(err)
	}
	var dims []int
	d := 0 // the dimension of the view the next item indexes
	for _, k := range items {
		var err error
		switch k := k.(type) {
		case int64:
			err = next(b.S.SelectDim(at(), int64(d), k))
		case *eval.SliceObj:
			var start, stop, step int64
			if start, stop, step, err = b.sliceBounds(k, at().Shape[d]); err != nil {
				break
			}
			n := max(stop-start, 0)
			n = (n + step - 1) / step
			// PyTorch skips a whole dimension's slice among several
			// items; t[:] alone is still a slice
			if !tuple || n != at().Shape[d] || step != 1 {
				err = next(b.S.SliceDim(at(), d, start, n, step))
			}
			d++
		case eval.NoneType:
			err = next(b.S.Unsqueeze(at(), int64(d)))
			d++
		case eval.EllipsisType:
			d += len(t.T.Shape) - used
		case *Tensor:
			for range indexDims(k) {
				dims = append(dims, d)
				d++
			}
		case *eval.List:
			dims = append(dims, d)
			d++
		}
		if err != nil {
			if cur != nil {
				b.S.Release(cur)
			}
			return nil, nil, err
		}
	}
	return cur, dims, nil
}

// sliceBounds clamps a slice to a dimension of size n, as Python does.
func (b *Binding) sliceBounds(s *eval.SliceObj, n int64) (start, stop, step int64, err error) {
	step = 1
	if s.Step != eval.None {
		if step, err = b.in.Index(s.Step); err != nil {
			return
		}
		if step <= 0 {
			err = b.in.Raise(eval.ValueErrorType, "step must be greater than zero")
			return
		}
	}
	bound := func(v eval.Value, def int64) (int64, error) {
		if v == eval.None {
			return def, nil
		}
		i, err := b.in.Index(v)
		if err != nil {
			return 0, err
		}
		if i < 0 {
			i += n
		}
		return min(max(i, 0), n), nil
	}
	if start, err = bound(s.Start, 0); err != nil {
		return
	}
	stop, err = bound(s.Stop, n)
	return
}

// matrixTranspose is t.mT, t.mH or t.H of a real tensor: the view
// transpose(-2, -1) (TransposeBackward0), of at least two dimensions, or
// (ndim -2) exactly two.
func (b *Binding) matrixTranspose(t *Tensor, name, what string, ndim int) (eval.Value, error) {
	if n := len(t.T.Shape); n < 2 || (ndim < 0 && n != -ndim) {
		return nil, b.in.Raise(eval.RuntimeErrorType, "tensor.%s is only supported on %s. Got %d-D tensor.", name, what, n)
	}
	v, err := b.S.Run(engine.Ops["transpose"], engine.Args{t.T, int64(-2), int64(-1)})
	if err != nil {
		return nil, b.pyErr(err)
	}
	return b.wrap(v), nil
}
