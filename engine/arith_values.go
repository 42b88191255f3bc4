package engine

import (
	"math"
	"slices"
)

// maxKnownValues is the most elements whose values an arithmetic result
// keeps (as torch.arange keeps a range's): past it, values are not
// known, rather than held on the host.
const maxKnownValues = 1 << 16

// ScalarOf is Scalar() for a Python number whose value the tool knows
// (v; float says it was a Python float, not an int or bool), so that
// arithmetic on known values stays known.
func ScalarOf(v float64, float bool) *Tensor {
	return &Tensor{number: true, num: v, numKnown: true, numFloat: float}
}

// BoolOf is Scalar() for a Python bool: a number of the bool kind, which
// keeps a bool tensor's ops bool (b & True) where an int would promote
// them to int64 (b & 1).
func BoolOf(v bool) *Tensor {
	t := ScalarOf(0, false)
	if v {
		t.num = 1
	}
	t.numBool = true
	return t
}

// binaryValues are out's values for a op b (add, sub, mul, div) when
// both operands' are known -- a number, a tensor of out's shape, or one
// element -- and out is dense in order: each computed in float64 and
// rounded to out's dtype (float32's rounding of a float64 sum, product
// or quotient of float32s is the float32 operation's); nil (not known)
// otherwise, for float16 and bfloat16, and for results that are not
// finite or not integral in an integral dtype.
func binaryValues(op string, a, b, out *Tensor) knownValues {
	return pairValues(a, b, out, operandValues, func(u, v float64) (float64, bool) {
		var r float64
		switch op {
		case "add":
			r = u + v
		case "sub":
			r = u - v
		case "mul":
			r = u * v
		case "div":
			r = u / v
		case "remainder": // the divisor's sign, as Python's %
			r = u - math.Floor(u/v)*v
		case "floor_divide":
			r = math.Floor(u / v)
		case "trunc_divide":
			r = math.Trunc(u / v)
		case "fmod": // the dividend's sign, as C's fmod
			r = math.Mod(u, v)
		default:
			return 0, false
		}
		switch out.DType.Name {
		case "float32":
			r = float64(float32(r))
		case "float64":
		case "float16", "bfloat16", "bool":
			return 0, false
		default:
			if r != math.Trunc(r) {
				return 0, false
			}
		}
		return r, !math.IsInf(r, 0) && !math.IsNaN(r)
	})
}

// pairValues are out's values f(u, v) of a's and b's elements, each
// operand read by read, when both are known and out is dense in order;
// nil otherwise, or where f says a result is not known.
func pairValues(a, b, out *Tensor, read func(t, out *Tensor) (func(uint64) float64, bool), f func(u, v float64) (float64, bool)) knownValues {
	n := out.Numel()
	if n == 0 || n > maxKnownValues || !out.IsContiguous() {
		return nil
	}
	x, okx := read(a, out)
	y, oky := read(b, out)
	if !okx || !oky {
		return nil
	}
	vals := make(knownValues, n)
	for i := range n {
		r, ok := f(x(i), y(i))
		if !ok {
			return nil
		}
		vals[i] = r
	}
	return vals
}

// operandValues is an operand's element i of out, when known: a
// number's value, a one-element tensor's, or a tensor of out's shape
// element by element. A Python float with an integral result dtype
// (where PyTorch promotes to a float) is not taken.
func operandValues(t, out *Tensor) (func(i uint64) float64, bool) {
	if t.number {
		if !t.numKnown || t.numFloat && !isFloat(out.DType) {
			return nil, false
		}
		v := t.num
		return func(uint64) float64 { return v }, true
	}
	vals, ok := t.Values()
	switch {
	case !ok:
		return nil, false
	case len(vals) == 1:
		v := vals[0]
		return func(uint64) float64 { return v }, true
	case slices.Equal(t.Shape, out.Shape):
		return func(i uint64) float64 { return vals[i] }, true
	}
	return nil, false
}
