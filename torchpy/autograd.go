package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// gradMode is torch.no_grad(), torch.enable_grad(),
// torch.set_grad_enabled(b) and torch.inference_mode(): a context
// manager, and a decorator when called with a function.
type gradMode struct {
	eval.Header
	on   bool
	prev []bool
	// inference marks inference_mode's object, which also makes the
	// tensors made under it inference tensors; prevInference is what
	// that mode was before each __enter__.
	inference     bool
	prevInference []bool
	// set marks set_grad_enabled's object: the call already set the
	// mode, so __enter__ changes nothing and __exit__ restores the mode
	// from before the call.
	set bool
}

var gradModeType = eval.NewClass("no_grad", "torch.autograd.grad_mode")

// Type is the grad mode's class.
func (g *gradMode) Type() *eval.Class { return gradModeType }

// Traverse visits nothing: a grad mode holds no Python values.
func (g *gradMode) Traverse(func(eval.Value)) {}

// Clear drops nothing.
func (g *gradMode) Clear(*eval.Interp) {}

func init() {
	gradModeType.SetMethod(eval.NewBuiltin("__enter__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		g := s.(*gradMode)
		if g.set {
			g.set = false
			return eval.None, nil
		}
		ss := bindingOf(in).S
		g.prev = append(g.prev, ss.SetGradEnabled(g.on))
		if g.inference {
			g.prevInference = append(g.prevInference, ss.SetInferenceMode(true))
		}
		return eval.None, nil
	}))
	gradModeType.SetMethod(eval.NewBuiltin("__exit__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		g := s.(*gradMode)
		ss := bindingOf(in).S
		if n := len(g.prev); n > 0 {
			ss.SetGradEnabled(g.prev[n-1])
			g.prev = g.prev[:n-1]
		}
		if n := len(g.prevInference); n > 0 {
			ss.SetInferenceMode(g.prevInference[n-1])
			g.prevInference = g.prevInference[:n-1]
		}
		return false, nil
	}))
	gradModeType.SetMethod(eval.NewBuiltin("__call__", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		g := s.(*gradMode)
		if len(args) != 1 {
			return nil, in.Raise(eval.TypeErrorType, "a grad mode decorates one function")
		}
		return in.Call(bindingOf(in).decorate, []eval.Value{g, args[0]}, nil)
	}))
}

// gradModes declares torch's grad modes and torch.autograd in torch.
func (b *Binding) gradModes(torch *eval.ModuleObj) error {
	b.declareGradModes(torch)
	b.autocasts(torch) // autocast.go: torch.autocast and torch.amp
	ag := b.autogradModule(b.in)
	b.in.AddModule("torch.autograd", ag)
	torch.Set(b.in, "autograd", ag)
	gm := b.in.NewModule("torch.autograd.grad_mode")
	defer b.in.Decref(gm)
	if err := b.execInto(gm, "<torch.autograd.grad_mode>", gradModeSource); err != nil {
		return err
	}
	b.decorate, _ = gm.Dict.GetStr("_decorate")
	eval.Incref(b.decorate) // the binding's, for the session: its module goes
	graph, err := b.autogradGraphModule(b.in)
	if err != nil {
		return err
	}
	b.in.AddModule("torch.autograd.graph", graph)
	ag.Set(b.in, "graph", graph)
	return b.functionModule(ag)
}

// declareGradModes declares no_grad, enable_grad, inference_mode,
// set_grad_enabled and is_grad_enabled in m.
func (b *Binding) declareGradModes(m *eval.ModuleObj) {
	for name, on := range map[string]bool{"no_grad": false, "enable_grad": true, "inference_mode": false} {
		b.fn(m, name, name+"(): a context manager or decorator", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			return eval.Track(in, &gradMode{on: on, inference: name == "inference_mode"}), nil
		})
	}
	b.fn(m, "set_grad_enabled", "set_grad_enabled(mode)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if len(args) != 1 {
			return nil, in.Raise(eval.TypeErrorType, "set_grad_enabled() takes 1 argument")
		}
		on, err := in.Truth(args[0])
		if err != nil {
			return nil, err
		}
		g := eval.Track(in, &gradMode{on: on, set: true})
		g.prev = append(g.prev, b.S.SetGradEnabled(on))
		return g, nil
	})
	b.fn(m, "is_grad_enabled", "is_grad_enabled()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return b.S.GradEnabled(), nil
	})
	b.fn(m, "is_inference_mode_enabled", "is_inference_mode_enabled()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return b.S.InferenceMode(), nil
	})
}

// autogradModule is torch.autograd: grad, backward and the grad modes;
// gradModes(torch) puts it in torch as it declares torch's own modes.
func (b *Binding) autogradModule(in *eval.Interp) *eval.ModuleObj {
	m := in.NewModule("torch.autograd")
	b.declareGradModes(m)
	b.fn(m, "grad", "grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, allow_unused=None)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("grad", args, kw, 2, "outputs", "inputs", "grad_outputs", "retain_graph", "create_graph", "only_inputs", "allow_unused", "is_grads_batched", "materialize_grads")
		if err != nil {
			return nil, err
		}
		for i, name := range []string{4: "create_graph", 6: "allow_unused", 7: "is_grads_batched", 8: "materialize_grads"} {
			if name != "" && a[i] != nil && a[i] != eval.None && a[i] != false {
				return nil, b.notModelled("torch.autograd.grad(" + name + "=True)")
			}
		}
		return b.autogradGrad(a[0], a[1], a[2], a[3])
	})
	b.fn(m, "backward", "backward(tensors, grad_tensors=None, retain_graph=None)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("backward", args, kw, 1, "tensors", "grad_tensors", "retain_graph", "create_graph", "grad_variables", "inputs")
		if err != nil {
			return nil, err
		}
		out, err := b.oneTensor(a[0], "torch.autograd.backward of several tensors")
		if err != nil {
			return nil, err
		}
		var g eval.Value = eval.None
		if a[1] != nil && a[1] != eval.None {
			if g, err = b.oneTensor(a[1], "several grad_tensors"); err != nil {
				return nil, err
			}
		}
		return b.backward(out, g, a[2], a[3], a[5])
	})
	return m
}

// oneTensor is a tensor, or a sequence of exactly one.
func (b *Binding) oneTensor(v eval.Value, several string) (*Tensor, error) {
	if t, ok := v.(*Tensor); ok {
		return t, nil
	}
	var ts []*Tensor
	err := b.in.ForEach(v, func(x eval.Value) error {
		t, ok := x.(*Tensor)
		if !ok {
			return b.in.Raise(eval.TypeErrorType, "expected a Tensor, got %s", b.in.TypeName(x))
		}
		ts = append(ts, t)
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case len(ts) != 1:
		return nil, b.notModelled(several)
	}
	return ts[0], nil
}

// optionalTensor is None (nil) or a tensor (or a sequence of one).
func (b *Binding) optionalTensor(v eval.Value, several string) (*engine.Tensor, error) {
	if v == nil || v == eval.None {
		return nil, nil
	}
	t, err := b.oneTensor(v, several)
	if err != nil {
		return nil, err
	}
	return t.T, nil
}

// seedAndRetain reads the gradient to start from (None: ones) and
// retain_graph (None means create_graph, which is False).
func (b *Binding) seedAndRetain(gradient, retain eval.Value) (*engine.Tensor, bool, error) {
	seed, err := b.optionalTensor(gradient, "several gradients")
	if err != nil || retain == nil || retain == eval.None {
		return seed, false, err
	}
	keep, err := b.in.Truth(retain)
	return seed, keep, err
}

// autogradGrad is torch.autograd.grad(outputs, inputs, grad_outputs,
// retain_graph): a tuple of new tensors, one per input.
func (b *Binding) autogradGrad(outputs, inputs, gradOutputs, retain eval.Value) (eval.Value, error) {
	in := b.in
	out, err := b.oneTensor(outputs, "torch.autograd.grad of several outputs")
	if err != nil {
		return nil, err
	}
	seed, keep, err := b.seedAndRetain(gradOutputs, retain)
	if err != nil {
		return nil, err
	}
	var xs []*engine.Tensor
	if t, ok := inputs.(*Tensor); ok {
		xs = []*engine.Tensor{t.T}
	} else if err := in.ForEach(inputs, func(v eval.Value) error {
		t, ok := v.(*Tensor)
		if !ok {
			return in.Raise(eval.TypeErrorType, "grad(): inputs must be tensors, got %s", in.TypeName(v))
		}
		xs = append(xs, t.T)
		return nil
	}); err != nil {
		return nil, err
	}
	gs, err := b.S.AutogradGrad(out.T, seed, xs, keep)
	if err == nil {
		err = b.warnStreamMismatch()
	}
	if err != nil {
		return nil, b.pyErr(err)
	}
	items := make([]eval.Value, len(gs))
	for i, g := range gs {
		items[i] = b.wrap(g)
	}
	return in.NewTuple(items), nil
}

// backward is t.backward(gradient, retain_graph, create_graph, inputs)
// and torch.autograd.backward.
func (b *Binding) backward(t *Tensor, gradient, retain, create, inputs eval.Value) (eval.Value, error) {
	if create != nil && create != eval.None && create != false || inputs != nil && inputs != eval.None {
		return nil, b.notModelled("backward(create_graph=True) or backward(inputs=...)")
	}
	seed, keep, err := b.seedAndRetain(gradient, retain)
	if err != nil {
		return nil, err
	}
	err = b.backwardPython(gradient == nil || gradient == eval.None, func() error {
		return b.pyErr(b.S.BackwardWith(t.T, seed, keep))
	})
	if err == nil {
		err = b.warnStreamMismatch()
	}
	return eval.None, b.pyErr(err)
}

// accStreamWarning is PyTorch 2.11's warning, once a process, when a
// leaf's AccumulateGrad takes a gradient made on another stream than its
// own (testdata/pyrules/streams_backward.py's weight used on two
// streams).
const accStreamWarning = "The AccumulateGrad node's stream does not match the stream of the node that produced the incoming gradient. This may incur unnecessary synchronization and break CUDA graph capture if the AccumulateGrad node's stream is the default stream. This mismatch is caused by an AccumulateGrad node created prior to the current iteration being kept alive. This can happen if the autograd graph is still being kept alive by tensors such as the loss, or if you are using DDP, which will stash a reference to the node. To resolve the mismatch, delete all references to the autograd graph or ensure that DDP initialization is performed under the same stream as subsequent forwards. If the mismatch is intentional, you can use torch.autograd.graph.set_warn_on_accumulate_grad_stream_mismatch(False) to suppress this warning. (Triggered internally at /pytorch/torch/csrc/autograd/input_buffer.cpp:240.)"

// warnStreamMismatch warns accStreamWarning after the first backward
// that needs it.
func (b *Binding) warnStreamMismatch() error {
	if !b.S.AccumulateGradStreamMismatch() || b.accWarned || b.accWarnOff {
		return nil
	}
	b.accWarned = true
	return b.in.Warn(eval.UserWarningType, accStreamWarning, 1)
}

// tensorBackward is Tensor.backward(gradient=None, retain_graph=None,
// create_graph=False, inputs=None).
func (b *Binding) tensorBackward(t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	a, err := b.in.ArgSpec("backward", args, kw, 0, "gradient", "retain_graph", "create_graph", "inputs")
	if err != nil {
		return nil, err
	}
	if err := b.in.Check(); err != nil { // Tensor.backward's Python
		return nil, err
	}
	return b.backward(t, a[0], a[1], a[2], a[3])
}

// requiresGrad is Tensor.requires_grad_(requires_grad=True).
func (b *Binding) requiresGrad(t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	on, err := b.requiresGradArg(args, kw)
	if err != nil {
		return nil, err
	}
	if err := b.setRequiresGrad(t.T, on); err != nil {
		return nil, err
	}
	eval.Incref(t)
	return t, nil
}

// requiresGradArg reads requires_grad_'s flag (default True).
func (b *Binding) requiresGradArg(args []eval.Value, kw []eval.KeywordArg) (bool, error) {
	a, err := b.in.ArgSpec("requires_grad_", args, kw, 0, "requires_grad")
	if err != nil {
		return false, err
	}
	return b.boolArg(a[0], true)
}

// setRequiresGrad is requires_grad_(on) of one leaf.
func (b *Binding) setRequiresGrad(t *engine.Tensor, on bool) error {
	if on {
		return b.pyErr(b.S.SetRequiresGrad(t))
	}
	return b.pyErr(b.S.ClearRequiresGrad(t))
}

// leafOnly is PyTorch's error for `t.requires_grad = on` of a tensor
// autograd made: any value (requires_grad_ refuses only False).
func leafOnly(on bool) string {
	msg := "you can only change requires_grad flags of leaf variables."
	if !on {
		msg += " If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
	}
	return msg
}

func init() {
	TensorType.SetAttr("requires_grad", eval.NewProperty(
		eval.NewBuiltin("requires_grad", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			t, err := self(in, s)
			if err != nil {
				return nil, err
			}
			return t.T.RequiresGrad(), nil
		}),
		// t.requires_grad = on, as requires_grad_(on) of a leaf
		eval.NewBuiltin("requires_grad", "", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			t, err := self(in, s)
			if err != nil {
				return nil, err
			}
			on, ok := args[0].(bool)
			if !ok {
				return nil, in.Raise(eval.TypeErrorType, "requires_grad must be a bool")
			}
			if !t.T.IsLeaf() {
				return nil, in.Raise(eval.RuntimeErrorType, "%s", leafOnly(on))
			}
			return eval.None, t.b.setRequiresGrad(t.T, on)
		})))
}
