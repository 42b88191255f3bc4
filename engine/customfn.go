package engine

import (
	"slices"
)

// Custom autograd Functions (torch.autograd.Function subclasses), as
// memory, as PyTorch's THPFunction_apply and PyNode run them. apply runs
// the forward under no_grad (the front end's call); then, when grad mode
// is on and a tensor input requires grad, one node named after the class
// (MyFnBackward) takes the tensor inputs as its edges and the outputs as
// its outputs: an output that is an input, unless marked dirty, is
// returned as a new view of it; a dirty one (mark_dirty: the input written
// in place) has its history moved onto the node; one marked
// non-differentiable, or of an integer type, stays out of the graph. The
// node then keeps the tensors save_for_backward named (through the
// saved-tensor hooks when some are installed) until its backward has run
// or it dies, and the context object (ctx, with every attribute the
// forward set on it: a tensor kept as ctx.x lives as long as the node,
// after backward too) as long as it lives. Its backward calls the Python
// backward with one gradient per output (zeros, made then, in output
// order, for an output that got none, unless set_materialize_grads(False))
// and hands each tensor input the gradient returned for it, summed to the
// input's shape as any node's. The saved tensors are unpacked only when
// the backward reads ctx.saved_tensors, so a second backward fails only
// then, as in PyTorch. Recorded on the GPU machine (an H100 lent for the
// H200): testdata/pyrules/autograd_function.py, event by event.

// FunctionCall is one call of a custom Function's apply, as the front end
// made it.
type FunctionCall struct {
	// Name is the node's name: the class's name and "Backward".
	Name string
	// Inputs are the forward's arguments: a tensor, or nil, each.
	Inputs []*Tensor
	// Outputs are the tensors the forward returned, in order.
	Outputs []*Tensor
	// Dirty and NonDifferentiable mark the outputs, by place, that
	// ctx.mark_dirty and ctx.mark_non_differentiable named.
	Dirty, NonDifferentiable []bool
	// Save are the tensors ctx.save_for_backward named (nil for None).
	Save []*Tensor
	// Materialize is ctx.set_materialize_grads' setting (true unless
	// turned off).
	Materialize bool
	// Backward runs the Python backward on one gradient per output (new
	// references the callee owns, nil for None) and returns one per
	// input (new references, nil for None).
	Backward func(grads []*Tensor) ([]*Tensor, error)
	// Object is the context, which the outputs' grad_fn is; Dropped lets
	// go of it when the node dies.
	Object  any
	Dropped func()
}

// FunctionNode is the node a custom Function's call made, which its
// context reads (ctx.saved_tensors).
type FunctionNode struct {
	n *node
}

// errLeafDirty is PyTorch's error for a leaf that requires grad marked
// dirty.
var errLeafDirty = Errorf(RuntimeError, "a leaf Variable that requires grad has been used in an in-place operation.")

// ApplyFunction gives the outputs of c's forward their place in the
// graph and returns them as apply returns them, and the node made (nil
// when none is: grad mode off, no tensor input requiring grad). Dropped
// is called once the node dies, which may be before ApplyFunction
// returns (no output is differentiable); never when no node is made.
func (s *Session) ApplyFunction(c *FunctionCall) ([]*Tensor, *FunctionNode, error) {
	outs := slices.Clone(c.Outputs)
	var inputs []*Tensor
	for _, t := range c.Inputs {
		if t != nil {
			inputs = append(inputs, t)
		}
	}
	var n *node
	if needsGraph(s, inputs) && len(outs) > 0 {
		n = s.newNode(c.Name, outs[0], inputs, nil)
	}
	for i, t := range outs {
		if c.Dirty[i] && t.fn == nil && t.slot != nil && n != nil {
			return nil, nil, errLeafDirty
		}
		if c.Dirty[i] && t.view && n != nil {
			return nil, nil, NotModelledError("mark_dirty of a view (PyTorch's CopySlices)")
		}
	}
	metas := make([]Tensor, len(outs))
	for i, t := range outs {
		metas[i] = plain(t)
		isInput := slices.Contains(inputs, t)
		differentiable := n != nil && !c.NonDifferentiable[i] && isFloat(t.DType)
		switch {
		case c.Dirty[i]:
			t.st.version++ // mark_dirty bumps the version
			if differentiable {
				s.attach(n, t, i)
			}
		case isInput:
			alias := s.Detach(t) // view_as(self): a new tensor over the same storage
			alias.view = true
			if differentiable {
				s.attach(n, alias, i)
			}
			outs[i] = alias
		case differentiable:
			s.attach(n, t, i)
		case t.fn != nil: // made with grad enabled inside forward, not differentiable: detached in place
			old := t.fn
			t.fn = nil
			s.unref(old)
		}
	}
	if n == nil {
		return outs, nil, nil
	}
	n.fn, n.bw = c, c.backward(metas)
	if len(outs) > 1 {
		n.grads = make([]*Tensor, len(outs))
	}
	var save []*Tensor
	for _, t := range c.Save {
		if t != nil {
			save = append(save, t)
		}
	}
	s.saveFor(n, nil, save)
	if n.refs == 0 { // no output is differentiable: nothing keeps the node
		n.refs = 1
		s.unref(n)
	}
	return outs, &FunctionNode{n}, s.TakeHookError()
}

// attach makes t output i of n, in place of the node that made it.
func (s *Session) attach(n *node, t *Tensor, i int) {
	old := t.fn
	s.dropSlot(t)
	t.fn, t.out = n, i
	n.refs++
	s.unref(old)
}

// plain is t outside autograd: its shape, dtype and layout over its
// storage, without a node or a leaf's slot (and no reference counted).
func plain(t *Tensor) Tensor {
	u := *t
	u.fn, u.slot, u.out = nil, nil, 0
	return u
}

// backward is the node's backward: the Python backward on a gradient for
// each output (metas: what each output was, for the zeros), and each
// tensor input's gradient checked against its shape.
func (c *FunctionCall) backward(metas []Tensor) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		var grads []*Tensor // this backward's references
		if n.grads != nil {
			grads = n.grads
			n.grads = make([]*Tensor, len(grads))
		} else {
			grads = []*Tensor{share(g)}
		}
		defer func() { dropAll(s, slices.DeleteFunc(grads, func(t *Tensor) bool { return t == nil })) }()
		given := make([]*Tensor, len(grads))
		for i, gi := range grads {
			if gi == nil && c.Materialize {
				z, err := s.alloc(metas[i].Shape, metas[i].DType, metas[i].Device())
				if err != nil {
					return nil, err
				}
				gi, grads[i] = z, z
			}
			if gi != nil {
				given[i] = share(gi)
			}
		}
		res, err := c.Backward(given)
		if err != nil {
			return nil, err
		}
		out := make([]*Tensor, 0, len(n.inputs))
		for i, t := range c.Inputs {
			if t != nil {
				out = append(out, res[i])
			} else if res[i] != nil {
				s.dropTensor(res[i])
			}
		}
		for i, gi := range out {
			if gi != nil && n.inputs[i].to != nil && !expandableTo(n.inputs[i].shape, gi.Shape) {
				dropAll(s, slices.DeleteFunc(out, func(t *Tensor) bool { return t == nil }))
				return nil, Errorf(RuntimeError, "Function %s returned an invalid gradient at index %d - got %s but expected shape compatible with %s", n.name, i, dimList(gi.Shape), dimList(n.inputs[i].shape))
			}
		}
		return out, nil
	}
}

// expandableTo reports whether a tensor of shape from broadcasts to
// shape to (at::is_expandable_to).
func expandableTo(from, to []int64) bool {
	if len(from) > len(to) {
		return false
	}
	for i := range from {
		f, t := from[len(from)-1-i], to[len(to)-1-i]
		if f != t && f != 1 {
			return false
		}
	}
	return true
}

// SavedTensors is ctx.saved_tensors: a new reference to each tensor
// save_for_backward named (nil for None), outside autograd, made again
// by the hooks that packed it; PyTorch's error once backward freed them,
// or when one was written in place since.
func (s *Session) SavedTensors(f *FunctionNode) ([]*Tensor, error) {
	n := f.n
	if n.released {
		return nil, errSecondPass
	}
	if err := checkSaved(n); err != nil {
		return nil, err
	}
	var ts []*Tensor
	k := 0
	for _, t := range n.fn.Save {
		if t == nil {
			ts = append(ts, nil)
			continue
		}
		if k >= len(n.saved) { // the node died and took them
			dropAll(s, slices.DeleteFunc(ts, func(t *Tensor) bool { return t == nil }))
			return nil, errSecondPass
		}
		sv := n.saved[k]
		k++
		if sv.hooks != nil {
			u, err := sv.hooks.Unpack(sv.packed)
			if err != nil {
				dropAll(s, slices.DeleteFunc(ts, func(t *Tensor) bool { return t == nil }))
				return nil, err
			}
			ts = append(ts, u)
			continue
		}
		u := sv.like
		u.st.refs++
		ts = append(ts, &u)
	}
	return ts, nil
}

// Object is the context of the custom Function whose node g is, or nil.
func (g *GradNode) Object() any {
	if g.n.fn == nil {
		return nil
	}
	return g.n.fn.Object
}
