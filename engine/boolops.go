package engine

import (
	"math"
	"strings"
)

// Bitwise and logical ops (testdata/pyrules/ops_bool.py): ~ & | ^ and
// torch.bitwise_*, torch.logical_and/or/xor/not. Each makes one output
// of the broadcast shape and nothing else (bool for the logical ops, the
// promoted type for the bitwise ones, which refuse floating types), is
// not recorded by autograd, and its in-place form writes self with no
// memory. any and all are reductions (reduce.go).

// bitwiseType is the dtype of bitwise op of a and b: the promoted type
// (a Python int promotes a bool tensor to int64, a Python bool does
// not); ok false for a floating one, which PyTorch's kernel refuses.
func bitwiseType(a, b *Tensor) (dt DType, ok bool) {
	dt = a.DType
	if b != nil {
		dt = promoted(a, b)
	}
	for _, n := range []*Tensor{a, b} {
		switch {
		case n == nil:
		case n.number && n.numFloat:
			dt = Float32
		case n.number && !n.numBool && dt.Name == "bool":
			dt = DTypes["int64"]
		}
	}
	return dt, !isFloat(dt)
}

// bitwise is bitwise op of a and b (nil for bitwise_not). Of floating
// types PyTorch makes the output, frees it as its kernel refuses the
// type, and raises (testdata/pyrules/ops_bool.py).
func (s *Session) bitwise(op string, a, b *Tensor) (*Tensor, error) {
	if a.number {
		a, b = b, a
	}
	dt, ok := bitwiseType(a, b)
	out, err := s.bitOp(op, dt, a, b)
	if err != nil || ok {
		return out, err
	}
	s.dropTensor(out)
	dev := "cpu"
	if out.Device().CUDA {
		dev = "cuda"
	}
	return nil, Errorf(NotImplementedError, "\"%s_%s\" not implemented for '%s'", op, dev, tensorTypes[dt.Name])
}

// bitOp is op (bitwise_and, ..., logical_not) of a and b (nil for the
// one-operand ops): a new tensor of dtype dt and the broadcast shape,
// with its values when the operands' are known.
func (s *Session) bitOp(op string, dt DType, a, b *Tensor) (*Tensor, error) {
	dev, shape := a.Device(), a.Shape
	if b != nil {
		var err error
		if dev, shape, err = operands(a, b); err != nil {
			return nil, err
		}
	}
	out, err := s.alloc(shape, dt, dev)
	if err != nil {
		return nil, err
	}
	layOut(out, a, b)
	out.st.vals = bitValues(op, a, b, out)
	return out, nil
}

// bitValues are out's values for op of known operands (b nil for the
// one-operand ops).
func bitValues(op string, a, b, out *Tensor) knownValues {
	if b == nil {
		b = a // not read
	}
	truth := func(v float64) bool { return v != 0 }
	vals := pairValues(a, b, out, comparedValues, func(u, v float64) (float64, bool) {
		switch op {
		case "logical_and":
			return boolValue(truth(u) && truth(v)), true
		case "logical_or":
			return boolValue(truth(u) || truth(v)), true
		case "logical_xor":
			return boolValue(truth(u) != truth(v)), true
		case "logical_not":
			return boolValue(!truth(u)), true
		case "bitwise_not":
			if out.DType.Name == "bool" { // ~True is False, not -2
				return boolValue(!truth(u)), true
			}
		}
		if u != math.Trunc(u) || v != math.Trunc(v) {
			return 0, false
		}
		return float64(bitInts(op, int64(u), int64(v))), true
	})
	return convertValues(vals, out.DType)
}

// bitInts is a bitwise op of two integers.
func bitInts(op string, u, v int64) int64 {
	switch op {
	case "bitwise_and":
		return u & v
	case "bitwise_or":
		return u | v
	case "bitwise_xor":
		return u ^ v
	}
	return ^u // bitwise_not
}

// boolValue is 1 for true, 0 for false.
func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// inPlaceBits is the in-place form of op on a.Tensor(0): the result is
// cast into self's dtype, which must hold it; no memory; self's values
// stay known when they and the other operand's are.
func inPlaceBits(op string) func(s *Session, a Args) error {
	return func(s *Session, a Args) error {
		t, o := a.Tensor(0), (*Tensor)(nil)
		if len(a) > 1 {
			o = a.Tensor(1)
		}
		if o != nil && !o.number && !broadcastsTo(o.Shape, t.Shape) {
			return Errorf(RuntimeError, "output with shape %s doesn't match the broadcast shape", dimList(t.Shape))
		}
		if !strings.HasPrefix(op, "logical_") {
			dt, ok := bitwiseType(t, o)
			if !ok {
				return NotModelledError("Tensor." + op + "_ of a floating tensor")
			}
			if kind(dt) > kind(t.DType) {
				return Errorf(RuntimeError, "result type %s can't be cast to the desired output type %s", tensorTypes[dt.Name], tensorTypes[t.DType.Name])
			}
		}
		vals := bitValues(op, t, o, t)
		if err := s.writeUntracked(op+"_", t); err != nil {
			return err
		}
		if t.Bytes() == t.st.bytes {
			t.st.vals = vals
		}
		return nil
	}
}

func init() {
	tensors := []Param{input, {Name: "other", Kind: TensorParam}}
	for _, op := range []string{"and", "or", "xor"} {
		name := "bitwise_" + op
		declare(&OpDef{Name: name, Function: true, Method: true, Dunders: operators(op),
			InPlace: name + "_", InPlaceDunders: []string{"__i" + op + "__"},
			Params: []Param{input, other},
			Memory: "new tensor of the broadcast shape (the promoted integer or bool type; floats refused); not recorded by autograd",
			run: func(s *Session, a Args) (*Tensor, error) {
				if a.Tensor(0).number && a.Tensor(1).number {
					return nil, Errorf(TypeError, "a number %s a number is not a tensor", op)
				}
				return s.bitwise(name, a.Tensor(0), a.Tensor(1))
			},
			inPlace: inPlaceBits(name)})
	}
	notMemory := "new tensor of the input's type (integers and bool; floats refused); not recorded by autograd"
	declare(&OpDef{Name: "bitwise_not", Function: true, Method: true, InPlace: "bitwise_not_", Params: []Param{input}, Memory: notMemory,
		run: func(s *Session, a Args) (*Tensor, error) {
			return s.bitwise("bitwise_not", a.Tensor(0), nil)
		},
		inPlace: inPlaceBits("bitwise_not")},
		// ~ checks the type before bitwise_not runs
		&OpDef{Name: "invert", Usage: "~input", Dunders: []Dunder{{Name: "__invert__"}}, Params: []Param{input}, Memory: notMemory,
			run: func(s *Session, a Args) (*Tensor, error) {
				if isFloat(a.Tensor(0).DType) {
					return nil, Errorf(TypeError, "~ (operator.invert) is only implemented on integer and Boolean-type tensors")
				}
				return s.bitwise("bitwise_not", a.Tensor(0), nil)
			}})
	for _, op := range []string{"and", "or", "xor"} {
		name := "logical_" + op
		declare(&OpDef{Name: name, Function: true, Method: true, InPlace: name + "_", Params: tensors,
			Memory: "new bool tensor of the broadcast shape, of inputs of any type; not recorded by autograd",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.bitOp(name, boolDType, a.Tensor(0), a.Tensor(1))
			},
			inPlace: inPlaceBits(name)})
	}
	declare(&OpDef{Name: "logical_not", Function: true, Method: true, InPlace: "logical_not_", Params: []Param{input},
		Memory: "new bool tensor of the input's shape; not recorded by autograd",
		run: func(s *Session, a Args) (*Tensor, error) {
			return s.bitOp("logical_not", boolDType, a.Tensor(0), nil)
		},
		inPlace: inPlaceBits("logical_not")})
}
