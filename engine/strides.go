package engine

import (
	"cmp"
	"slices"
)

// Strides, and the views that rearrange dimensions: unsqueeze, squeeze,
// permute, narrow and select share their input's storage
// and allocate nothing (testdata/pyrules/ops_views.py). Under autograd
// each records its node: the backward of unsqueeze, squeeze, permute and
// transpose passes the gradient on as a view; narrow's and select's make
// a tensor of the input's shape (zeros, the gradient copied in:
// ops_views_grad.py).

// Strides is t.stride(): elements to step in its storage for one step of
// each dimension.
func (t *Tensor) Strides() []int64 {
	if t.strides != nil {
		return slices.Clone(t.strides)
	}
	return denseStrides(t.Shape)
}

// StorageOffset is t.storage_offset(), in elements.
func (t *Tensor) StorageOffset() int64 { return int64(t.offset) }

// denseStrides are the strides of a contiguous tensor of shape.
func denseStrides(shape []int64) []int64 {
	st := make([]int64, len(shape))
	step := int64(1)
	for d := len(shape) - 1; d >= 0; d-- {
		st[d] = step
		step *= max(shape[d], 1)
	}
	return st
}

// contiguous reports whether shape laid out by strides is dense and in
// order, as PyTorch's is_contiguous decides (dimensions of size 1 do not
// count).
func contiguous(shape, strides []int64) bool {
	want := int64(1)
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] == 0 {
			return true
		}
		if shape[d] != 1 {
			if strides[d] != want {
				return false
			}
			want *= shape[d]
		}
	}
	return true
}

// dense reports whether shape laid out by strides covers a range of
// elements once each, in some order of its dimensions.
func dense(shape, strides []int64) bool {
	order := make([]int, len(shape))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(strides[a], strides[b]) })
	want := int64(1)
	for _, d := range order {
		if shape[d] == 1 {
			continue
		}
		if strides[d] != want {
			return false
		}
		want *= shape[d]
	}
	return true
}

// restrided is another reference to t's storage laid out as shape and
// strides from element offset on.
func restrided(t *Tensor, shape, strides []int64, offset uint64) *Tensor {
	v := share(t)
	v.Shape, v.strides, v.offset = shape, strides, offset
	v.strided = !contiguous(shape, strides)
	v.view = true
	return v
}

// recordView records the view op name on v, a view of t, where autograd
// does: v is no longer t's leaf but the output of its node, whose backward
// passes the gradient on as a view (dense false) or makes a tensor of t's
// shape.
func (s *Session) recordView(name string, v, t *Tensor, dense bool) {
	bw := likeInput(1)
	if !dense {
		bw = func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
			r := gradView(g, n.inputs[0].shape)
			r.strided = g.strided || v.strided
			return []*Tensor{r}, nil
		}
	}
	s.recordViewNode(name, v, t, bw)
}

// recordPermute records the view op name on v, t's dimensions reordered
// (v's dimension i is t's perm[i]), where autograd does: its backward
// lays the gradient's dimensions back in t's order, a view.
func (s *Session) recordPermute(name string, v, t *Tensor, perm []int) {
	s.recordViewNode(name, v, t, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		shape := n.inputs[0].shape
		r := gradView(g, shape)
		if g.expanded && g.strides == nil {
			return []*Tensor{r}, nil // a broadcast gradient stays one
		}
		gs := g.Strides()
		st := make([]int64, len(shape))
		for i, d := range perm {
			st[d] = gs[i]
		}
		r.strides, r.strided = st, !contiguous(shape, st)
		return []*Tensor{r}, nil
	})
}

// swapped is the order of n dimensions with d0 and d1 swapped.
func swapped(n, d0, d1 int) []int {
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	perm[d0], perm[d1] = d1, d0
	return perm
}

// recordViewNode records the view op name on v, a view of t, with
// backward bw, where autograd does: v is no longer t's leaf but the
// output of its node.
func (s *Session) recordViewNode(name string, v, t *Tensor, bw backward) {
	if !s.gradEnabled || !t.requiresGrad() {
		return
	}
	old := v.fn
	s.record(name, v, []*Tensor{t}, nil, bw)
	s.replaced(v, old)
	s.dropSlot(v)
}

// viewStrides are the strides of shape viewed over a tensor of oldShape
// laid out by oldStrides, of as many elements, as PyTorch's view
// computes them: the old dimensions fall into runs, each laid out
// densely from its innermost dimension's stride; each run must be the
// product of consecutive new dimensions, which take strides within it.
// false when no run fits.
func viewStrides(oldShape, oldStrides, shape []int64) ([]int64, bool) {
	out := make([]int64, len(shape))
	switch {
	case len(oldShape) == 0: // a 0-d tensor: every new dimension is 1
		for i := range out {
			out[i] = 1
		}
		return out, true
	case numel(oldShape) == 0:
		if slices.Equal(oldShape, shape) {
			return slices.Clone(oldStrides), true
		}
		return denseStrides(shape), true
	}
	d := len(shape) - 1
	base := oldStrides[len(oldStrides)-1]
	run, view := int64(1), int64(1)
	for od := len(oldShape) - 1; od >= 0; od-- {
		run *= oldShape[od]
		if od > 0 && (oldShape[od-1] == 1 || oldStrides[od-1] == run*base) {
			continue // the run goes on into the next outer dimension
		}
		for d >= 0 && (view < run || shape[d] == 1) {
			out[d] = view * base
			view *= shape[d]
			d--
		}
		if view != run {
			return nil, false
		}
		if od > 0 {
			base, run, view = oldStrides[od-1], 1, 1
		}
	}
	return out, d == -1
}

// dimIndex is dimension d of a tensor of n dimensions (negative from the
// end), or PyTorch's IndexError.
func dimIndex(d int64, n int) (int, error) {
	if n == 0 && (d == 0 || d == -1) { // a 0-d tensor takes dim 0 and -1
		return 0, nil
	}
	if d < -int64(n) || d >= int64(n) {
		return 0, Errorf(IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got %d)", -n, n-1, d)
	}
	if d < 0 {
		d += int64(n)
	}
	return int(d), nil
}

// Unsqueeze is t.unsqueeze(dim): a view with a dimension of size 1
// inserted at dim (0 to t's rank).
func (s *Session) Unsqueeze(t *Tensor, dim int64) (*Tensor, error) {
	d, err := dimIndex(dim, len(t.Shape)+1)
	if err != nil {
		return nil, err
	}
	v := restrided(t, slices.Insert(slices.Clone(t.Shape), d, 1), unsqueezedStrides(t.Shape, t.Strides(), d), t.offset)
	s.recordViewNode("UnsqueezeBackward0", v, t, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		return []*Tensor{regrid(g, n.inputs[0].shape, func(st []int64) []int64 { return slices.Delete(st, d, d+1) })}, nil
	})
	return v, nil
}

// regrid is a squeeze's or unsqueeze's backward: the gradient viewed as
// shape, its strides those of g made by strides (a dimension of size 1
// taken out or put in), so a gradient that is not contiguous stays so
// (mha_self.py: the in-projection's reorder).
func regrid(g *Tensor, shape []int64, strides func([]int64) []int64) *Tensor {
	r := gradView(g, shape)
	if g.strides == nil {
		r.strided = g.strided
		return r
	}
	r.strides = strides(g.Strides())
	r.strided = !contiguous(shape, r.strides)
	return r
}

// unsqueezedStrides are strides with a dimension of size 1 put in at d
// of a tensor of shape, as Unsqueeze lays it out.
func unsqueezedStrides(shape, st []int64, d int) []int64 {
	inner := int64(1)
	if d < len(shape) {
		inner = shape[d] * st[d]
	}
	return slices.Insert(st, d, inner)
}

// Squeeze is t.squeeze(dims...): a view without the given dimensions of
// size 1 (every one of size 1 when none is given).
func (s *Session) Squeeze(t *Tensor, dims ...int64) (*Tensor, error) {
	drop := make([]bool, len(t.Shape))
	for _, dim := range dims {
		d, err := dimIndex(dim, len(t.Shape))
		if err != nil {
			return nil, err
		}
		drop[d] = len(t.Shape) > 0 && t.Shape[d] == 1
	}
	var shape, strides []int64
	st := t.Strides()
	for d, n := range t.Shape {
		if len(dims) == 0 && n == 1 || drop[d] {
			continue
		}
		shape, strides = append(shape, n), append(strides, st[d])
	}
	name := "SqueezeBackward0"
	if len(dims) > 0 {
		name = "SqueezeBackward1"
	}
	v := restrided(t, shape, strides, t.offset)
	s.recordViewNode(name, v, t, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		in := n.inputs[0].shape
		return []*Tensor{regrid(g, in, func(st []int64) []int64 {
			sh := slices.Clone(g.Shape)
			for d := range in {
				if len(dims) == 0 && in[d] == 1 || drop[d] {
					st = unsqueezedStrides(sh, st, d)
					sh = slices.Insert(sh, d, 1)
				}
			}
			return st
		})}, nil
	})
	return v, nil
}

// Permute is t.permute(dims): a view with its dimensions reordered.
func (s *Session) Permute(t *Tensor, dims []int64) (*Tensor, error) {
	if len(dims) != len(t.Shape) {
		return nil, Errorf(RuntimeError, "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d", len(t.Shape), len(dims))
	}
	st := t.Strides()
	shape, strides := make([]int64, len(dims)), make([]int64, len(dims))
	seen := make([]bool, len(dims))
	for i, dim := range dims {
		d, err := dimIndex(dim, len(t.Shape))
		if err != nil {
			return nil, err
		}
		if seen[d] {
			return nil, Errorf(RuntimeError, "permute(): duplicate dims are not allowed.")
		}
		seen[d] = true
		shape[i], strides[i] = t.Shape[d], st[d]
	}
	v := restrided(t, shape, strides, t.offset)
	perm := make([]int, len(dims))
	for i, dim := range dims {
		perm[i], _ = dimIndex(dim, len(t.Shape))
	}
	s.recordPermute("PermuteBackward0", v, t, perm)
	return v, nil
}

// NarrowDim is t.narrow(dim, start, length): a view of length slices of
// dimension dim from start on.
func (s *Session) NarrowDim(t *Tensor, dim int64, start, length int64) (*Tensor, error) {
	d, err := dimIndex(dim, len(t.Shape))
	if err != nil {
		return nil, err
	}
	if len(t.Shape) == 0 {
		return nil, Errorf(RuntimeError, "narrow() cannot be applied to a 0-dim tensor.")
	}
	if start < 0 {
		start += t.Shape[d]
	}
	if start < 0 || length < 0 || start+length > t.Shape[d] {
		return nil, Errorf(RuntimeError, "start (%d) + length (%d) exceeds dimension size (%d).", start, length, t.Shape[d])
	}
	v := s.slice(t, d, start, length, 1)
	s.recordView("SliceBackward0", v, t, true)
	return v, nil
}

// slice is the view of n slices of dimension d from start on, step
// apart.
func (s *Session) slice(t *Tensor, d int, start, n, step int64) *Tensor {
	st := t.Strides()
	shape := slices.Clone(t.Shape)
	shape[d] = n
	offset := t.offset + uint64(start*st[d])
	st[d] *= step
	return restrided(t, shape, st, offset)
}

// SelectDim is t.select(dim, i) (t[..., i]): the i-th slice of dimension
// dim, a view without that dimension.
func (s *Session) SelectDim(t *Tensor, dim, i int64) (*Tensor, error) {
	d, err := dimIndex(dim, len(t.Shape))
	if err != nil {
		return nil, err
	}
	if len(t.Shape) == 0 {
		return nil, Errorf(IndexError, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
	}
	n := t.Shape[d]
	if i < -n || i >= n {
		return nil, Errorf(IndexError, "index %d is out of bounds for dimension %d with size %d", i, d, n)
	}
	if i < 0 {
		i += n
	}
	st := t.Strides()
	v := restrided(t, slices.Delete(slices.Clone(t.Shape), d, d+1), slices.Delete(slices.Clone(st), d, d+1), t.offset+uint64(i*st[d]))
	s.recordView("SelectBackward0", v, t, true)
	return v, nil
}

// ceilDivInt is a / b rounded up.
func ceilDivInt(a, b int64) int64 { return (a + b - 1) / b }

// tuple is the runTuple of an op that always returns a tuple.
func tuple(f func(s *Session, a Args) ([]*Tensor, error)) func(s *Session, a Args) ([]*Tensor, bool, error) {
	return func(s *Session, a Args) ([]*Tensor, bool, error) {
		ts, err := f(s, a)
		return ts, true, err
	}
}

func init() {
	integer := func(name, def string) Param { return Param{Name: name, Kind: IntParam, Default: def} }
	view := func(d *OpDef) *OpDef {
		d.Function, d.Method = true, true
		if d.Memory == "" {
			d.Memory = "view: shares storage; backward passes the gradient on as a view"
		}
		return d
	}
	declare(
		view(&OpDef{Name: "unsqueeze", Params: []Param{input, integer("dim", "")},
			run: func(s *Session, a Args) (*Tensor, error) { return s.Unsqueeze(a.Tensor(0), a.Int(1)) }}),
		view(&OpDef{Name: "squeeze", Params: []Param{input, {Name: "dim", Kind: DimsParam, Default: "None"}},
			run: func(s *Session, a Args) (*Tensor, error) { return s.Squeeze(a.Tensor(0), a.Ints(1)...) }}),
		view(&OpDef{Name: "permute", Params: []Param{input, {Name: "dims", Kind: DimsParam}},
			run: func(s *Session, a Args) (*Tensor, error) { return s.Permute(a.Tensor(0), a.Ints(1)) }}),
		view(&OpDef{Name: "transpose", Params: []Param{input, integer("dim0", ""), integer("dim1", "")},
			run: func(s *Session, a Args) (*Tensor, error) {
				t := a.Tensor(0)
				d0, err := dimIndex(a.Int(1), len(t.Shape))
				if err != nil {
					return nil, err
				}
				d1, err := dimIndex(a.Int(2), len(t.Shape))
				if err != nil {
					return nil, err
				}
				v := s.Transpose(t, d0, d1)
				s.recordPermute("TransposeBackward0", v, t, swapped(len(t.Shape), d0, d1))
				return v, nil
			}}),
		view(&OpDef{Name: "t", Params: []Param{input},
			run: func(s *Session, a Args) (*Tensor, error) {
				t := a.Tensor(0)
				if len(t.Shape) > 2 {
					return nil, Errorf(RuntimeError, "t() expects a tensor with <= 2 dimensions, but self is %dD", len(t.Shape))
				}
				v := s.Transpose(t, 0, max(len(t.Shape)-1, 0)) // a 0-d tensor is its own t()
				if len(t.Shape) == 2 {
					s.recordPermute("TBackward0", v, t, swapped(2, 0, 1))
				}
				return v, nil
			}}),
		view(&OpDef{Name: "narrow", Params: []Param{input, integer("dim", ""), integer("start", ""), integer("length", "")},
			Memory: "view: shares storage; backward makes a tensor of the input's shape",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.NarrowDim(a.Tensor(0), a.Int(1), a.Int(2), a.Int(3))
			}}),
		view(&OpDef{Name: "select", Params: []Param{input, integer("dim", ""), integer("index", "")},
			Memory: "view: shares storage; backward makes a tensor of the input's shape",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.SelectDim(a.Tensor(0), a.Int(1), a.Int(2)) }}),
	)
}

// Tensor.unfold(dimension, size, step): a view of every window of size
// elements along dimension, step apart, as a new last dimension
// (testdata/pyrules/ops_census_misc.py, held statement by statement).
// UnfoldBackward0 makes the input's gradient, zeros with
// the windows added in, and an int64 index along the dimension (freed):
// the H200's peak in ops_census_misc.py's recording.
func init() {
	declare(&OpDef{Name: "unfold", Method: true, Params: []Param{input, {Name: "dimension", Kind: IntParam}, {Name: "size", Kind: IntParam}, {Name: "step", Kind: IntParam}},
		Memory: "a view, no memory; backward makes one tensor of the input's shape",
		run: func(s *Session, a Args) (*Tensor, error) {
			t, size, step := a.Tensor(0), a.Int(2), a.Int(3)
			n := len(t.Shape)
			d, err := dimIndex(a.Int(1), max(n, 1))
			if err != nil {
				return nil, err
			}
			length := int64(1)
			if n > 0 {
				length = t.Shape[d]
			}
			switch {
			case size > length:
				return nil, Errorf(RuntimeError, "maximum size for tensor at dimension %d is %d but size is %d", d, length, size)
			case step <= 0:
				return nil, Errorf(RuntimeError, "step is %d but must be > 0", step)
			}
			st := t.Strides()
			shape := slices.Clone(t.Shape)
			var stride int64 = 1
			if n > 0 {
				stride = st[d]
				shape[d] = (length-size)/step + 1
				st[d] *= step
			}
			v := restrided(t, append(shape, size), append(st, stride), t.offset)
			s.recordViewNode("UnfoldBackward0", v, t, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
				in := n.inputs[0].shape
				ts, err := s.allocAll(g.Device(), tensorShape{in, g.DType}, tensorShape{[]int64{length}, DTypes["int64"]})
				if err != nil {
					return []*Tensor{nil}, err
				}
				s.dropTensor(ts[1])
				return ts[:1], nil
			})
			return v, nil
		}})
}
