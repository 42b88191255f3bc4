package engine

import "fmt"

// Dropout, as memory (testdata/pyrules/tfm_dropout.py, recorded on the
// H200): in training with 0 < p < 1, native_dropout's fused kernel
// makes a bool mask of the input's shape, then the output; autograd
// saves the mask, and backward makes the gradient (grad * mask * scale),
// one tensor. Without autograd the mask goes at the op's end. With p = 0
// or not training the input itself is returned.

// Dropout is F.dropout(x, p, training) (inplace=False).
func (s *Session) Dropout(x *Tensor, p float64, training bool) (*Tensor, error) {
	if p < 0 || p > 1 {
		return nil, fmt.Errorf("ValueError: dropout probability has to be between 0 and 1, but got %v", p)
	}
	if !training || p == 0 || x.Numel() == 0 {
		return share(x), nil
	}
	if p == 1 || !x.Device().CUDA {
		return nil, NotModelledError("F.dropout with p=1 or on the host")
	}
	ts, err := s.allocAll(x.Device(), tensorShape{x.Shape, boolDType}, tensorShape{x.Shape, x.DType})
	if err != nil {
		return nil, err
	}
	mask, out := ts[0], ts[1]
	s.record("NativeDropoutBackward0", out, []*Tensor{x}, []*Tensor{mask}, likeInput(1))
	s.dropTensor(mask)
	return out, nil
}
