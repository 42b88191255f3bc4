package engine

import "slices"

// flip and roll: a copy with its elements reordered (testdata/
// pyrules/ops_repeat_shape.py, held statement by statement). flip is one TensorIterator kernel: an
// output laid out as its input (FlipBackward0 flips the gradient: one
// tensor). roll on CUDA makes a contiguous copy of an input that is not
// contiguous, then its output, and rolls one dimension a call: several
// dimensions make one output each, the one before freed; with no dims
// it rolls the input flattened and views it back. RollBackward0 rolls
// the gradient back the same way.

func init() {
	declare(
		&OpDef{Name: "flip", Function: true, Method: true, Params: []Param{input, {Name: "dims", Kind: DimsParam}},
			Memory: "a copy laid out as the input; saves nothing; backward makes the gradient, flipped",
			run: func(s *Session, a Args) (*Tensor, error) {
				x := a.Tensor(0)
				seen := map[int]bool{}
				for _, dim := range a.Ints(1) {
					d, err := dimIndex(dim, len(x.Shape))
					if err != nil {
						return nil, err
					}
					if seen[d] {
						return nil, Errorf(RuntimeError, "dim %d appears multiple times in the list of dims", d)
					}
					seen[d] = true
				}
				out, err := s.alloc(slices.Clone(x.Shape), x.DType, x.Device())
				if err != nil {
					return nil, err
				}
				layOut(out, x)
				s.record("FlipBackward0", out, []*Tensor{x}, nil, likeInput(1))
				return out, nil
			}},
		&OpDef{Name: "roll", Function: true, Method: true, Params: []Param{input, {Name: "shifts", Kind: DimsParam}, {Name: "dims", Kind: DimsParam, Default: "None"}},
			Memory: "a contiguous copy of an input that is not contiguous (freed after), then one output for each dimension rolled, the one before freed; saves nothing; backward rolls the gradient back the same way",
			run: func(s *Session, a Args) (*Tensor, error) {
				x, shifts, dims := a.Tensor(0), a.Ints(1), a.Ints(2)
				if len(shifts) != len(dims) && !(len(dims) == 0 && len(shifts) == 1) {
					return nil, Errorf(RuntimeError, "shifts and dimensions must align. shifts: %d, dims:%d", len(shifts), len(dims))
				}
				for _, dim := range dims {
					if _, err := dimIndex(dim, len(x.Shape)); err != nil {
						return nil, err
					}
				}
				calls := max(len(dims), 1)
				out, err := s.rolled(x, calls)
				if err != nil {
					return nil, err
				}
				s.record("RollBackward0", out, []*Tensor{x}, nil, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
					r, err := s.rolled(g, calls)
					return []*Tensor{r}, err
				})
				return out, nil
			}},
	)
}

// rolled is what roll of x along calls dimensions makes: a contiguous
// copy of x first where x is not contiguous (freed after the first
// call), then an output a call, each freeing the one before.
func (s *Session) rolled(x *Tensor, calls int) (*Tensor, error) {
	var copied *Tensor
	if !x.IsContiguous() {
		var err error
		if copied, err = s.alloc(slices.Clone(x.Shape), x.DType, x.Device()); err != nil {
			return nil, err
		}
	}
	var out *Tensor
	for i := range calls {
		next, err := s.alloc(slices.Clone(x.Shape), x.DType, x.Device())
		if i == 0 {
			s.dropTensor(copied)
		}
		s.dropTensor(out)
		if err != nil {
			return nil, err
		}
		out = next
	}
	return out, nil
}
