package engine

import (
	"slices"
)

// torch.addmm(input, mat1, mat2, beta=1, alpha=1)
// (testdata/pyrules/ops_floordiv_addmm.py): a new matrix; the cuBLAS
// workspace on first use, and cuBLASLt's too when input is a bias (one
// dimension, mat2's columns) added as is (beta and alpha 1), as
// F.linear's addmm; a full input is copied into the output, no more
// memory. Autograd (AddmmBackward0, the bias form only) saves the
// factors each other's gradient needs; backward makes mat1's gradient,
// then mat2's, each one product after a dense copy of a broadcast
// gradient, and passes the bias the incoming one, summed to its shape.

// Addmm is torch.addmm.
func (s *Session) Addmm(in, a, b *Tensor, beta, alpha float64) (*Tensor, error) {
	if len(a.Shape) != 2 || len(b.Shape) != 2 {
		return nil, Errorf(RuntimeError, "mat1 must be a matrix, got %d-D tensor", len(a.Shape))
	}
	if a.Shape[1] != b.Shape[0] {
		return nil, shapeError(a.Shape, b.Shape)
	}
	dev, err := sameDevice(in, a, b)
	if err != nil {
		return nil, err
	}
	shape := []int64{a.Shape[0], b.Shape[1]}
	bias := len(in.Shape) == 1 && in.Shape[0] == shape[1] && beta == 1 && alpha == 1
	if !bias && !slices.Equal(in.Shape, shape) {
		return nil, NotModelledError("torch.addmm of an input other than a bias of mat2's columns or a matrix of the output's shape")
	}
	if !bias && s.gradEnabled && (in.requiresGrad() || a.requiresGrad() || b.requiresGrad()) {
		return nil, NotModelledError("the backward of torch.addmm other than of a bias with beta and alpha 1")
	}
	save := savedForProduct(a, b)
	defer s.prepack("AddmmBackward0", []*Tensor{in, a, b}, productPackOrder(save))()
	out, err := s.alloc(shape, a.DType, dev)
	if err != nil {
		return nil, err
	}
	err = s.workspace(dev, false)
	if err == nil && bias && shape[0] > 1 && shape[1] > 1 && a.Shape[1] > 1 {
		err = s.workspace(dev, true)
	}
	if err != nil {
		s.dropTensor(out)
		return nil, err
	}
	s.record("AddmmBackward0", out, []*Tensor{in, a, b}, save, productBackward(a.Shape, b.Shape, false))
	return out, nil
}

func init() {
	declare(&OpDef{Name: "addmm", Function: true, Method: true,
		Params: []Param{input, {Name: "mat1", Kind: TensorParam}, {Name: "mat2", Kind: TensorParam},
			{Name: "beta", Kind: NumberParam, Default: "1", KeywordOnly: true}, alpha},
		Memory: "new matrix; the cuBLAS workspace on first use (and cuBLASLt's for a bias input); saves each factor the other's gradient needs; backward makes mat1's gradient, then mat2's",
		run: func(s *Session, a Args) (*Tensor, error) {
			return s.Addmm(a.Tensor(0), a.Tensor(1), a.Tensor(2), a.Number(3), a.Number(4))
		}})
}
