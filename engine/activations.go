package engine

// The census's activations beside relu and leaky_relu: F.hardtanh,
// F.relu6 (hardtanh between 0 and 6, as PyTorch computes it),
// F.hardswish and F.hardsigmoid: each a new tensor of its input's
// shape, its input saved; backward makes the gradient
// (testdata/pyrules/ops_activations.py, recorded on the GPU, not
// yet held to it: their steps say "estimated"). inplace=True is refused.

func init() {
	act := func(name, node string, params ...Param) *OpDef {
		u := unary(name, node, saveInput, 1)
		n := len(params)
		return estimated(functional(&OpDef{Name: name, Params: append([]Param{input}, params...), Memory: u.Memory,
			run: func(s *Session, a Args) (*Tensor, error) {
				if n > 0 && a.Bool(n) {
					return nil, NotModelledError("F." + name + "(inplace=True)")
				}
				return u.run(s, a[:1])
			}}))
	}
	inplace := boolParam("inplace", "False")
	declare(
		act("hardtanh", "HardtanhBackward0", numberParam("min_val", "-1.0"), numberParam("max_val", "1.0"), inplace),
		act("relu6", "HardtanhBackward0", inplace),
		act("hardswish", "HardswishBackward0", inplace),
		act("hardsigmoid", "HardsigmoidBackward0", inplace),
	)
}
