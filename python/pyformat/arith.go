package pyformat

import (
	"math"
	"math/big"
)

// Div returns a / b for floats: ZeroDivisionError for b == 0.
func Div(a, b float64) (float64, error) {
	if b == 0 {
		return 0, zeroDivisionError("float division by zero")
	}
	return a / b, nil
}

// FloorDiv returns a // b for floats.
func FloorDiv(a, b float64) (float64, error) {
	if b == 0 {
		return 0, zeroDivisionError("float floor division by zero")
	}
	q, _ := floatDivmod(a, b)
	return q, nil
}

// Mod returns a % b for floats: the sign of b, as Python's.
func Mod(a, b float64) (float64, error) {
	if b == 0 {
		return 0, zeroDivisionError("float modulo")
	}
	_, m := floatDivmod(a, b)
	return m, nil
}

// Divmod returns divmod(a, b) for floats.
func Divmod(a, b float64) (float64, float64, error) {
	if b == 0 {
		return 0, 0, zeroDivisionError("float divmod()")
	}
	q, m := floatDivmod(a, b)
	return q, m, nil
}

// floatDivmod is CPython's float divmod for b != 0: the remainder from
// fmod, moved to b's sign, and the quotient rounded to the whole number
// nearest (a - mod) / b so that q*b + mod stays close to a.
func floatDivmod(a, b float64) (float64, float64) {
	mod := math.Mod(a, b)
	div := (a - mod) / b
	if mod != 0 {
		if (b < 0) != (mod < 0) {
			mod += b
			div--
		}
	} else {
		mod = math.Copysign(0, b)
	}
	if div == 0 {
		return math.Copysign(0, a/b), mod
	}
	floor := math.Floor(div)
	if div-floor > 0.5 {
		floor++
	}
	return floor, mod
}

// TrueDiv returns a / b for ints: the float nearest the exact quotient,
// as CPython's long_true_divide.
func TrueDiv(a, b *big.Int) (float64, error) {
	if b.Sign() == 0 {
		return 0, zeroDivisionError("division by zero")
	}
	f, _ := new(big.Rat).SetFrac(a, b).Float64()
	if math.IsInf(f, 0) {
		return 0, overflowError("integer division result too large for a float")
	}
	if f == 0 && (a.Sign() < 0) != (b.Sign() < 0) {
		f = math.Copysign(0, -1)
	}
	return f, nil
}

// IntFloorDiv returns a // b for ints, rounded toward negative infinity.
func IntFloorDiv(a, b *big.Int) (*big.Int, error) {
	q, _, err := IntDivmod(a, b)
	return q, err
}

// IntMod returns a % b for ints, with the sign of b.
func IntMod(a, b *big.Int) (*big.Int, error) {
	if b.Sign() == 0 {
		return nil, zeroDivisionError("integer modulo by zero")
	}
	_, m, err := IntDivmod(a, b)
	return m, err
}

// IntDivmod returns divmod(a, b) for ints.
func IntDivmod(a, b *big.Int) (*big.Int, *big.Int, error) {
	if b.Sign() == 0 {
		return nil, nil, zeroDivisionError("integer division or modulo by zero")
	}
	q, m := new(big.Int).QuoRem(a, b, new(big.Int))
	if m.Sign() != 0 && (m.Sign() < 0) != (b.Sign() < 0) {
		q.Sub(q, big.NewInt(1))
		m.Add(m, b)
	}
	return q, m, nil
}

// Round returns round(x, ndigits) for a float: x rounded to a multiple
// of 10**-ndigits, exactly and half to even, then to the nearest float,
// as CPython does (round(2.675, 2) is 2.67: 2.675 is a little less).
// An ndigits past an int's range should come clamped to it, as CPython
// clamps it to a C ssize_t.
func Round(x float64, ndigits int) (float64, error) {
	// CPython's bounds: past them every float rounds to itself, or to zero.
	const ndigitsMax, ndigitsMin = 323, -308
	switch {
	case math.IsInf(x, 0) || math.IsNaN(x):
		return x, nil
	case ndigits > ndigitsMax:
		return x, nil
	case ndigits < ndigitsMin:
		return 0 * x, nil
	case x == 0:
		return x, nil
	}
	scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(ndigits))), nil))
	r := new(big.Rat).SetFloat64(x)
	if ndigits >= 0 {
		r.Mul(r, scale)
	} else {
		r.Quo(r, scale)
	}
	n := roundHalfEven(r)
	if n.Sign() == 0 {
		return math.Copysign(0, x), nil
	}
	r.SetInt(n)
	if ndigits >= 0 {
		r.Quo(r, scale)
	} else {
		r.Mul(r, scale)
	}
	f, _ := r.Float64()
	if math.IsInf(f, 0) {
		return 0, overflowError("rounded value too large to represent")
	}
	return f, nil
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// roundHalfEven returns the integer nearest r, the even one of two.
func roundHalfEven(r *big.Rat) *big.Int {
	q, m := new(big.Int).DivMod(r.Num(), r.Denom(), new(big.Int)) // floor, as the denominator is positive
	twice := m.Lsh(m, 1)
	switch c := twice.Cmp(r.Denom()); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		q.Add(q, big.NewInt(1))
	}
	return q
}

// RoundInt returns round(x) for a float: the nearest int, the even one
// of two.
func RoundInt(x float64) (*big.Int, error) {
	return FloatToInt(math.RoundToEven(x))
}
