package engine

// The census's activations beside relu and leaky_relu: F.hardtanh,
// F.relu6 (hardtanh between 0 and 6, as PyTorch computes it),
// F.hardswish and F.hardsigmoid: each a new tensor of its input's
// shape, its input saved; backward makes the gradient
// (testdata/pyrules/ops_activations.py, recorded on the GPU, not
// yet held to it: their steps say "estimated"). F.hardtanh and F.relu6
// with inplace=True are hardtanh_: under autograd a clone of the input
// saved first (HardtanhBackward1: hardtanh_ takes hardtanh's formula,
// which reads the input), backward makes the gradient; without it, no
// memory. hardswish and hardsigmoid in place are refused.

func init() {
	act := func(name, node string, inPlaceNode string, params ...Param) *OpDef {
		u := unary(name, node, saveInput, 1)
		var inPlace func(s *Session, a Args) error
		if inPlaceNode != "" {
			inPlace = inPlaceSavingInput(inPlaceNode, 1)
		}
		n := len(params)
		memory := u.Memory
		if inPlace != nil {
			memory += "; inplace=True: none, but under autograd a clone of the input, saved"
		}
		return estimated(functional(&OpDef{Name: name, Params: append([]Param{input}, params...), Memory: memory,
			run: func(s *Session, a Args) (*Tensor, error) {
				if n == 0 || !a.Bool(n) {
					return u.run(s, a[:1])
				}
				if inPlace == nil {
					return nil, NotModelledError("F." + name + "(inplace=True)")
				}
				if err := inPlace(s, a[:1]); err != nil {
					return nil, err
				}
				return a.Tensor(0), nil
			}}))
	}
	inplace := boolParam("inplace", "False")
	declare(
		act("hardtanh", "HardtanhBackward0", "HardtanhBackward1", numberParam("min_val", "-1.0"), numberParam("max_val", "1.0"), inplace),
		act("relu6", "HardtanhBackward0", "HardtanhBackward1", inplace),
		act("hardswish", "HardswishBackward0", "", inplace),
		act("hardsigmoid", "HardsigmoidBackward0", "", inplace),
	)
}
