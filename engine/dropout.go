package engine

// Dropout, as memory (testdata/pyrules/tfm_dropout.py, recorded on the
// H200): in training with 0 < p < 1, native_dropout's fused kernel
// makes a bool mask of the input's shape, then the output; autograd
// saves the mask, and backward makes the gradient (grad * mask * scale),
// one tensor. Without autograd the mask goes at the op's end. With p = 0
// or not training the input itself is returned; p = 1 is input * a 0-d
// zero (MulBackward0, saving the zero). In place (inplace=True) the
// noise is a tensor of the input's dtype and shape, multiplied into it
// (MulBackward0, saving the noise; backward one tensor), freed at the
// op's end without autograd.

// F.dropout as a table entry.
func init() {
	declare(
		functional(&OpDef{Name: "dropout",
			Params: []Param{input, {Name: "p", Kind: NumberParam, Default: "0.5"}, {Name: "training", Kind: BoolParam, Default: "True"},
				{Name: "inplace", Kind: BoolParam, Default: "False"}},
			Memory: "training: a bool mask (saved), then the output; backward makes the gradient; p=0 or training=False: the input itself; inplace: a noise tensor of the input's size multiplied in (saved)",
			run: func(s *Session, a Args) (*Tensor, error) {
				if a.Bool(3) {
					if err := s.DropoutInPlace(a.Tensor(0), a.Number(1), a.Bool(2)); err != nil {
						return nil, err
					}
					return share(a.Tensor(0)), nil
				}
				return s.Dropout(a.Tensor(0), a.Number(1), a.Bool(2))
			}}),
	)
}

// Dropout is F.dropout(x, p, training) (inplace=False).
func (s *Session) Dropout(x *Tensor, p float64, training bool) (*Tensor, error) {
	if err := dropoutP(p); err != nil {
		return nil, err
	}
	if !training || p == 0 || x.Numel() == 0 {
		return share(x), nil
	}
	if !x.Device().CUDA {
		return nil, NotModelledError("F.dropout on the host")
	}
	masks := tensorShape{x.Shape, boolDType}
	node, bw := "NativeDropoutBackward0", likeInput(1)
	if p == 1 {
		masks, node, bw = tensorShape{nil, x.DType}, "MulBackward0", mulBackward
	}
	ts, err := s.allocAll(x.Device(), masks, tensorShape{x.Shape, x.DType})
	if err != nil {
		return nil, err
	}
	mask, out := ts[0], ts[1]
	inputs := []*Tensor{x}
	if p == 1 {
		inputs = append(inputs, mask)
	}
	s.record(node, out, inputs, []*Tensor{mask}, bw)
	s.dropTensor(mask)
	return out, nil
}

// DropoutInPlace is F.dropout(x, p, training, inplace=True): x itself,
// written.
func (s *Session) DropoutInPlace(x *Tensor, p float64, training bool) error {
	if err := dropoutP(p); err != nil {
		return err
	}
	if !training || p == 0 || x.Numel() == 0 {
		return nil
	}
	if p == 1 || !x.Device().CUDA {
		return NotModelledError("F.dropout(inplace=True) with p=1 or on the host")
	}
	if err := s.onView("F.dropout(inplace=True)", Args{x}); err != nil {
		return err
	}
	recorded := s.gradEnabled && x.requiresGrad()
	if recorded && x.fn == nil {
		return errLeafInPlace
	}
	noise, err := s.alloc(x.Shape, x.DType, x.Device())
	if err != nil {
		return err
	}
	s.written(x)
	if recorded {
		old := x.fn
		s.record("MulBackward0", x, []*Tensor{x, noise}, []*Tensor{noise}, mulBackward)
		s.replaced(x, old)
	}
	s.dropTensor(noise)
	return nil
}

// dropoutP checks a dropout probability as PyTorch does.
func dropoutP(p float64) error {
	if p < 0 || p > 1 {
		return Errorf(ValueError, "dropout probability has to be between 0 and 1, but got %v", p)
	}
	return nil
}
