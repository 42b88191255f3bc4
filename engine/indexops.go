package engine

import (
	"slices"
)

// index_select, index_add, and the in-place index and scatter writes
// (testdata/pyrules/ops_index_grad.py, ops_index_grad_dense.py):
// index_select makes a new dense tensor, its dimension dim as long as
// the index, and saves the index; its backward (index_add_ into zeros)
// makes one tensor of the input's shape and nothing else. index_add_,
// index_copy_, scatter_ and scatter_add_ write in place and allocate
// nothing; index_add (out of place) is a copy of its input, whose
// backward passes the gradient on to the input.

// IndexSelect is torch.index_select(x, dim, index).
func (s *Session) IndexSelect(x *Tensor, dim int64, index *Tensor) (*Tensor, error) {
	if err := checkIndex("index_select", x, index); err != nil {
		return nil, err
	}
	shape := slices.Clone(x.Shape)
	if len(shape) > 0 {
		shape[dim] = int64(index.Numel())
	}
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	s.record("IndexSelectBackward0", out, []*Tensor{x}, []*Tensor{index}, likeInput(1))
	return out, nil
}

// checkIndex checks an index op's index: int64 or int32, at most 1-d,
// on x's device.
func checkIndex(op string, x, index *Tensor) error {
	if index.DType.Name != "int64" && index.DType.Name != "int32" {
		return Errorf(RuntimeError, "%s(): Expected dtype int32/int64 for index but got: %s", op, index.DType.Name)
	}
	if len(index.Shape) > 1 {
		return Errorf(IndexError, "%s(): Index is supposed to be a vector", op)
	}
	_, err := sameDevice(x, index)
	return err
}

// IndexAdd is x.index_add(dim, index, source): a new tensor of x's shape
// (IndexAddBackward0, which passes the gradient on to x).
func (s *Session) IndexAdd(x *Tensor, dim int64, index, source *Tensor) (*Tensor, error) {
	if err := checkIndex("index_add", x, index); err != nil {
		return nil, err
	}
	out, err := s.alloc(slices.Clone(x.Shape), x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	if err := s.recordIndexAdd("torch.index_add", out, x, index, source); err != nil {
		s.dropTensor(out)
		return nil, err
	}
	return out, nil
}

// recordIndexAdd records index_add's node over out, the sum of x and
// source's slices: x's gradient is the incoming one; source's, where it
// needs one, grad.index_select(dim, index), a new tensor of source's
// shape (derivatives.yaml's grad.index_select(dim, index).expand_as(source):
// not recorded on the GPU, an estimate). It saves the index, and the
// source where that needs a gradient.
func (s *Session) recordIndexAdd(op string, out, x, index, source *Tensor) error {
	if !s.gradEnabled || !source.requiresGrad() {
		s.record("IndexAddBackward0", out, []*Tensor{x}, []*Tensor{index}, passGrad)
		return nil
	}
	if err := s.estimate(NotModelledError("the backward of index_add to its source"), op, "%s: the source's gradient, grad.index_select(dim, index), from PyTorch's derivatives.yaml, %s", argShapes(Args{x, index, source}), recording("zoo_paths.py")); err != nil {
		return err
	}
	s.record("IndexAddBackward0", out, []*Tensor{x, source}, []*Tensor{index, source}, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		grads := make([]*Tensor, 2)
		if n.inputs[0].to != nil {
			grads[0] = share(g)
		}
		if n.inputs[1].to != nil {
			var err error
			if grads[1], err = s.alloc(n.inputs[1].shape, g.DType, g.Device()); err != nil {
				return grads, err
			}
		}
		return grads, nil
	})
	return nil
}

// indexWrite is an in-place index or scatter op: no memory, refused
// where autograd would record it.
func indexWrite(name string) func(*Session, Args) error {
	return func(s *Session, a Args) error {
		x, index := a.Tensor(0), a.Tensor(2)
		if _, err := sameDevice(x, index); err != nil {
			return err
		}
		if err := s.writeUntracked(name, x); err != nil {
			return err
		}
		if name == "scatter_" && a.Int(1) == 0 {
			x.st.vals = permutedValues(x, index, a.Tensor(3))
		}
		return nil
	}
}

// permutedValues are the values x.scatter_(0, index, src) leaves in a
// whole 1-d x when index is a permutation of its places and both index
// and src are known (invert_permutation's); nil otherwise.
func permutedValues(x, index, src *Tensor) knownValues {
	idx, ok1 := index.Values()
	vals, ok2 := src.Values()
	if !ok1 || !ok2 || len(x.Shape) != 1 || x.offset != 0 || x.Bytes() != x.st.bytes || len(idx) != int(x.Shape[0]) || len(vals) != len(idx) {
		return nil
	}
	out := make(knownValues, len(idx))
	seen := make([]bool, len(idx))
	for i, p := range idx {
		j := int(p)
		if j < 0 || j >= len(out) || seen[j] {
			return nil
		}
		seen[j], out[j] = true, vals[i]
	}
	return out
}

func init() {
	dim := Param{Name: "dim", Kind: DimParam}
	index := Param{Name: "index", Kind: TensorParam}
	source := Param{Name: "source", Kind: TensorParam}
	src := Param{Name: "src", Kind: OperandParam}
	alpha := Param{Name: "alpha", Kind: NumberParam, Default: "1", KeywordOnly: true}
	declare(
		&OpDef{Name: "index_select", Function: true, Method: true, Params: []Param{input, dim, index},
			Memory: "new tensor, dimension dim as long as the index; saves the index; backward makes one tensor of the input's shape",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.IndexSelect(a.Tensor(0), a.Int(1), a.Tensor(2)) }},
		&OpDef{Name: "index_add", Function: true, Method: true, InPlace: "index_add_", Params: []Param{input, dim, index, source, alpha},
			Memory: "new tensor of the input's shape (in place: no memory); backward passes the gradient on to the input",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.IndexAdd(a.Tensor(0), a.Int(1), a.Tensor(2), a.Tensor(3))
			},
			inPlace: func(s *Session, a Args) error {
				x, index, source := a.Tensor(0), a.Tensor(2), a.Tensor(3)
				if !s.gradEnabled || !source.requiresGrad() {
					return indexWrite("index_add_")(s, a)
				}
				if err := checkIndex("index_add_", x, index); err != nil {
					return err
				}
				if x.slot != nil && x.fn == nil {
					return errLeafInPlace
				}
				old := x.fn
				s.written(x)
				if err := s.recordIndexAdd("Tensor.index_add_", x, x, index, source); err != nil {
					return err
				}
				s.replaced(x, old)
				return nil
			}},
		&OpDef{Name: "index_copy", InPlace: "index_copy_", Params: []Param{input, dim, index, source},
			Memory: "writes source's slices in place: no memory", inPlace: indexWrite("index_copy_")},
		// out of place (testdata/pyrules/ops_census_misc.py, held
		// statement by statement): a copy of the input, src written into
		// it; ScatterBackward saves the index; backward makes the input's
		// gradient (the written places zeroed) and a tensor src's
		&OpDef{Name: "scatter", Function: true, Method: true, InPlace: "scatter_", Params: []Param{input, dim, index, src},
			Memory: "writes src (a tensor or a number) in place: no memory; out of place a copy of the input, src written; backward makes the input's gradient and src's",
			run: func(s *Session, a Args) (*Tensor, error) {
				x, idx, v := a.Tensor(0), a.Tensor(2), a.Tensor(3)
				if _, err := sameDevice(x, idx); err != nil {
					return nil, err
				}
				out, err := s.alloc(slices.Clone(x.Shape), x.DType, x.Device())
				if err != nil {
					return nil, err
				}
				name := "ScatterBackward1" // by a number
				inputs := []*Tensor{x}
				if !v.number {
					name = "ScatterBackward0"
					inputs = append(inputs, v)
				}
				s.record(name, out, inputs, []*Tensor{idx}, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
					grads := make([]*Tensor, len(n.inputs))
					for i, e := range n.inputs {
						if e.to == nil {
							continue
						}
						t, err := s.alloc(e.shape, g.DType, g.Device())
						if err != nil {
							return grads, err
						}
						grads[i] = t
					}
					return grads, nil
				})
				return out, nil
			},
			inPlace: indexWrite("scatter_")},
		&OpDef{Name: "scatter_add", InPlace: "scatter_add_", Params: []Param{input, dim, index, src},
			Memory: "adds src in place: no memory", inPlace: indexWrite("scatter_add_")},
	)
}

// Tensor.take(index): the elements at flat indices, a new tensor of the
// index's shape (testdata/pyrules/ops_census_more.py, held
// statement by statement); TakeBackward0 saves the index and makes the
// input's gradient, zeros with the gradient added in: one tensor of its
// shape.
func init() {
	declare(&OpDef{Name: "take", Function: true, Method: true, Params: []Param{input, {Name: "index", Kind: TensorParam}},
		Memory: "a new tensor of the index's shape; saves the index; backward makes one tensor of the input's shape",
		run: func(s *Session, a Args) (*Tensor, error) {
			x, idx := a.Tensor(0), a.Tensor(1)
			if idx.DType.Name != "int64" {
				return nil, Errorf(RuntimeError, "take(): Expected a long tensor for index, but got %s", LegacyBase(idx.DType))
			}
			if _, err := sameDevice(x, idx); err != nil {
				return nil, err
			}
			out, err := s.alloc(slices.Clone(idx.Shape), x.DType, x.Device())
			if err != nil {
				return nil, err
			}
			s.record("TakeBackward0", out, []*Tensor{x}, []*Tensor{idx}, likeInput(1))
			return out, nil
		}})
}
