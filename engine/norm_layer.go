package engine

import (
	"fmt"
	"slices"
)

// Layer normalization, as memory (testdata/pyrules/tfm_layernorm.py,
// recorded on the H200): native_layer_norm makes the output, then mean
// and rstd, float32 (the input's accumulate type), one per row, shaped
// as the input with the normalized dimensions 1. Autograd saves the
// input, weight, bias, mean and rstd, and releases them in the order of
// their names (bias, input, weight, then mean and rstd). Backward makes
// the input's gradient, the weight's, then the bias's, each needed one
// of its input's shape.

// LayerNorm is F.layer_norm(x, normalized, w, b): w and b may be nil.
func (s *Session) LayerNorm(x *Tensor, normalized []int64, w, b *Tensor) (*Tensor, error) {
	axis := len(x.Shape) - len(normalized)
	if axis < 0 || !slices.Equal(x.Shape[axis:], normalized) {
		return nil, fmt.Errorf("RuntimeError: Given normalized_shape=%s, expected input with shape [*, %s], but got input of size%s", dimList(normalized), joinDims(normalized, ", "), dimList(x.Shape))
	}
	for _, p := range []*Tensor{w, b} {
		if p != nil && !slices.Equal(p.Shape, normalized) {
			return nil, fmt.Errorf("RuntimeError: Expected weight to be of same shape as normalized_shape, but got weight of shape %s and normalized_shape = %s", dimList(p.Shape), dimList(normalized))
		}
	}
	dev, err := sameDevice(x, w, b)
	if err != nil {
		return nil, err
	}
	stats := slices.Clone(x.Shape)
	for i := axis; i < len(stats); i++ {
		stats[i] = 1
	}
	ts, err := s.allocAll(dev, tensorShape{x.Shape, x.DType}, tensorShape{stats, accType(x.DType)}, tensorShape{stats, accType(x.DType)})
	if err != nil {
		return nil, err
	}
	out, mean, rstd := ts[0], ts[1], ts[2]
	s.record("NativeLayerNormBackward0", out, []*Tensor{x, w, b}, nonNil(b, x, w, mean, rstd), gradsLikeInputs)
	s.dropTensor(mean)
	s.dropTensor(rstd)
	return out, nil
}

// accType is the type a kernel accumulates dt in: float32 for the
// 16-bit floats, dt itself otherwise.
func accType(dt DType) DType {
	if dt.Name == "float16" || dt.Name == "bfloat16" {
		return Float32
	}
	return dt
}

// nonNil are the tensors of ts that are not nil.
func nonNil(ts ...*Tensor) []*Tensor {
	return slices.DeleteFunc(ts, func(t *Tensor) bool { return t == nil })
}

// gradsLikeInputs is a backward that makes, in order, a gradient of each
// input's shape that needs one, in the incoming gradient's dtype.
func gradsLikeInputs(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
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
	return grads, nil
}
