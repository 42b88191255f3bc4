package engine

import "fmt"

// nn.utils.weight_norm's ops (testdata/pyrules/modules_census_nn.py,
// held statement by statement, its conv1d's cuDNN workspaces in
// convtable/weightnorm.jsonl.gz: dim 0 of float32 on the GPU, a dense
// gradient; the other cases on the GPU, from PyTorch's source, are
// estimated):
//
//   - norm_except_dim(v, pow=2, dim=0): the norm of v over every
//     dimension but dim (0 or the last), shaped as v with 1s elsewhere,
//     in v's dtype; PyTorch reduces v viewed as 2-d: one output. Its
//     backward (weight_norm takes it under .data) is refused.
//   - _weight_norm(v, g, dim=0): with dim 0 or the last and no float16
//     operand, PyTorch's fused kernel (_weight_norm_interface; the host's too)
//     makes w (v's shape) and then the norms (g's shape, float32, or
//     float64 for float64), saved with v and g
//     (WeightNormInterfaceBackward0); backward makes a dense copy of a
//     gradient that is not contiguous, then v's gradient and g's (both,
//     needed or not), the copy freed after. Other dims and float16 take
//     PyTorch's composite (norm_except_dim, div, mul): refused.

func init() {
	declare(
		&OpDef{Name: "norm_except_dim", Function: true,
			Params: []Param{{Name: "v", Kind: TensorParam}, {Name: "pow", Kind: IntParam, Default: "2"}, {Name: "dim", Kind: IntParam, Default: "0"}},
			Memory: "the norm over every dimension but dim (0 or the last), one tensor shaped as v with 1s elsewhere; backward refused",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.normExceptDim(a.Tensor(0), a.Int(2)) }},
		&OpDef{Name: "_weight_norm", Function: true,
			Params: []Param{{Name: "v", Kind: TensorParam}, {Name: "g", Kind: TensorParam}, {Name: "dim", Kind: IntParam, Default: "0"}},
			Memory: "the fused kernel's w (v's shape), then the norms (g's shape, float32), saved with v and g; backward a dense copy of a gradient that is not contiguous, then v's and g's gradients",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.weightNorm(a.Tensor(0), a.Tensor(1), a.Int(2)) }},
	)
}

// weightNormRecorded labels op over v along dim on the GPU estimated
// where modules_census_nn.py did not record it: another dim than 0,
// another dtype than float32.
func (s *Session) weightNormRecorded(op string, v *Tensor, dim int64) error {
	if dim == 0 && v.DType.Name == "float32" || !v.Device().CUDA {
		return nil
	}
	return s.estimate(nil, op, "%s dim=%d: memory rule from PyTorch's source, not recorded on the GPU (modules_census_nn.py records dim 0 of float32)", argShapes(Args{v}), dim)
}

// normExceptDim is torch.norm_except_dim(v, 2, dim).
func (s *Session) normExceptDim(v *Tensor, dim int64) (*Tensor, error) {
	r := int64(len(v.Shape))
	if r == 0 || dim != 0 && dim != r-1 {
		return nil, NotModelledError(fmt.Sprintf("torch.norm_except_dim over dimension %d of a %d-d tensor (PyTorch's transposed copy, or the norm of all)", dim, r))
	}
	if !isFloat(v.DType) || !v.IsContiguous() {
		return nil, NotModelledError("torch.norm_except_dim of a tensor not contiguous or not floating")
	}
	if err := s.weightNormRecorded("torch.norm_except_dim", v, dim); err != nil {
		return nil, err
	}
	shape := make([]int64, r)
	for i := range shape {
		shape[i] = 1
	}
	shape[dim] = v.Shape[dim]
	out, err := s.alloc(shape, v.DType, v.Device())
	if err != nil {
		return nil, err
	}
	s.record("ViewBackward0", out, []*Tensor{v}, nil, func(*Session, *node, *Tensor) ([]*Tensor, error) {
		return []*Tensor{nil}, NotModelledError("the backward of torch.norm_except_dim")
	})
	return out, nil
}

// weightNorm is torch._weight_norm(v, g, dim): v * g / the norms of v.
func (s *Session) weightNorm(v, g *Tensor, dim int64) (*Tensor, error) {
	if v.Device() != g.Device() {
		return nil, Errorf(RuntimeError, "weight_norm: expected v_in and g_in to be on the same device, but v_in is on %s and g_in is on %s", v.Device(), g.Device())
	}
	r := int64(len(v.Shape))
	switch {
	case v.DType.Name == "float16" || g.DType.Name == "float16" || dim != 0 && dim != r-1:
		return nil, NotModelledError("torch._weight_norm's composite (a float16 operand, or a dim neither the first nor the last)")
	case !v.IsContiguous() || !g.IsContiguous():
		return nil, NotModelledError("torch._weight_norm of a tensor not contiguous (PyTorch's copies first)")
	}
	if err := s.weightNormRecorded("torch._weight_norm", v, dim); err != nil {
		return nil, err
	}
	acc := Float32
	if v.DType.Name == "float64" {
		acc = v.DType
	}
	outs, err := s.allocAll(v.Device(), tensorShape{v.Shape, v.DType}, tensorShape{g.Shape, acc})
	if err != nil {
		return nil, err
	}
	s.record("WeightNormInterfaceBackward0", outs[0], []*Tensor{v, g}, []*Tensor{v, g, outs[1]}, weightNormBackward)
	s.dropTensor(outs[1])
	return outs[0], nil
}

// weightNormBackward is _weight_norm_interface_backward: a dense copy of
// a gradient that is not contiguous, then v's and g's gradients, the
// copy freed after.
func weightNormBackward(s *Session, n *node, grad *Tensor) ([]*Tensor, error) {
	var dense *Tensor
	if !grad.IsContiguous() {
		if grad.Device().CUDA {
			if err := s.estimate(nil, "torch._weight_norm backward", "%s: a gradient not contiguous copied first, from PyTorch's source, not recorded on the GPU", argShapes(Args{grad})); err != nil {
				return []*Tensor{nil, nil}, err
			}
		}
		t, err := s.alloc(grad.Shape, grad.DType, grad.Device())
		if err != nil {
			return []*Tensor{nil, nil}, err
		}
		dense = t
	}
	grads, err := s.allocAll(grad.Device(), tensorShape{n.inputs[0].shape, n.inputs[0].dtype}, tensorShape{n.inputs[1].shape, n.inputs[1].dtype})
	if dense != nil {
		s.dropTensor(dense)
	}
	if err != nil {
		return []*Tensor{nil, nil}, err
	}
	for i, e := range n.inputs {
		if e.to == nil {
			s.dropTensor(grads[i])
			grads[i] = nil
		}
	}
	return grads, nil
}
