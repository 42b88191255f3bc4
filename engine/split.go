package engine

import (
	"slices"
)

// split, chunk and unbind: views of a tensor's slices, sharing its
// storage. Under autograd they are one node of several outputs, a piece
// each (SplitBackward0, SplitWithSizesBackward0, UnbindBackward0), whose
// backward makes a zero tensor for each piece that got no gradient, then
// lays the pieces' gradients end to end (a cat, a stack) in one new
// tensor of the input's shape (testdata/pyrules/ops_split_grad.py).

// splitSizes are the sizes of the pieces split_size slices of a
// dimension of n make: the last what remains; one empty piece of an empty
// dimension.
func splitSizes(n, size int64) []int64 {
	var sizes []int64
	for start := int64(0); start == 0 || start < n; start += max(size, 1) {
		sizes = append(sizes, min(size, n-start))
	}
	return sizes
}

// Split is t.split(sizes, dim): views of consecutive slices of dimension
// dim, sizes[i] slices the i-th; node is autograd's name for it.
func (s *Session) Split(t *Tensor, sizes []int64, dim int64, node string) ([]*Tensor, error) {
	d, err := dimIndex(dim, len(t.Shape))
	if err != nil {
		return nil, err
	}
	if len(t.Shape) == 0 {
		return nil, Errorf(RuntimeError, "split expects at least a 1-dimensional tensor")
	}
	var sum int64
	for _, n := range sizes {
		if n < 0 {
			return nil, Errorf(RuntimeError, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=%s", dimList(sizes))
		}
		sum += n
	}
	if sum != t.Shape[d] {
		return nil, Errorf(RuntimeError, "split_with_sizes expects split_sizes to sum exactly to %d (input tensor's size at dimension %d), but got split_sizes=%s", t.Shape[d], d, dimList(sizes))
	}
	out := make([]*Tensor, len(sizes))
	shapes := make([][]int64, len(sizes))
	var start int64
	for i, n := range sizes {
		out[i] = s.slice(t, d, start, n, 1)
		shapes[i] = out[i].Shape
		start += n
	}
	s.recordPieces(node, out, t, nil, zerosThen(shapes))
	return out, nil
}

// Chunk is t.chunk(chunks, dim): views of ceil(size/chunks) slices of
// dim each (the last may be smaller, and fewer than chunks may come), a
// split.
func (s *Session) Chunk(t *Tensor, chunks, dim int64) ([]*Tensor, error) {
	if chunks <= 0 {
		return nil, Errorf(RuntimeError, "chunk expects `chunks` to be greater than 0, got: %d", chunks)
	}
	d, err := dimIndex(dim, len(t.Shape))
	if err != nil {
		return nil, err
	}
	if len(t.Shape) == 0 {
		return nil, Errorf(RuntimeError, "chunk expects at least a 1-dimensional tensor")
	}
	return s.Split(t, splitSizes(t.Shape[d], ceilDivInt(t.Shape[d], chunks)), dim, "SplitBackward0")
}

// Unbind is t.unbind(dim): every slice of dim, each a view without it.
func (s *Session) Unbind(t *Tensor, dim int64) ([]*Tensor, error) {
	d, err := dimIndex(dim, len(t.Shape))
	if err != nil {
		return nil, err
	}
	if len(t.Shape) == 0 {
		return nil, Errorf(IndexError, "Dimension specified as 0 but tensor has no dimensions")
	}
	st := t.Strides()
	shape, strides := slices.Delete(slices.Clone(t.Shape), d, d+1), slices.Delete(slices.Clone(st), d, d+1)
	out := make([]*Tensor, t.Shape[d])
	for i := range out {
		out[i] = restrided(t, shape, strides, t.offset+uint64(int64(i)*st[d]))
	}
	s.recordPieces("UnbindBackward0", out, t, nil, zerosThen(nil))
	return out, nil
}

// recordPieces records op name on ps, views of t or new tensors made
// from it, where autograd does: one node, saving save, each piece one of
// its outputs, whose backward bw reads each piece's gradient from
// n.grads.
func (s *Session) recordPieces(name string, ps []*Tensor, t *Tensor, save []*Tensor, bw backward) {
	if !s.gradEnabled || !t.requiresGrad() || len(ps) == 0 {
		return
	}
	old := ps[0].fn
	s.record(name, ps[0], []*Tensor{t}, save, bw)
	s.replaced(ps[0], old)
	s.dropSlot(ps[0])
	n := ps[0].fn
	n.grads = make([]*Tensor, len(ps))
	for i, p := range ps[1:] {
		s.unref(p.fn)
		s.dropSlot(p)
		p.fn, p.out = n, i+1
		n.refs++
	}
}

// zerosThen is the backward of split and unbind: for each piece without
// a gradient, in order, a zero tensor (of the piece's shape; nil shapes:
// a 0-d zero, expanded, as unbind makes it), then the input's gradient,
// one new tensor (the cat or stack); then the zeros and the pieces'
// gradients are freed, in order.
func zerosThen(shapes [][]int64) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		if g != nil {
			return []*Tensor{nil}, NotModelledError("backward() from a piece of a split or unbind")
		}
		grads := n.grads
		n.grads = make([]*Tensor, len(grads))
		var zeros []*Tensor
		defer func() {
			for _, z := range zeros {
				s.dropTensor(z)
			}
			for _, gi := range grads {
				s.dropTensor(gi)
			}
		}()
		var like *Tensor
		for _, gi := range grads {
			if gi != nil {
				like = gi
				break
			}
		}
		for i, gi := range grads {
			if gi != nil {
				continue
			}
			var shape []int64
			if shapes != nil {
				shape = shapes[i]
			}
			z, err := s.alloc(shape, like.DType, like.Device())
			if err != nil {
				return []*Tensor{nil}, err
			}
			zeros = append(zeros, z)
		}
		out, err := s.alloc(n.inputs[0].shape, like.DType, like.Device())
		if err != nil {
			return []*Tensor{nil}, err
		}
		return []*Tensor{out}, nil
	}
}

func init() {
	integer := func(name, def string) Param { return Param{Name: name, Kind: IntParam, Default: def} }
	memory := "views: share storage; under autograd one node of them all, whose backward makes a zero tensor for each piece without a gradient, then the input's gradient"
	declare(
		&OpDef{Name: "chunk", Function: true, Method: true, Params: []Param{input, integer("chunks", ""), integer("dim", "0")},
			Memory:   memory,
			runTuple: tuple(func(s *Session, a Args) ([]*Tensor, error) { return s.Chunk(a.Tensor(0), a.Int(1), a.Int(2)) })},
		&OpDef{Name: "split", Function: true, Method: true,
			Params: []Param{input, {Name: "split_size", Kind: DimsParam}, integer("dim", "0")},
			Memory: memory,
			runTuple: tuple(func(s *Session, a Args) ([]*Tensor, error) {
				t, sizes := a.Tensor(0), a.Ints(1)
				if len(sizes) != 1 {
					return s.Split(t, sizes, a.Int(2), "SplitWithSizesBackward0")
				}
				d, err := dimIndex(a.Int(2), len(t.Shape))
				switch {
				case err != nil:
					return nil, err
				case len(t.Shape) == 0:
					return nil, Errorf(RuntimeError, "split expects at least a 1-dimensional tensor")
				case sizes[0] < 0:
					return nil, Errorf(RuntimeError, "split expects split_size be non-negative, but got split_size=%d", sizes[0])
				case sizes[0] == 0 && t.Shape[d] != 0:
					return nil, Errorf(RuntimeError, "split_size can only be 0 if dimension size is 0, but got dimension size of %d", t.Shape[d])
				}
				return s.Split(t, splitSizes(t.Shape[d], sizes[0]), a.Int(2), "SplitBackward0")
			})},
		// tensor_split: views, by a number of sections (the first
		// size % n one longer) or at indices, each narrowed on its own
		// (SliceBackward0: backward makes one tensor of the input's
		// shape), as the H200 showed (testdata/pyrules/
		// ops_census_misc.py, held statement by statement)
		&OpDef{Name: "tensor_split", Function: true, Method: true,
			Params: []Param{input, integer("sections", "None"), intsParam("indices", "None"), integer("dim", "0")},
			Usage:  "torch.tensor_split(input, indices_or_sections, dim=0)",
			Memory: "views, each a slice (backward makes one tensor of the input's shape)",
			runTuple: tuple(func(s *Session, a Args) ([]*Tensor, error) {
				t := a.Tensor(0)
				d, err := dimIndex(a.Int(3), len(t.Shape))
				if err != nil || len(t.Shape) == 0 {
					return nil, Errorf(RuntimeError, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with %d dims", len(t.Shape))
				}
				n := t.Shape[d]
				var sizes []int64
				if a[1] != nil { // sections
					k := a.Int(1)
					if k <= 0 {
						return nil, Errorf(RuntimeError, "number of sections must be larger than 0, got %d", k)
					}
					for i := range k {
						sizes = append(sizes, n/k)
						if i < n%k {
							sizes[i]++
						}
					}
				} else {
					prev := int64(0)
					for _, i := range append(slices.Clone(a.Ints(2)), n) {
						i = min(max(i, prev), n)
						sizes = append(sizes, i-prev)
						prev = i
					}
				}
				// each piece a slice of its own (SliceBackward0), as PyTorch
				// narrows them
				var out []*Tensor
				var start int64
				for _, n := range sizes {
					p, err := s.NarrowDim(t, int64(d), start, n)
					if err != nil {
						s.dropAll(out)
						return nil, err
					}
					out = append(out, p)
					start += n
				}
				return out, nil
			})},
		// Tensor.split with a list of sizes is this op in PyTorch
		&OpDef{Name: "split_with_sizes", Function: true, Method: true, Params: []Param{input, {Name: "split_sizes", Kind: DimsParam}, integer("dim", "0")},
			Memory: "as split with a list of sizes",
			runTuple: tuple(func(s *Session, a Args) ([]*Tensor, error) {
				return s.Split(a.Tensor(0), a.Ints(1), a.Int(2), "SplitWithSizesBackward0")
			})},
		&OpDef{Name: "unbind", Function: true, Method: true, Params: []Param{input, integer("dim", "0")},
			Memory:   memory,
			runTuple: tuple(func(s *Session, a Args) ([]*Tensor, error) { return s.Unbind(a.Tensor(0), a.Int(1)) })},
	)
}
