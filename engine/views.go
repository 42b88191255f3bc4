package engine

import (
	"slices"
)

// Views and layout: every tensor the engine makes is contiguous; these
// views are not (t(), a slice with a step, expand), and what PyTorch does
// with such a view follows from that: contiguous() and reshape() copy it
// (testdata/pyrules/views.py), view() refuses it as PyTorch does when its
// strides do not allow, and ops read it without a copy.

// Transpose is t.transpose(d0, d1) (t.t() for a matrix): a view with the
// two dimensions swapped, not contiguous unless one of them has at most
// one element.
func (s *Session) Transpose(t *Tensor, d0, d1 int) *Tensor {
	if d0 == d1 { // also t() of a vector or a 0-d tensor: the same view
		return share(t)
	}
	shape, st := slices.Clone(t.Shape), t.Strides()
	shape[d0], shape[d1] = shape[d1], shape[d0]
	st[d0], st[d1] = st[d1], st[d0]
	return restrided(t, shape, st, t.offset)
}

func init() {
	declare(&OpDef{Name: "contiguous", Method: true,
		Params: []Param{input, {Name: "memory_format", Kind: MemoryFormatParam, Default: "torch.contiguous_format", KeywordOnly: true}},
		Memory: "itself when contiguous, else a dense copy on its device; under autograd the copy is CloneBackward0, whose backward passes the gradient on",
		run: func(s *Session, a Args) (*Tensor, error) {
			x := a.Tensor(0)
			if f, _ := a[1].(MemoryFormat); f != ContiguousFormat {
				return nil, NotModelledError("Tensor.contiguous with a memory_format other than torch.contiguous_format")
			}
			if x.IsContiguous() {
				return x, nil
			}
			return s.Contiguous(x)
		}})
}

// Contiguous is t.contiguous(): t itself (another reference) when it is
// contiguous, else a dense copy on its device; under autograd the copy
// is CloneBackward0, whose backward passes the gradient on.
func (s *Session) Contiguous(t *Tensor) (*Tensor, error) {
	if t.IsContiguous() {
		return share(t), nil
	}
	c, err := s.copyTo(t, t.Device())
	if err != nil {
		return nil, err
	}
	s.record("CloneBackward0", c, []*Tensor{t}, nil, passGrad)
	return c, nil
}

// Reshape is t.reshape(shape): a view when t's strides allow one, else
// a view (UnsafeViewBackward0) of a dense copy (CloneBackward0).
func (s *Session) Reshape(t *Tensor, shape []int64) (*Tensor, error) {
	shape, err := viewShape(t.Numel(), shape)
	if err != nil {
		return nil, err
	}
	if _, ok := viewStrides(t.Shape, t.Strides(), shape); ok {
		// PyTorch views a contiguous tensor, and aliases one that is not
		// (_reshape_alias: ops_repeat_shape.py's x.t().reshape_as)
		if !t.IsContiguous() {
			return s.view(t, shape, "ReshapeAliasBackward0")
		}
		return s.View(t, shape)
	}
	c, err := s.Contiguous(t)
	if err != nil {
		return nil, err
	}
	v := s.unsafeView(c, shape)
	s.dropTensor(c)
	return v, nil
}

// unsafeView is _unsafe_view(c, shape) of a contiguous tensor c: a view
// of another shape; under autograd UnsafeViewBackward0, whose backward
// reshapes the gradient back.
func (s *Session) unsafeView(c *Tensor, shape []int64) *Tensor {
	v := share(c)
	v.Shape = shape
	s.recordViewNode("UnsafeViewBackward0", v, c, reshapeBack)
	return v
}

// View is t.view(shape) (one dimension may be -1): a view of t's
// storage with the strides PyTorch computes for it (viewStrides), or
// PyTorch's error where t's layout allows none. Under autograd it is
// ViewBackward0, whose backward reshapes the gradient back: a view, or
// a dense copy of a gradient that is not contiguous.
func (s *Session) View(t *Tensor, shape []int64) (*Tensor, error) {
	return s.view(t, shape, "ViewBackward0")
}

// view is View under autograd node name (whose backward is the same).
func (s *Session) view(t *Tensor, shape []int64, name string) (*Tensor, error) {
	shape, err := viewShape(t.Numel(), shape)
	if err != nil {
		return nil, err
	}
	st, ok := viewStrides(t.Shape, t.Strides(), shape)
	if !ok {
		return nil, Errorf(RuntimeError, "view size is not compatible with input tensor's size and stride (at least one dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
	}
	v := restrided(t, shape, st, t.offset)
	if t.IsContiguous() {
		v.strides = nil
	}
	s.recordViewNode(name, v, t, reshapeBack)
	return v, nil
}

// reshapeBack is a view's backward, grad.reshape(the input's shape): a
// view of the gradient, or a dense copy of one that is not contiguous.
func reshapeBack(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	shape := n.inputs[0].shape
	st, ok := viewStrides(g.Shape, layoutOf(g), shape)
	if !ok {
		r, err := s.alloc(shape, g.DType, g.Device())
		return []*Tensor{r}, err
	}
	r := gradView(g, shape)
	if g.strides != nil {
		r.strides, r.strided = st, !contiguous(shape, st)
	}
	return []*Tensor{r}, nil
}

// SliceDim is t[..., start:start+n*step:step] along dimension dim: a
// view of n slices, not contiguous when step > 1 (it keeps the whole
// storage).
func (s *Session) SliceDim(t *Tensor, dim int, start, n, step int64) (*Tensor, error) {
	if dim >= len(t.Shape) || start < 0 || n < 0 || step < 1 || n > 0 && start+(n-1)*step >= t.Shape[dim] {
		return nil, Errorf(RuntimeError, "slice of %s out of range", dimList(t.Shape))
	}
	v := s.slice(t, dim, start, n, step)
	s.recordView("SliceBackward0", v, t, true)
	return v, nil
}

// Expand is t.expand(shape): a view that repeats t's dimensions of size
// 1 (and adds leading ones) without memory; -1 keeps a dimension.
// Autograd records ExpandBackward0, whose backward is sum_to: the
// gradient passed on, summed down to t's shape as autograd sums a
// broadcast input's (nothing when the shapes are the same).
func (s *Session) Expand(t *Tensor, shape []int64) (*Tensor, error) {
	v, err := s.expandView(t, shape)
	if err != nil {
		return nil, err
	}
	s.recordViewNode("ExpandBackward0", v, t, passGrad)
	return v, nil
}

// expandView is Expand without autograd's node.
func (s *Session) expandView(t *Tensor, shape []int64) (*Tensor, error) {
	if len(shape) < len(t.Shape) {
		return nil, Errorf(RuntimeError, "expand(torch.FloatTensor{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)", joinDims(t.Shape, ", "), dimList(shape), len(shape), len(t.Shape))
	}
	out := slices.Clone(shape)
	lead := len(shape) - len(t.Shape)
	grows := false
	for i := range out {
		if i < lead {
			if out[i] < 0 {
				return nil, Errorf(RuntimeError, "The expanded size of the tensor (%d) isn't allowed in a leading, non-existing dimension %d", out[i], i)
			}
			grows = grows || out[i] > 1
			continue
		}
		have := t.Shape[i-lead]
		switch {
		case out[i] == -1:
			out[i] = have
		case have == 1:
			grows = grows || out[i] > 1
		case out[i] != have:
			return nil, Errorf(RuntimeError, "The expanded size of the tensor (%d) must match the existing size (%d) at non-singleton dimension %d.  Target sizes: %s.  Tensor sizes: %s", out[i], have, i, dimList(shape), dimList(t.Shape))
		}
	}
	if err := checkSize(out, t.DType.Size); err != nil {
		return nil, err
	}
	st := make([]int64, len(out))
	have := t.Strides()
	for i := range out {
		if i >= lead && t.Shape[i-lead] == out[i] {
			st[i] = have[i-lead]
		}
	}
	v := restrided(t, out, st, t.offset)
	v.expanded = v.expanded || grows
	return v, nil
}

// ToDType is t.to(dtype): t itself (another reference) when it has the
// dtype, else a copy converted on its device (values converted where
// known), laid out as t when t's elements are dense (a transposed view); autograd records it as ToCopyBackward0, which saves nothing
// and converts the gradient back (castBackward, engine/autocast.go;
// testdata/pyrules/amp_reductions.py).
func (s *Session) ToDType(t *Tensor, dt DType) (*Tensor, error) {
	if t.DType.Name == dt.Name {
		return share(t), nil
	}
	y := &Tensor{Shape: t.Shape, DType: dt}
	if err := checkSize(t.Shape, dt.Size); err != nil {
		return nil, err
	}
	st, err := s.newStorage(t.Device(), y.Bytes(), true)
	if err != nil {
		return nil, err
	}
	y.st = st
	if ts := t.Strides(); t.strided && !t.expanded && dense(t.Shape, ts) {
		laidOut(y, ts) // preserve_format: a dense permutation keeps its layout (mha_bf16.py)
	}
	st.vals = castValues(t, y, dt)
	s.record("ToCopyBackward0", y, []*Tensor{t}, nil, castBackward(t.DType))
	return y, nil
}

// castValues are the storage values of y, t converted to dt, where the
// tool knows t's: in element order when y is contiguous, else, y laid
// out as t (a dense permutation), t's storage over its elements' range;
// nil otherwise.
func castValues(t, y *Tensor, dt DType) knownValues {
	if y.IsContiguous() {
		if t.IsContiguous() { // one value for every element stays one
			return convertValues(elementValues(t), dt)
		}
		vals, ok := t.Values()
		if !ok {
			return nil
		}
		return convertValues(vals, dt)
	}
	if t.expanded || !slices.Equal(t.Strides(), y.Strides()) || !dense(t.Shape, t.Strides()) {
		return nil
	}
	if len(t.st.vals) > 1 {
		return convertValues(t.st.vals[t.offset:t.offset+t.Numel()], dt)
	}
	return convertValues(t.st.vals, dt)
}

// DataPtr is t.data_ptr(): the address of its first element (on the
// simulated device, the simulated address; on the host, an offset into
// its storage only).
func (t *Tensor) DataPtr() uint64 { return t.st.ptr + t.offset*t.DType.Size }

// Cat is torch.cat(ts, dim): a new tensor of the inputs laid end to end
// along dim. Autograd saves nothing; its backward gives each input a
// slice of the incoming gradient, a view (testdata/pyrules/more_ops.py).
func (s *Session) Cat(ts []*Tensor, d int64) (*Tensor, error) {
	if len(ts) == 0 {
		return nil, Errorf(RuntimeError, "torch.cat(): expected a non-empty list of Tensors")
	}
	first := ts[0]
	shape := slices.Clone(first.Shape)
	dim, err := dimIndex(d, len(shape))
	if err != nil {
		return nil, err
	}
	shape[dim] = 0
	for i, t := range ts {
		if len(t.Shape) != len(first.Shape) || t.DType.Name != first.DType.Name {
			return nil, Refusef(NotImplementedError, "gpumemrepl does not model torch.cat of tensors of other ranks or dtypes yet, so it cannot say what memory it uses")
		}
		for d := range t.Shape {
			if d != dim && t.Shape[d] != first.Shape[d] {
				return nil, Errorf(RuntimeError, "Sizes of tensors must match except in dimension %d. Expected size %d but got size %d for tensor number %d in the list.", dim, first.Shape[d], t.Shape[d], i)
			}
		}
		shape[dim] += t.Shape[dim]
	}
	dev, err := sameDevice(ts...)
	if err != nil {
		return nil, err
	}
	out, err := s.alloc(shape, first.DType, dev)
	if err != nil {
		return nil, err
	}
	s.record("CatBackward0", out, ts, nil, piecesBackward(dim))
	return out, nil
}

// piecesBackward is the backward of an op that lays its inputs side by
// side along dim (cat, stack): each input's gradient is its piece of
// the incoming one, a view (strided unless dim is 0) laid out as the
// incoming one is, from its piece's start (a cat's narrow, a stack's
// select).
func piecesBackward(dim int) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		grads := make([]*Tensor, len(n.inputs))
		gs := g.Strides()
		start := int64(0) // the piece's first index along dim
		for i, e := range n.inputs {
			stacked := len(e.shape) < len(g.Shape)
			if e.to != nil {
				grads[i] = gradView(g, e.shape)
				grads[i].strided = dim > 0
				if !g.expanded {
					st := slices.Clone(gs)
					if stacked {
						st = slices.Delete(st, dim, dim+1)
					}
					grads[i].strides, grads[i].offset = st, g.offset+uint64(start*gs[dim])
					grads[i].strided = !contiguous(e.shape, st)
				}
			}
			if stacked {
				start++
			} else {
				start += e.shape[dim]
			}
		}
		return grads, nil
	}
}

// Stack is torch.stack(ts, dim): a new tensor of the inputs, of one
// shape, along a new dimension dim. Autograd saves nothing; its backward
// gives each input its slice of the incoming gradient, a view
// (testdata/pyrules/ops_products.py).
func (s *Session) Stack(ts []*Tensor, dim int64) (*Tensor, error) {
	if len(ts) == 0 {
		return nil, Errorf(RuntimeError, "stack expects a non-empty TensorList")
	}
	d, err := dimIndex(dim, len(ts[0].Shape)+1)
	if err != nil {
		return nil, err
	}
	for i, t := range ts {
		if !slices.Equal(t.Shape, ts[0].Shape) {
			return nil, Errorf(RuntimeError, "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %d", dimList(ts[0].Shape), dimList(t.Shape), i)
		}
		if t.DType != ts[0].DType {
			return nil, NotModelledError("torch.stack of tensors of other dtypes")
		}
	}
	dev, err := sameDevice(ts...)
	if err != nil {
		return nil, err
	}
	out, err := s.alloc(slices.Insert(slices.Clone(ts[0].Shape), d, int64(len(ts))), ts[0].DType, dev)
	if err != nil {
		return nil, err
	}
	s.record("StackBackward0", out, ts, nil, piecesBackward(d))
	return out, nil
}

func init() {
	tensors := Param{Name: "tensors", Kind: TensorsParam}
	declare(
		&OpDef{Name: "cat", Function: true, Params: []Param{tensors, {Name: "dim", Kind: IntParam, Default: "0"}},
			Memory: "new tensor; saves nothing; backward gives each input a view of the gradient",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.Cat(a.TensorList(0), a.Int(1)) }},
		&OpDef{Name: "stack", Function: true, Params: []Param{tensors, {Name: "dim", Kind: IntParam, Default: "0"}},
			Memory: "new tensor; saves nothing; backward gives each input a view of the gradient",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.Stack(a.TensorList(0), a.Int(1)) }},
		&OpDef{Name: "view", Method: true, Params: []Param{input, {Name: "size", Kind: DimsParam}}, Usage: "Tensor.view(*shape)",
			Memory: "view: shares storage, with the strides PyTorch computes (an error where none fits); backward reshapes the gradient back",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.View(a.Tensor(0), a.Ints(1)) }},
		&OpDef{Name: "reshape", Function: true, Method: true, Params: []Param{input, {Name: "shape", Kind: DimsParam}},
			Memory: "a view where the strides allow one, else a dense copy (CloneBackward0) viewed",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.Reshape(a.Tensor(0), a.Ints(1)) }},
		&OpDef{Name: "flatten", Function: true, Method: true,
			Params: []Param{input, {Name: "start_dim", Kind: IntParam, Default: "0"}, {Name: "end_dim", Kind: IntParam, Default: "-1"}},
			Memory: "reshape of dimensions start_dim to end_dim into one: a view where the strides allow one",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.Flatten(a.Tensor(0), a.Int(1), a.Int(2)) }},
		&OpDef{Name: "expand", Method: true, Params: []Param{input, {Name: "size", Kind: DimsParam}}, Usage: "Tensor.expand(*sizes)",
			Memory: "view: no memory; a dimension of size 1 repeats with stride 0",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.Expand(a.Tensor(0), a.Ints(1)) }},
	)
}

// Flatten is t.flatten(start, end): t reshaped with dimensions start to
// end (negative from the end) made one; t itself (another reference)
// when that changes nothing, as PyTorch returns it.
func (s *Session) Flatten(t *Tensor, start, end int64) (*Tensor, error) {
	n := len(t.Shape)
	a, err := dimIndex(start, n)
	if err != nil {
		return nil, err
	}
	b, err := dimIndex(end, n)
	if err != nil {
		return nil, err
	}
	if a > b {
		return nil, Errorf(RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim")
	}
	if n == 0 {
		return s.Reshape(t, []int64{1})
	}
	if a == b {
		return share(t), nil
	}
	shape := slices.Concat(t.Shape[:a], []int64{int64(numel(t.Shape[a : b+1]))}, t.Shape[b+1:])
	return s.Reshape(t, shape)
}

// gradView is a view of gradient g (another reference to its storage) of
// the given shape: a backward that passes part or all of g on without a
// copy (sum's broadcast, cat's slices).
func gradView(g *Tensor, shape []int64) *Tensor {
	g.st.refs++
	return &Tensor{Shape: shape, DType: g.DType, st: g.st, expanded: g.expanded, view: true}
}

// Alias is t[...] (and t[:, :], whose whole-dimension slices PyTorch
// skips): a view of all of t, AliasBackward0 under autograd, whose
// backward passes the gradient on as it is.
func (s *Session) Alias(t *Tensor) *Tensor {
	v := share(t)
	s.recordViewNode("AliasBackward0", v, t, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		r := gradView(g, g.Shape)
		r.strides, r.strided, r.offset = g.strides, g.strided, g.offset
		return []*Tensor{r}, nil
	})
	return v
}
