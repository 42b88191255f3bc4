package engine

import "slices"

// The census's activations beside relu and leaky_relu: F.hardtanh,
// F.relu6 (hardtanh between 0 and 6, as PyTorch computes it),
// F.hardswish, F.hardsigmoid, F.mish, F.elu and F.softplus: each a new
// tensor of its input's shape, its input saved; backward makes the
// gradient; F.glu the same with a dimension halved (testdata/pyrules/
// ops_activations.py and ops_census_misc.py, recorded on the GPU and
// held statement by statement). F.hardtanh and F.relu6
// with inplace=True are hardtanh_: under autograd a clone of the input
// saved first (HardtanhBackward0: hardtanh_ takes hardtanh's formula,
// which reads the input, and its node's name), backward makes the
// gradient; without it, no memory (testdata/pyrules/hardtanh_inplace.py,
// recorded event by event: bounds, dtypes, a module trained; of a view,
// PyTorch's CopySlices, estimated: inplace.go's onView). hardswish,
// hardsigmoid, mish and elu in
// place are refused. F.silu in place (YOLO's SiLU(inplace=True)) is
// silu_, whose formula reads the input as hardtanh_'s does: the same
// clone saved, from PyTorch's source, estimated until
// testdata/pyrules_pending/ops_silu_inplace.py is recorded.

// inPlaceMode is what an activation's inplace=True does.
type inPlaceMode int

// The modes: refused, modelled and recorded, modelled and estimated.
const (
	inPlaceRefused inPlaceMode = iota
	inPlaceRecorded
	inPlaceEstimated
)

func init() {
	// act is the activation name whose node saves its input; with
	// inPlace recorded (or estimated, naming the rule script that waits)
	// its inplace=True records the same node (hardtanh_'s takes
	// hardtanh's name and formula), else it is refused.
	act := func(name, node string, mode inPlaceMode, params ...Param) *OpDef {
		u := unary(name, node, saveInput, 1)
		var inPlace func(s *Session, a Args) error
		if mode != inPlaceRefused {
			inPlace = inPlaceSavingInput(node, 1)
		}
		if mode == inPlaceEstimated {
			saving := inPlace
			inPlace = func(s *Session, a Args) error {
				if err := s.estimate(nil, "F."+name+"(inplace=True)", "%s: the input's clone saved as hardtanh_'s, from PyTorch's source, %s", argShapes(a[:1]), recording("")); err != nil {
					return err
				}
				return saving(s, a)
			}
		}
		n := len(params)
		memory := u.Memory
		if inPlace != nil {
			memory += "; inplace=True: none, but under autograd a clone of the input, saved"
		}
		return functional(&OpDef{Name: name, Params: append([]Param{input}, params...), Memory: memory,
			run: func(s *Session, a Args) (*Tensor, error) {
				if n == 0 || !a.Bool(n) {
					return u.run(s, a[:1])
				}
				if inPlace == nil {
					return nil, NotModelledError("F." + name + "(inplace=True)")
				}
				if err := s.onView("F."+name+"(inplace=True)", a[:1]); err != nil {
					return nil, err
				}
				if err := inPlace(s, a[:1]); err != nil {
					return nil, err
				}
				return a.Tensor(0), nil
			}})
	}
	inplace := boolParam("inplace", "False")
	declare(
		act("hardtanh", "HardtanhBackward0", inPlaceRecorded, numberParam("min_val", "-1.0"), numberParam("max_val", "1.0"), inplace),
		act("relu6", "HardtanhBackward0", inPlaceRecorded, inplace),
		act("hardswish", "HardswishBackward0", inPlaceRefused, inplace),
		act("hardsigmoid", "HardsigmoidBackward0", inPlaceRefused, inplace),
		act("mish", "MishBackward0", inPlaceRefused, inplace),
		act("elu", "EluBackward0", inPlaceRefused, numberParam("alpha", "1.0"), inplace),
		act("silu", "SiluBackward0", inPlaceEstimated, inplace),
	)
	// softplus takes no inplace=; its node saves the input too
	soft := unary("softplus", "SoftplusBackward0", saveInput, 1)
	declare(functional(&OpDef{Name: "softplus", Params: []Param{input, numberParam("beta", "1.0"), numberParam("threshold", "20.0")},
		Memory: soft.Memory,
		run:    func(s *Session, a Args) (*Tensor, error) { return soft.run(s, a[:1]) }}))
	// glu halves dimension dim: a = first half, b = second, a * sigmoid(b)
	// in one kernel; GluBackward0 saves the input and makes its gradient
	declare(functional(&OpDef{Name: "glu", Params: []Param{input, {Name: "dim", Kind: IntParam, Default: "-1"}},
		Memory: "a new tensor of the input's shape with dim halved; saves its input; backward makes the gradient",
		run: func(s *Session, a Args) (*Tensor, error) {
			x := a.Tensor(0)
			if len(x.Shape) == 0 {
				return nil, Errorf(RuntimeError, "glu does not support scalars because halving size must be even")
			}
			d, err := dimIndex(a.Int(1), len(x.Shape))
			if err != nil {
				return nil, err
			}
			if x.Shape[d]%2 != 0 {
				return nil, Errorf(RuntimeError, "Halving dimension must be even, but dimension %d is size %d", d, x.Shape[d])
			}
			shape := slices.Clone(x.Shape)
			shape[d] /= 2
			out, err := s.alloc(shape, x.DType, x.Device())
			if err != nil {
				return nil, err
			}
			s.record("GluBackward0", out, []*Tensor{x}, []*Tensor{x}, likeInput(1))
			return out, nil
		}}))
}

// F.prelu (nn.PReLU), as PyTorch's prelu composes it: a weight of
// fewer dimensions than the input reshaped (a view) to broadcast over
// the input's channels, then _prelu_kernel: a new tensor of the input's
// shape, input and weight saved. Its backward is one kernel of two
// outputs, each of the input's shape, made whatever needs a gradient;
// the weight's is then summed to the weight's shape (autograd's
// sum_to), and an output nothing needs is freed.
func init() {
	declare(&OpDef{Name: "prelu", Function: true, Method: true, Functional: true,
		Params: []Param{input, {Name: "weight", Kind: TensorParam}},
		Memory: "the weight viewed to broadcast, then a new tensor; saves input and weight; backward makes two tensors of the input's size, the weight's summed to its shape",
		run:    func(s *Session, a Args) (*Tensor, error) { return s.prelu(a.Tensor(0), a.Tensor(1)) }})
}

func (s *Session) prelu(x, w *Tensor) (*Tensor, error) {
	if _, err := sameDevice(x, w); err != nil {
		return nil, err
	}
	if len(w.Shape) > 1 {
		return nil, Errorf(RuntimeError, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = %d", len(w.Shape))
	}
	if c := int64(1); w.Numel() != 1 {
		if len(x.Shape) >= 2 {
			c = x.Shape[1]
		}
		if c != int64(w.Numel()) {
			return nil, Errorf(RuntimeError, "Mismatch of parameter numbers and input channel size. Found parameter numbers = %d and channel size = %d.", w.Numel(), c)
		}
	}
	wv := w
	if len(x.Shape) != len(w.Shape) {
		shape := make([]int64, len(x.Shape))
		for i := range shape {
			shape[i] = 1
		}
		if len(shape) > 1 {
			shape[1] = int64(w.Numel())
		}
		var err error
		if wv, err = s.Reshape(w, shape); err != nil {
			return nil, err
		}
		defer s.dropTensor(wv)
	}
	out, err := s.alloc(x.Shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	layOut(out, x)
	s.record("PreluKernelBackward0", out, []*Tensor{x, wv}, []*Tensor{x, wv}, preluBackward)
	return out, nil
}

// preluBackward is _prelu_kernel_backward: the input's gradient and the
// weight's, unreduced, both of the input's shape and in that order;
// one no input needs is freed once both exist.
func preluBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	x := n.inputs[0]
	ts, err := s.allocAll(g.Device(), tensorShape{x.shape, g.DType}, tensorShape{x.shape, g.DType})
	if err != nil {
		return nil, err
	}
	grads := make([]*Tensor, 2)
	for i, t := range ts {
		if n.inputs[i].to == nil {
			s.dropTensor(t)
			continue
		}
		grads[i] = t
	}
	return grads, nil
}
