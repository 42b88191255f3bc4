package engine

import (
	"fmt"
	"math"
)

// The table's entries, by family: products, arithmetic, comparisons,
// one-input math and reductions. Each family's run is a helper of
// ops.go (or of the family's own file); an entry says which, with what
// autograd node, what it saves and how many temporaries its backward
// makes.

var (
	other = Param{Name: "other", Kind: OperandParam}
	alpha = Param{Name: "alpha", Kind: NumberParam, Default: "1", KeywordOnly: true}
	// keepdim is a reduction's keepdim=False.
	keepdim = Param{Name: "keepdim", Kind: BoolParam, Default: "False"}
)

// functional makes d a function of torch.nn.functional only.
func functional(d *OpDef) *OpDef {
	d.Function, d.Method, d.InPlace, d.Functional = false, false, "", true
	return d
}

// operators are the Dunders of a binary op: __name__ and __rname__.
func operators(name string) []Dunder {
	return []Dunder{{Name: "__" + name + "__"}, {Name: "__r" + name + "__", Reflected: true}}
}

func init() {
	tensors := []Param{input, {Name: "other", Kind: TensorParam}}
	declare(
		&OpDef{Name: "matmul", Function: true, Method: true, Dunders: operators("matmul"), Params: tensors,
			Memory: "new tensor: mm, mv, a batch folded into one mm (a dense copy where its strides allow no view), or a bmm over both batches broadcast, each reshaped to 3-d (a copy where not a view); the cuBLAS workspace on first use; saves each factor the other's gradient needs",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.matmul(a.Tensor(0), a.Tensor(1), "") }},
		&OpDef{Name: "mm", Function: true, Method: true, Params: tensors,
			Memory: "new tensor; the cuBLAS workspace on first use; saves each factor the other's gradient needs",
			run: func(s *Session, a Args) (*Tensor, error) {
				x, y := a.Tensor(0), a.Tensor(1)
				if len(x.Shape) != 2 || len(y.Shape) != 2 {
					return nil, fmt.Errorf("RuntimeError: self must be a matrix")
				}
				return s.matmul(x, y, "")
			}},
		&OpDef{Name: "bmm", Function: true, Method: true, Params: tensors,
			Memory: "new tensor; a dense copy of a batch cuBLAS cannot read as it is (freed after); the cuBLAS workspace on first use; saves each batch the other's gradient needs; backward makes mat2's gradient, then self's",
			run: func(s *Session, a Args) (*Tensor, error) {
				x, y := a.Tensor(0), a.Tensor(1)
				if len(x.Shape) != 3 || len(y.Shape) != 3 {
					return nil, fmt.Errorf("RuntimeError: batch1 must be a 3D tensor")
				}
				return s.cublasBmm(x, y)
			}},
		arith("add", "new tensor of the broadcast shape; saves nothing", alpha),
		arith("sub", "new tensor of the broadcast shape; saves nothing; backward negates other's gradient (a new tensor)", alpha),
		arith("mul", "new tensor of the broadcast shape; saves each operand the other's gradient needs"),
		&OpDef{Name: "div", Function: true, Method: true, Dunders: []Dunder{{Name: "__truediv__"}, {Name: "__rtruediv__", Reflected: true}},
			InPlace: "div_", InPlaceDunders: []string{"__itruediv__"},
			Params: []Param{input, other, {Name: "rounding_mode", Kind: StringParam, Default: "None", KeywordOnly: true}},
			Memory: "new tensor of the broadcast shape (float32 for integers); by a tensor, saves the divisor (and the dividend when the divisor needs a gradient), backward makes the divisor's gradient (after three temporaries) then the dividend's; a number / a tensor is reciprocal() * number",
			run: func(s *Session, a Args) (*Tensor, error) {
				x, y := a.Tensor(0), a.Tensor(1)
				op := map[string]string{"floor": "floor_divide", "trunc": "trunc_divide"}[a.String(2)]
				switch {
				case a[2] == nil:
					return s.divide(x, y)
				case op == "":
					return nil, fmt.Errorf("RuntimeError: div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", a.String(2))
				case x.number || s.gradEnabled && (x.requiresGrad() || y.requiresGrad()):
					return nil, NotModelledError("torch.div with rounding_mode of a number by a tensor, or under autograd")
				}
				return s.binary(op, x, y)
			},
			inPlace: inPlaceArith("div")},
	)
	for _, name := range []string{"remainder", "floor_divide", "fmod"} {
		var dunders []Dunder
		if d := map[string]string{"remainder": "mod", "floor_divide": "floordiv"}[name]; d != "" {
			dunders = operators(d)
		}
		declare(&OpDef{Name: name, Function: true, Method: true, Dunders: dunders,
			Params: []Param{input, other},
			Memory: map[string]string{
				"remainder":    "new tensor of the broadcast shape; saves nothing; by a number, backward passes the gradient on (by a tensor that requires grad: not modelled)",
				"floor_divide": "new tensor of the broadcast shape (integral inputs stay integral); its backward is not modelled",
				"fmod":         "new tensor of the broadcast shape; its backward is not modelled",
			}[name],
			run: func(s *Session, a Args) (*Tensor, error) {
				x, y := a.Tensor(0), a.Tensor(1)
				if x.number && y.number {
					return nil, fmt.Errorf("TypeError: a number %s a number is not a tensor", name)
				}
				if s.gradEnabled && (y.requiresGrad() || name != "remainder" && x.requiresGrad()) {
					return nil, NotModelledError("the backward of torch." + name + " other than a tensor's remainder by a number")
				}
				return s.binary(name, x, y)
			}})
	}
	for _, name := range []string{"eq", "ne", "lt", "le", "gt", "ge"} {
		declare(&OpDef{Name: name, Function: true, Method: true, Dunders: []Dunder{{Name: "__" + name + "__"}}, Params: []Param{input, other},
			Memory: "new bool tensor of the broadcast shape; not recorded by autograd",
			run: func(s *Session, a Args) (*Tensor, error) {
				if a.Tensor(0).number && a.Tensor(1).number {
					return nil, fmt.Errorf("TypeError: a number compared with a number is not a tensor")
				}
				out, err := s.compare(a.Tensor(0), a.Tensor(1))
				if err == nil {
					out.st.vals = compareValues(name, a.Tensor(0), a.Tensor(1), out)
				}
				return out, err
			}})
	}
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
				return nil, fmt.Errorf("NotImplementedError: torch.pow with exponent 0 is not modelled by gpumemrepl")
			}
			out, err := square.run(s, a[:1])
			if err == nil {
				e := a.Number(1)
				out.st.vals = mapValues(a.Tensor(0), out, func(v float64) float64 { return math.Pow(v, e) })
			}
			return out, err
		}})
	declare(
		unary("relu", "ReluBackward0", saveResult, 1),
		unary("sigmoid", "SigmoidBackward0", saveResult, 1),
		unary("tanh", "TanhBackward0", saveResult, 1),
		unary("exp", "ExpBackward0", saveResult, 1),
		unary("log", "LogBackward0", saveInput, 1),
		// sqrt's backward is grad / (2 * result); abs's grad * self.sgn()
		unary("sqrt", "SqrtBackward0", saveResult, 2),
		unary("abs", "AbsBackward0", saveInput, 2),
	)
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
	declare(neg, functional(unary("gelu", "GeluBackward0", saveInput, 1)), functional(unary("silu", "SiluBackward0", saveInput, 1)))
	Ops["relu"].Functional = true
}

// arith is the entry of add, sub or mul (extra: their keyword-only
// parameters): torch.name, Tensor.name, the operators, the in-place
// forms.
func arith(name, memory string, extra ...Param) *OpDef {
	return &OpDef{Name: name, Function: true, Method: true, Dunders: operators(name),
		InPlace: name + "_", InPlaceDunders: []string{"__i" + name + "__"},
		Params: append([]Param{input, other}, extra...), Memory: memory,
		run: func(s *Session, a Args) (*Tensor, error) {
			x, y := a.Tensor(0), a.Tensor(1)
			if x.number && y.number {
				return nil, fmt.Errorf("TypeError: a number %s a number is not a tensor", name)
			}
			return s.binary(name, x, y)
		},
		inPlace: inPlaceArith(name)}
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

// sumBackward: the gradient is the incoming one, broadcast: no memory.
func sumBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	v := gradView(g, n.inputs[0].shape)
	v.expanded = true
	return []*Tensor{v}, nil
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
