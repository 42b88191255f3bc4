package engine

import (
	"slices"
)

// Layer normalization, as memory (testdata/pyrules/tfm_layernorm.py,
// recorded on the H200): native_layer_norm makes the output, then mean
// and rstd, float32 (the input's accumulate type), one per row, shaped
// as the input with the normalized dimensions 1. Autograd saves the
// input, weight, bias, mean and rstd, and releases them in the order of
// their names (bias, input, weight, then mean and rstd). Backward makes
// the input's gradient, the weight's, then the bias's, each needed one
// of its input's shape, and then, of a gradient that is not contiguous
// (a sum's broadcast), a dense copy, freed at its end; no temporaries
// otherwise, for 1024 rows as for 65536. RMSNorm is _fused_rms_norm:
// the output, then rstd; the same backward without a bias.

// normalizedShape is layer_norm's and rms_norm's normalized_shape.
var normalizedShape = Param{Name: "normalized_shape", Kind: DimsParam}

// F.layer_norm and F.rms_norm as table entries.
func init() {
	declare(
		functional(&OpDef{Name: "layer_norm",
			Params: []Param{input, normalizedShape, optTensor("weight"), optTensor("bias"), {Name: "eps", Kind: NumberParam, Default: "1e-05"}},
			Memory: "new tensor, then mean and rstd (float32, one per row); saves input, mean and rstd; backward makes the input's, weight's and bias's gradients in that order",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.LayerNorm(a.Tensor(0), a.Ints(1), a.Tensor(2), a.Tensor(3))
			}}),
		functional(&OpDef{Name: "rms_norm",
			Params: []Param{input, normalizedShape, optTensor("weight"), {Name: "eps", Kind: NumberParam, Default: "None"}},
			Memory: "new tensor, then rstd (float32, one per row); saves input and rstd; backward makes the input's and weight's gradients",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.RMSNorm(a.Tensor(0), a.Ints(1), a.Tensor(2))
			}}),
	)
}

// LayerNorm is F.layer_norm(x, normalized, w, b): w and b may be nil.
// Of an input that is not contiguous (a permute to channels last, as
// ConvNeXt's blocks make), layer_norm_cuda takes a contiguous copy
// first (expect_contiguous) and frees it at its end, after the
// statistics; the output is contiguous, the node saves the input
// itself; backward copies it again (layerNormBackward). Recorded:
// testdata/pyrules/zoo_paths.py (a permute to channels last and a
// sequence-first permute, trained; float16 under no_grad).
func (s *Session) LayerNorm(x *Tensor, normalized []int64, w, b *Tensor) (*Tensor, error) {
	stats, err := normStats(x, normalized, w, b)
	if err != nil {
		return nil, err
	}
	var copied *Tensor
	if !x.IsContiguous() {
		if copied, err = s.alloc(x.Shape, x.DType, x.Device()); err != nil {
			return nil, err
		}
		defer s.dropTensor(copied)
	}
	ts, err := s.allocAll(x.Device(), tensorShape{x.Shape, x.DType}, tensorShape{stats, accType(x.DType)}, tensorShape{stats, accType(x.DType)})
	if err != nil {
		return nil, err
	}
	out, mean, rstd := ts[0], ts[1], ts[2]
	bw := layerNormBackward
	if copied != nil {
		bw = layerNormBackwardCopy
	}
	s.record("NativeLayerNormBackward0", out, []*Tensor{x, w, b}, nonNil(b, x, w, mean, rstd), bw)
	s.dropTensor(mean)
	s.dropTensor(rstd)
	return out, nil
}

// layerNormBackwardCopy is layer_norm's backward of an input that is
// not contiguous: its contiguous copy first, freed at the end, after
// layerNormBackward's gradients and dense copy.
func layerNormBackwardCopy(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	x := n.inputs[0]
	c, err := s.alloc(x.shape, x.dtype, g.Device())
	if err != nil {
		return make([]*Tensor, len(n.inputs)), err
	}
	defer s.dropTensor(c)
	return layerNormBackward(s, n, g)
}

// normStats checks a normalization's input and parameters and returns
// the shape of its per-row statistics: x's, the normalized dimensions 1.
func normStats(x *Tensor, normalized []int64, params ...*Tensor) ([]int64, error) {
	axis := len(x.Shape) - len(normalized)
	if axis < 0 || !slices.Equal(x.Shape[axis:], normalized) {
		return nil, Errorf(RuntimeError, "Given normalized_shape=%s, expected input with shape [*, %s], but got input of size%s", dimList(normalized), joinDims(normalized, ", "), dimList(x.Shape))
	}
	for _, p := range params {
		if p != nil && !slices.Equal(p.Shape, normalized) {
			return nil, Errorf(RuntimeError, "Expected weight to be of same shape as normalized_shape, but got weight of shape %s and normalized_shape = %s", dimList(p.Shape), dimList(normalized))
		}
	}
	dev, err := sameDevice(append([]*Tensor{x}, params...)...)
	switch {
	case err != nil:
		return nil, err
	case !dev.CUDA:
		return nil, NotModelledError("layer_norm and rms_norm on the host")
	}
	stats := slices.Clone(x.Shape)
	for i := axis; i < len(stats); i++ {
		stats[i] = 1
	}
	return stats, nil
}

// accType is the type a kernel accumulates dt in: float32 for the
// 16-bit floats, dt itself otherwise.
func accType(dt DType) DType {
	if dt.Name == "float16" || dt.Name == "bfloat16" {
		return Float32
	}
	return dt
}

// nonNil are the tensors of ts that are not nil, in a new slice: ts is
// left as it was (a caller's slice of gradients by position, passed as
// ts..., must keep its positions).
func nonNil(ts ...*Tensor) []*Tensor {
	var out []*Tensor
	for _, t := range ts {
		if t != nil {
			out = append(out, t)
		}
	}
	return out
}

// layerNormBackward is layer_norm's and rms_norm's backward: a gradient of
// each input's shape that needs one, in order, then the dense copy of a
// gradient that is not contiguous (freed at the end).
func layerNormBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	grads := make([]*Tensor, len(n.inputs))
	for i, e := range n.inputs {
		if e.to == nil {
			continue
		}
		r, err := s.alloc(e.shape, g.DType, g.Device())
		if err != nil {
			return grads, err
		}
		grads[i] = r
	}
	dense, err := s.denseGrad(g)
	if dense != g && err == nil {
		s.dropTensor(dense)
	}
	return grads, err
}

// RMSNorm is F.rms_norm(x, normalized, w) (w may be nil).
func (s *Session) RMSNorm(x *Tensor, normalized []int64, w *Tensor) (*Tensor, error) {
	stats, err := normStats(x, normalized, w)
	if err != nil {
		return nil, err
	}
	if !x.IsContiguous() {
		return nil, NotModelledError("layer_norm and rms_norm of a tensor that is not contiguous (PyTorch copies it first)")
	}
	ts, err := s.allocAll(x.Device(), tensorShape{x.Shape, x.DType}, tensorShape{stats, accType(x.DType)})
	if err != nil {
		return nil, err
	}
	out, rstd := ts[0], ts[1]
	s.record("FusedRmsNormBackward0", out, []*Tensor{x, w}, nonNil(x, w, rstd), layerNormBackward)
	s.dropTensor(rstd)
	return out, nil
}

// denseCopy is the contiguous copy a kernel makes of a strided input
// (expect_contiguous), outside autograd; nil where x is contiguous.
func (s *Session) denseCopy(x *Tensor) (*Tensor, error) {
	if x.IsContiguous() {
		return nil, nil
	}
	return s.alloc(x.Shape, x.DType, x.Device())
}
