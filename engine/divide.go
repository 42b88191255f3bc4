package engine

// True division: a / b makes a new tensor of the broadcast shape, of the
// operands' promoted dtype (float32 when that is an integer or bool: true
// division); a number / a tensor is Tensor.__rtruediv__, which PyTorch
// writes as self.reciprocal() * number (testdata/pyrules/ops_div.py).

// torch.div as a table entry (/, div_, /=).
func init() {
	declare(
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
					return nil, Errorf(RuntimeError, "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '%s'", a.String(2))
				case x.number || s.gradEnabled && (x.requiresGrad() || y.requiresGrad()):
					return nil, NotModelledError("torch.div with rounding_mode of a number by a tensor, or under autograd")
				}
				return s.binary(op, x, y)
			},
			inPlace: inPlaceArith("div")},
	)
}

// divide is a / b, either a number (Scalar()) but not both.
func (s *Session) divide(a, b *Tensor) (*Tensor, error) {
	switch {
	case a.number && b.number:
		return nil, Errorf(TypeError, "a number divided by a number is not a tensor")
	case a.number:
		return s.reciprocalTimes(b)
	}
	if b.number {
		return s.binary("div", a, b)
	}
	dev, shape, err := operands(a, b)
	if err != nil {
		return nil, err
	}
	out, err := s.alloc(shape, quotientType(a, b), dev)
	if err != nil {
		return nil, err
	}
	layOut(out, a, b)
	// self's gradient is grad / other; other's needs self and other
	var save []*Tensor
	if b.requiresGrad() {
		save = append(save, a)
	}
	save = append(save, b)
	s.record("DivBackward0", out, []*Tensor{a, b}, save, divBackward)
	return out, nil
}

// reciprocalTimes is number / t: t.reciprocal() (ReciprocalBackward0,
// saving its result), times the number (a new tensor), then the
// reciprocal freed.
func (s *Session) reciprocalTimes(t *Tensor) (*Tensor, error) {
	r, err := s.alloc(t.Shape, quotientType(t, Scalar()), t.Device())
	if err != nil {
		return nil, err
	}
	s.record("ReciprocalBackward0", r, []*Tensor{t}, []*Tensor{r}, reciprocalBackward)
	defer s.dropTensor(r)
	return s.binary("mul", r, Scalar())
}

// quotientType is the dtype of a / b: their promoted type, float32 for
// an integral one.
func quotientType(a, b *Tensor) DType {
	dt := promoted(a, b)
	if !isFloat(dt) {
		return Float32
	}
	return dt
}

// promoted is the dtype two operands promote to, as PyTorch's
// result_type decides it: a number or a 0-d tensor counts only when it
// is of a higher kind (bool, integer, floating) than the other operand;
// of two floating types the wider, float32 for float16 with bfloat16.
func promoted(a, b *Tensor) DType {
	switch {
	case a.number:
		return b.DType
	case b.number:
		return a.DType
	}
	x, y := a.DType, b.DType
	if kind(x) != kind(y) {
		if kind(x) > kind(y) {
			return x
		}
		return y
	}
	switch {
	case len(a.Shape) == 0 && len(b.Shape) > 0:
		return y
	case len(b.Shape) == 0 && len(a.Shape) > 0, x.Size > y.Size:
		return x
	case x.Size == y.Size && x.Name != y.Name:
		return Float32 // float16 and bfloat16
	}
	return y
}

// kind orders dtypes as type promotion does: bool, integer, floating.
func kind(d DType) int {
	switch {
	case d.Name == "bool":
		return 0
	case isComplex(d):
		return 3
	case isFloat(d):
		return 2
	}
	return 1
}

// divBackward is DivBackward0's: other's gradient first, -grad * ((self
// / other) / other) (three temporaries, then it; the temporaries freed),
// then self's, grad / other (testdata/pyrules/ops_div.py).
func divBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	grads := make([]*Tensor, 2)
	if n.inputs[1].to != nil {
		ts, err := s.allocAll(g.Device(), tensorShape{g.Shape, g.DType}, tensorShape{n.out, g.DType}, tensorShape{n.out, g.DType}, tensorShape{n.out, g.DType})
		if err != nil {
			return grads, err
		}
		for i := 2; i >= 0; i-- {
			s.dropTensor(ts[i])
		}
		grads[1] = ts[3]
	}
	if n.inputs[0].to != nil {
		var err error
		if grads[0], err = s.alloc(n.out, g.DType, g.Device()); err != nil {
			return grads, err
		}
	}
	return grads, nil
}

// reciprocalBackward is -grad * (result * result): two temporaries, then
// the gradient.
var reciprocalBackward = likeInput(3)
