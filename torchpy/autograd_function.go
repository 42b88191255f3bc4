package torchpy

import (
	_ "embed"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// torch.autograd.Function and the saved-tensor hooks of
// torch.autograd.graph: the Python of autograd_function.py and
// autograd_graph.py, as PyTorch 2.11 writes it, over what its C++ does
// here: _function_apply (THPFunction_apply: the forward, then
// engine.ApplyFunction), _saved_tensors (ctx.saved_tensors) and the stack
// of hooks (engine.SavedHooks over Python callables).

var (
	//go:embed autograd_function.py
	autogradFunctionSource string
	//go:embed autograd_graph.py
	autogradGraphSource string
)

// fnContext is the engine's node of a custom Function's context, while
// the node lives.
type fnContext struct {
	node *engine.FunctionNode
}

// functionModule declares torch.autograd.function, and Function and
// once_differentiable in torch.autograd (ag).
func (b *Binding) functionModule(ag *eval.ModuleObj) error {
	in := b.in
	m := in.NewModule("torch.autograd.function")
	defer in.Decref(m)
	b.fn(m, "_function_apply", "_function_apply(cls, args, setup_context): Function.apply's C++ half", b.functionApply)
	b.fn(m, "_saved_tensors", "_saved_tensors(ctx): ctx.saved_tensors", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("_saved_tensors", args, 1); err != nil {
			return nil, err
		}
		return b.savedTensors(args[0])
	})
	if err := b.execInto(m, "<torch.autograd.function>", autogradFunctionSource); err != nil {
		return err
	}
	in.AddModule("torch.autograd.function", m)
	ag.Set(in, "function", m)
	for _, name := range []string{"Function", "InplaceFunction", "once_differentiable"} {
		v, _ := m.Dict.GetStr(name)
		ag.Set(in, name, v)
	}
	return nil
}

// functionApply is THPFunction_apply: a context of cls's backward class,
// needs_input_grad set, the forward run under no_grad (with
// setup_context after it, when the class defines one), then its outputs
// given their place in the graph by the engine, which keeps the context
// while the node lives.
func (b *Binding) functionApply(in *eval.Interp, _ eval.Value, a []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	if len(a) != 3 {
		return nil, in.Raise(eval.TypeErrorType, "_function_apply(cls, args, setup_context)")
	}
	cls, argsTuple := a[0], a[1]
	args, _ := argsTuple.(*eval.Tuple)
	if args == nil {
		return nil, in.Raise(eval.TypeErrorType, "_function_apply: args must be a tuple")
	}
	setup, err := in.Truth(a[2])
	if err != nil {
		return nil, err
	}
	bcls, err := in.GetAttr(cls, "_backward_cls")
	if err != nil {
		return nil, err
	}
	ctxV, err := in.Call(bcls, nil, nil)
	in.Decref(bcls)
	if err != nil {
		return nil, err
	}
	defer in.Decref(ctxV)
	ctx, ok := ctxV.(*eval.Instance)
	if !ok {
		return nil, in.Raise(eval.TypeErrorType, "a Function's context must be an instance")
	}
	inputs := make([]*engine.Tensor, len(args.Items()))
	needs := make([]eval.Value, len(inputs))
	for i, v := range args.Items() {
		needs[i] = false
		if t, ok := v.(*Tensor); ok && t.T != nil {
			inputs[i] = t.T
			needs[i] = t.T.RequiresGrad()
		}
	}
	in.PutStr(ctx.Dict, "needs_input_grad", in.NewTuple(needs), "")
	out, err := b.forward(cls, ctx, args, setup)
	if err != nil {
		return nil, err
	}
	defer in.Decref(out)
	return b.wireOutputs(ctx, inputs, out)
}

// forward runs cls's forward on args under no_grad, and setup_context
// after it when setup.
func (b *Binding) forward(cls eval.Value, ctx *eval.Instance, args *eval.Tuple, setup bool) (eval.Value, error) {
	in := b.in
	was := b.S.SetGradEnabled(false)
	defer b.S.SetGradEnabled(was)
	fwd, err := in.GetAttr(cls, "forward")
	if err != nil {
		return nil, err
	}
	defer in.Decref(fwd)
	if !setup {
		return in.Call(fwd, append([]eval.Value{ctx}, args.Items()...), nil)
	}
	out, err := in.Call(fwd, args.Items(), nil)
	if err != nil {
		return nil, err
	}
	sc, err := in.GetAttr(cls, "setup_context")
	if err == nil {
		var r eval.Value
		r, err = in.Call(sc, []eval.Value{ctx, args, out}, nil)
		in.Decref(sc)
		if err == nil {
			in.Decref(r)
		}
	}
	if err != nil {
		in.Decref(out)
		return nil, err
	}
	return out, nil
}

// ctxTuple takes the tuple ctx.name (save_for_backward's, mark_dirty's)
// out of ctx's __dict__, as PyTorch clears them once used: its items
// (borrowed from the returned tuple, which the caller drops), or none.
func (b *Binding) ctxTuple(ctx *eval.Instance, name string) (eval.Value, []eval.Value) {
	v, ok := ctx.Dict.GetStr(name)
	if !ok {
		return nil, nil
	}
	eval.Incref(v)
	b.in.DelStr(ctx.Dict, name)
	if t, ok := v.(*eval.Tuple); ok {
		return v, t.Items()
	}
	return v, []eval.Value{v}
}

// wireOutputs is process_outputs: the forward's result out (a tensor, or
// a tuple of values) made the node's outputs, save_for_backward's tensors
// saved, and apply's result returned.
func (b *Binding) wireOutputs(ctx *eval.Instance, inputs []*engine.Tensor, out eval.Value) (eval.Value, error) {
	in := b.in
	items, tuple := []eval.Value{out}, false
	if t, ok := out.(*eval.Tuple); ok {
		items, tuple = t.Items(), true
	}
	dirtyV, dirty := b.ctxTuple(ctx, "dirty_tensors")
	nonDiffV, nonDiff := b.ctxTuple(ctx, "non_differentiable")
	saveV, save := b.ctxTuple(ctx, "to_save")
	for _, v := range []eval.Value{dirtyV, nonDiffV, saveV} {
		if v != nil {
			defer in.Decref(v)
		}
	}
	c := &engine.FunctionCall{Name: ctx.Type().Name, Inputs: inputs, Materialize: true, Object: ctxV(ctx)}
	var places []int // where each output tensor is among items
	for i, v := range items {
		if t, ok := v.(*Tensor); ok && t.T != nil {
			places = append(places, i)
			c.Outputs = append(c.Outputs, t.T)
			c.Dirty = append(c.Dirty, slices.Contains(dirty, v))
			c.NonDifferentiable = append(c.NonDifferentiable, slices.Contains(nonDiff, v))
		}
	}
	for _, d := range dirty {
		if !slices.Contains(items, d) {
			return nil, in.Raise(eval.RuntimeErrorType, "Some elements marked as dirty during the forward method were not returned as output. The inputs that are modified inplace must all be outputs of the Function.")
		}
	}
	for i, v := range save {
		t, ok := v.(*Tensor)
		switch {
		case v == eval.None:
			c.Save = append(c.Save, nil)
		case !ok || t.T == nil:
			return nil, in.Raise(eval.TypeErrorType, "save_for_backward can only save variables, but argument %d is of type %s", i, in.TypeName(v))
		default:
			c.Save = append(c.Save, t.T)
		}
	}
	if m, ok := ctx.Dict.GetStr("materialize_grads"); ok {
		c.Materialize, _ = in.Truth(m)
	}
	c.Backward = b.functionBackward(ctx, inputs)
	h := &fnContext{}
	eval.Incref(ctx) // the node's
	b.fnNodes[ctx] = h
	c.Dropped = func() {
		delete(b.fnNodes, ctx)
		in.Decref(ctx)
	}
	outs, node, err := b.S.ApplyFunction(c)
	if node == nil {
		c.Dropped()
	} else if b.fnNodes[ctx] == h { // else the node died already
		h.node = node
	}
	if err != nil {
		return nil, b.pyErr(err)
	}
	res := make([]eval.Value, len(items))
	for i, v := range items {
		res[i] = v
		eval.Incref(v)
	}
	for k, i := range places {
		if outs[k] != c.Outputs[k] { // a new view of an input
			in.Decref(res[i])
			res[i] = viewOf(b.wrap(outs[k]), items[i].(*Tensor))
		}
	}
	if !tuple {
		return res[0], nil
	}
	return in.NewTuple(res), nil
}

// ctxV is a context as the engine keeps it (grad_fn's object).
func ctxV(ctx *eval.Instance) any { return eval.Value(ctx) }

// functionBackward is the node's call of the Python backward
// (BackwardCFunction.apply, under no_grad), with PyTorch's checks of
// what it returns: one gradient per argument of apply (extra Nones
// dropped), None for an argument that was not a tensor.
func (b *Binding) functionBackward(ctx *eval.Instance, inputs []*engine.Tensor) func(grads []*engine.Tensor) ([]*engine.Tensor, error) {
	return func(grads []*engine.Tensor) ([]*engine.Tensor, error) {
		in := b.in
		args := make([]eval.Value, len(grads))
		for i, g := range grads {
			args[i] = eval.None
			if g != nil {
				args[i] = b.wrap(g)
			}
		}
		was := b.S.SetGradEnabled(false)
		r, err := in.CallMethod(ctx, "apply", args...)
		b.S.SetGradEnabled(was)
		for _, a := range args {
			in.Decref(a)
		}
		if err != nil {
			return nil, err
		}
		defer in.Decref(r)
		res := []eval.Value{r}
		if t, ok := r.(*eval.Tuple); ok {
			res = t.Items()
		}
		name := ctx.Type().Name
		if len(res) > len(inputs) && !slices.ContainsFunc(res[len(inputs):], func(v eval.Value) bool { return v != eval.None }) {
			res = res[:len(inputs)]
		}
		if len(res) != len(inputs) {
			return nil, in.Raise(eval.RuntimeErrorType, "function %s returned an incorrect number of gradients (expected %d, got %d)", name, len(inputs), len(res))
		}
		out := make([]*engine.Tensor, len(res))
		for i, v := range res {
			if v == eval.None {
				continue
			}
			t, ok := v.(*Tensor)
			if inputs[i] == nil {
				dropGrads(b.S, out)
				return nil, in.Raise(eval.RuntimeErrorType, "function %s returned a gradient different than None at position %d, but the corresponding forward input was not a Variable", name, i+1)
			}
			if !ok || t.T == nil {
				dropGrads(b.S, out)
				return nil, in.Raise(eval.TypeErrorType, "expected Variable or None (got %s)", in.TypeName(v))
			}
			out[i] = b.S.Detach(t.T)
		}
		return out, nil
	}
}

// dropGrads lets go of the gradients taken so far.
func dropGrads(s *engine.Session, ts []*engine.Tensor) {
	for _, t := range ts {
		if t != nil {
			s.Release(t)
		}
	}
}

// savedTensors is ctx.saved_tensors: the tensors save_for_backward named,
// unpacked (through their hooks) each time it is read; () for a context
// that made no node.
func (b *Binding) savedTensors(ctxV eval.Value) (eval.Value, error) {
	ctx, _ := ctxV.(*eval.Instance)
	h := b.fnNodes[ctx]
	if h == nil || h.node == nil {
		return b.in.NewTuple(nil), nil
	}
	ts, err := b.S.SavedTensors(h.node)
	if err != nil {
		return nil, b.pyErr(err)
	}
	items := make([]eval.Value, len(ts))
	for i, t := range ts {
		items[i] = eval.None
		if t != nil {
			items[i] = b.wrap(t)
		}
	}
	return b.in.NewTuple(items), nil
}

// pyHooks are one saved_tensors_hooks' pack and unpack, held while they
// are installed and while a saved tensor keeps a value they packed.
type pyHooks struct {
	b            *Binding
	pack, unpack eval.Value
	uses         int
}

// Pack calls pack_hook(t) under the engine's no_grad.
func (h *pyHooks) Pack(t *engine.Tensor) (any, error) {
	v := h.b.wrap(t)
	r, err := h.b.in.Call(h.pack, []eval.Value{v}, nil)
	h.b.in.Decref(v)
	if err != nil {
		return nil, err
	}
	h.uses++
	return r, nil
}

// Unpack calls unpack_hook(packed), which must return a tensor.
func (h *pyHooks) Unpack(p any) (*engine.Tensor, error) {
	r, err := h.b.in.Call(h.unpack, []eval.Value{p.(eval.Value)}, nil)
	if err != nil {
		return nil, err
	}
	defer h.b.in.Decref(r)
	t, ok := r.(*Tensor)
	if !ok || t.T == nil {
		return nil, h.b.in.Raise(eval.TypeErrorType, "Output of saved tensor unpack_hook expected to be a Tensor but got result of type %s", h.b.in.TypeName(r))
	}
	return h.b.S.Detach(t.T), nil
}

// Drop lets go of a packed value.
func (h *pyHooks) Drop(p any) {
	h.b.in.Decref(p.(eval.Value))
	h.release()
}

// release drops one use; the last lets go of the hooks.
func (h *pyHooks) release() {
	if h.uses--; h.uses == 0 {
		h.b.in.Decref(h.pack)
		h.b.in.Decref(h.unpack)
	}
}

// savedHooksFunctions declares, in torch.autograd.graph (m), what its
// Python calls in torch._C._autograd: the stack of hooks, and the switch
// that disables them.
func (b *Binding) savedHooksFunctions(m *eval.ModuleObj) {
	b.fn(m, "_push_saved_tensors_default_hooks", "_push_saved_tensors_default_hooks(pack_hook, unpack_hook)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("_push_saved_tensors_default_hooks", args, 2); err != nil {
			return nil, err
		}
		if b.hooksOff != nil {
			return nil, in.Raise(eval.RuntimeErrorType, "%s", *b.hooksOff)
		}
		h := &pyHooks{b: b, pack: args[0], unpack: args[1], uses: 1}
		eval.Incref(h.pack)
		eval.Incref(h.unpack)
		if err := b.S.PushSavedHooks(h); err != nil {
			h.release()
			return nil, b.pyErr(err)
		}
		b.savedHooks = append(b.savedHooks, h)
		return eval.None, nil
	})
	b.fn(m, "_pop_saved_tensors_default_hooks", "_pop_saved_tensors_default_hooks()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if n := len(b.savedHooks); n > 0 {
			h := b.savedHooks[n-1]
			b.savedHooks = b.savedHooks[:n-1]
			b.S.PopSavedHooks()
			h.release()
		}
		return eval.None, nil
	})
	b.fn(m, "_saved_tensors_hooks_disable", "_saved_tensors_hooks_disable(message)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := b.arity("_saved_tensors_hooks_disable", args, 1); err != nil {
			return nil, err
		}
		msg, err := b.strArg("_saved_tensors_hooks_disable", args[0])
		if err != nil {
			return nil, err
		}
		b.hooksOff = &msg
		return eval.None, nil
	})
	b.fn(m, "_saved_tensors_hooks_enable", "_saved_tensors_hooks_enable()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		b.hooksOff = nil
		return eval.None, nil
	})
	b.fn(m, "_saved_tensors_hooks_get_disabled_error_message", "_saved_tensors_hooks_get_disabled_error_message()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if b.hooksOff == nil {
			return eval.None, nil
		}
		return *b.hooksOff, nil
	})
}
