package engine

import (
	"slices"
)

// Tensor.repeat and tile (testdata/pyrules_pending/ops_repeat_shape.py,
// not yet recorded on the GPU: their steps say "estimated"). PyTorch's
// repeat makes the output and copies the input, expanded, into a view
// of it: one tensor. Its backward (RepeatBackward0: the gradient summed
// over the repeats, whose reduction buffers were not recorded) is
// refused.

func init() {
	declare(
		estimated(&OpDef{Name: "repeat", Method: true, Params: []Param{input, {Name: "repeats", Kind: DimsParam}}, Usage: "Tensor.repeat(*repeats)",
			Memory: "one tensor of the repeated shape; backward refused",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.repeat(a.Tensor(0), a.Ints(1)) }}),
		estimated(&OpDef{Name: "tile", Function: true, Method: true, Params: []Param{input, {Name: "dims", Kind: DimsParam}},
			Memory: "repeat, with leading 1s for dimensions dims lacks",
			run: func(s *Session, a Args) (*Tensor, error) {
				x, dims := a.Tensor(0), a.Ints(1)
				for len(dims) < len(x.Shape) {
					dims = append([]int64{1}, dims...)
				}
				return s.repeat(x, dims)
			}}),
	)
}

// repeat is x.repeat(repeats).
func (s *Session) repeat(x *Tensor, repeats []int64) (*Tensor, error) {
	if len(repeats) < len(x.Shape) {
		return nil, Errorf(RuntimeError, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
	}
	shape := slices.Clone(repeats)
	lead := len(repeats) - len(x.Shape)
	for i, n := range x.Shape {
		shape[lead+i] *= n
	}
	if err := checkSize(shape, x.DType.Size); err != nil {
		return nil, err
	}
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	s.record("RepeatBackward0", out, []*Tensor{x}, nil, func(*Session, *node, *Tensor) ([]*Tensor, error) {
		return []*Tensor{nil}, NotModelledError("the backward of Tensor.repeat")
	})
	return out, nil
}
