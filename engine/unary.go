package engine

import (
	"fmt"
	"math"
)

// The one-input ops: each makes a new tensor of its input's shape and
// dtype (testdata/pyrules/ops_unary.py); what autograd saves and how
// many tensors backward makes are each entry's (unary), their in-place
// forms inPlaceUnary's (inplace.go), the values the tool computes
// unaryFuncs' (op_values.go).

func init() {
	declare(
		unary("relu", "ReluBackward0", saveResult, 1),
		unary("sigmoid", "SigmoidBackward0", saveResult, 1),
		unary("tanh", "TanhBackward0", saveResult, 1),
		unary("exp", "ExpBackward0", saveResult, 1),
		unary("log", "LogBackward0", saveInput, 1),
		// sqrt's backward is grad / (2 * result); abs's grad * self.sgn()
		unary("sqrt", "SqrtBackward0", saveResult, 2),
		unary("abs", "AbsBackward0", saveInput, 2),
		// the census's, recorded by testdata/pyrules/ops_trig.py and
		// held statement by statement (TestRecordedStatements): what each
		// saves and its backward's temporaries are PyTorch's
		// derivatives.yaml formulas, each
		// temporary alive to the end of the expression: sin's backward is
		// grad * self.cos(); cos's grad * -self.sin(); rsqrt's
		// -0.5 * grad * result.pow(3); erf's 2/sqrt(pi) * exp(-self.pow(2))
		// * grad; atan's grad / (self * self + 1); log2's and log10's
		// grad / (self * ln b); expm1's grad * (result + 1); sign's zeros.
		unary("sin", "SinBackward0", saveInput, 2),
		unary("cos", "CosBackward0", saveInput, 3),
		unary("rsqrt", "RsqrtBackward0", saveResult, 3),
		unary("erf", "ErfBackward0", saveInput, 5),
		unary("atan", "AtanBackward0", saveInput, 3),
		unary("log2", "Log2Backward0", saveInput, 2),
		unary("log10", "Log10Backward0", saveInput, 2),
		unary("expm1", "Expm1Backward0", saveResult, 2),
		unary("sign", "SignBackward0", saveNothing, 1),
	)
	// square and pow save their input; backward is
	// grad * (e * self.pow(e - 1)): two temporaries before the gradient
	square := unary("square", "PowBackward0", saveInput, 3)
	declare(square, &OpDef{Name: "pow", Function: true, Method: true, Dunders: []Dunder{{Name: "__pow__"}, {Name: "__rpow__", Reflected: true}},
		Params: []Param{input, {Name: "exponent", Kind: NumberParam}},
		Memory: square.Memory + "; a number ** a tensor: the number as an 8-byte tensor on the device (freed after), saves the result, backward makes a temporary then the gradient",
		run: func(s *Session, a Args) (*Tensor, error) {
			if a.Tensor(0) == nil { // number ** tensor
				return s.rpow(a.Number(0), a.Tensor(1))
			}
			if a.Number(1) == 0 {
				return nil, Refusef(NotImplementedError, "torch.pow with exponent 0 is not modelled by gpumemrepl")
			}
			out, err := square.run(s, a[:1])
			if err == nil {
				e := a.Number(1)
				out.st.vals = mapValues(a.Tensor(0), out, func(v float64) float64 { return math.Pow(v, e) })
			}
			return out, err
		}})
	for _, name := range []string{"floor", "ceil", "round", "trunc"} {
		f := map[string]func(float64) float64{"floor": math.Floor, "ceil": math.Ceil, "round": math.RoundToEven, "trunc": math.Trunc}[name]
		declare(&OpDef{Name: name, Function: true, Method: true, Params: []Param{input},
			Memory: "new tensor of its input's shape and dtype (its backward is not modelled)",
			run: func(s *Session, a Args) (*Tensor, error) {
				x := a.Tensor(0)
				if s.gradEnabled && x.requiresGrad() {
					return nil, NotModelledError("the backward of torch." + name)
				}
				out, err := s.alloc(x.Shape, x.DType, x.Device())
				if err != nil {
					return nil, err
				}
				layOut(out, x)
				out.st.vals = mapValues(x, out, f)
				return out, nil
			}})
	}
	neg := unary("neg", "NegBackward0", saveNothing, 1)
	neg.Dunders = []Dunder{{Name: "__neg__"}}
	declare(neg, gelu())
	Ops["relu"].Functional = true
}

// gelu is F.gelu(input, *, approximate='none'): either form is one
// elementwise kernel that saves its input, and its backward one kernel
// making the gradient (the tanh form's figures are lora_finetune.py's
// recording, testdata/models/zoo).
func gelu() *OpDef {
	d := functional(unary("gelu", "GeluBackward0", saveInput, 1))
	d.Params = append(d.Params, Param{Name: "approximate", Kind: StringParam, Default: "'none'", KeywordOnly: true})
	run := d.run
	d.run = func(s *Session, a Args) (*Tensor, error) {
		if m := a.String(1); m != "none" && m != "tanh" {
			return nil, Errorf(RuntimeError, "approximate argument must be either none or tanh.")
		}
		return run(s, a[:1])
	}
	return d
}

// What a one-input op saves for backward.
const (
	saveNothing = iota
	saveInput
	saveResult
)

// unary is the entry of a one-input elementwise op (torch.name and
// Tensor.name): a new tensor of its input's shape and dtype; autograd
// records node, saving what saves says; backward makes temps tensors of
// the input's size, the last the gradient (testdata/pyrules/
// ops_unary.py).
func unary(name, node string, saves, temps int) *OpDef {
	memory := "new tensor; saves " + [...]string{"nothing", "its input", "its result"}[saves] + " for backward"
	switch {
	case temps == 2:
		memory += "; backward makes a temporary of its size before the gradient"
	case temps > 2:
		memory += fmt.Sprintf("; backward makes %d temporaries of its size before the gradient", temps-1)
	}
	return &OpDef{Name: name, Function: true, Method: true, Params: []Param{input}, Memory: memory,
		InPlace: name + "_", inPlace: inPlaceUnary(node, saves, temps),
		run: func(s *Session, a Args) (*Tensor, error) {
			x := a.Tensor(0)
			out, err := s.alloc(x.Shape, x.DType, x.Device())
			if err != nil {
				return nil, err
			}
			layOut(out, x)
			if f := unaryFuncs[name]; f != nil {
				out.st.vals = mapValues(x, out, f)
			}
			s.record(node, out, []*Tensor{x}, [][]*Tensor{nil, {x}, {out}}[saves], likeInput(temps))
			return out, nil
		}}
}

// F.leaky_relu is a one-input op that saves its input; in place, its
// result.
func init() {
	leaky, leakyInPlace := unary("leaky_relu", "LeakyReluBackward0", saveInput, 1), inPlaceUnary("LeakyReluBackward1", saveResult, 1)
	declare(
		functional(&OpDef{Name: "leaky_relu", Params: []Param{input, numberParam("negative_slope", "0.01"), boolParam("inplace", "False")},
			Memory: "a new tensor, its input saved (inplace=True: none, its result saved); backward makes the gradient",
			run: func(s *Session, a Args) (*Tensor, error) {
				if !a.Bool(2) {
					return leaky.run(s, a)
				}
				if err := leakyInPlace(s, a); err != nil {
					return nil, err
				}
				return share(a.Tensor(0)), nil
			}}),
	)
}
