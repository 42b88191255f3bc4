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
// result_type decides it (c10's ResultTypeState): operands fall in three
// groups, tensors with dimensions, 0-d tensors and Python numbers (a
// float is the default dtype, float32; an int int64; a bool bool), each
// group promoted within itself by promoteTypes; a 0-d tensor's or a
// number's type then counts only where it is of a higher category
// (bool, integer, floating) than the group before it: float16 * float32
// (both with dimensions) is float32, float16 * a 0-d float32 float16,
// int32 * 2.5 float32, int32 * a 0-d float64 float64, a bool tensor + 1
// int64. The kernel makes no temporaries on the GPU (TensorIterator casts
// as it reads): recorded where autocast adds a bfloat16 output to a
// float32 residual (testdata/pyrules/tfm_block.py, tfm_encoder_fast.py).
func promoted(a, b *Tensor) DType {
	var dims, zero, numbers DType // Name "": none yet
	for _, t := range []*Tensor{a, b} {
		switch {
		case t.number:
			numbers = promoteTypes(numbers, numberType(t))
		case len(t.Shape) == 0:
			zero = promoteTypes(zero, t.DType)
		default:
			dims = promoteTypes(dims, t.DType)
		}
	}
	return combineCategories(dims, combineCategories(zero, numbers))
}

// numberType is a Python number's dtype in promotion: bool, int64, or
// the default float dtype.
func numberType(t *Tensor) DType {
	switch {
	case t.numBool:
		return boolDType
	case t.numFloat:
		return Float32
	}
	return DTypes["int64"]
}

// promoteTypes is torch.promote_types(a, b) (a Name "" is no type): the
// wider of the same category, the higher category's, int16 for uint8
// with int8 and float32 for float16 with bfloat16.
func promoteTypes(a, b DType) DType {
	switch {
	case a.Name == "":
		return b
	case b.Name == "" || a.Name == b.Name:
		return a
	case kind(a) != kind(b):
		if kind(a) > kind(b) {
			return a
		}
		return b
	case a.Size == b.Size && isFloat(a): // float16 and bfloat16
		return Float32
	case a.Name == "uint8" || b.Name == "uint8":
		other := a
		if a.Name == "uint8" {
			other = b
		}
		if other.Name == "int8" {
			return DTypes["int16"]
		}
		return other
	case a.Size > b.Size:
		return a
	}
	return b
}

// combineCategories is result_type's step from one group to the next:
// higher's type unless lower's is of a higher category (a Name "" is
// no type).
func combineCategories(higher, lower DType) DType {
	switch {
	case higher.Name == "":
		return lower
	case lower.Name == "" || kind(higher) == 2:
		return higher
	case higher.Name == "bool" || kind(lower) == 2:
		return promoteTypes(higher, lower)
	}
	return higher
}

// canCast reports whether a result of dtype from may be written into a
// tensor of dtype to (c10::canCast): not a floating one into an integer
// or bool tensor, nor another into a bool tensor.
func canCast(from, to DType) bool {
	return !(kind(from) == 2 && kind(to) < 2) && !(from.Name != "bool" && to.Name == "bool")
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
