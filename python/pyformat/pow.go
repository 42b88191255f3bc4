package pyformat

import (
	"math"
	"math/big"
)

// FloatPow returns x ** y for floats with CPython's special cases and
// errors, and the correctly rounded power otherwise (CPython calls C's
// pow; glibc's is correctly rounded in all but rare cases). A negative x
// with a fractional y gives ErrComplex: Python's result is complex.
func FloatPow(x, y float64) (float64, error) {
	switch {
	case y == 0:
		return 1, nil
	case math.IsNaN(x):
		return x, nil
	case math.IsNaN(y):
		if x == 1 {
			return 1, nil
		}
		return y, nil
	case math.IsInf(y, 0):
		ax := math.Abs(x)
		switch {
		case ax == 1:
			return 1, nil
		case (y > 0) == (ax > 1):
			return math.Inf(1), nil
		}
		return 0, nil
	case math.IsInf(x, 0):
		odd := isOddInteger(y)
		if y > 0 {
			if odd {
				return x, nil
			}
			return math.Inf(1), nil
		}
		if odd {
			return math.Copysign(0, x), nil
		}
		return 0, nil
	case x == 0:
		if y < 0 {
			return 0, zeroDivisionError("0.0 cannot be raised to a negative power")
		}
		if isOddInteger(y) {
			return x, nil
		}
		return 0, nil
	}
	negative := false
	if x < 0 {
		if y != math.Floor(y) {
			return 0, ErrComplex
		}
		negative, x = isOddInteger(y), -x
	}
	r := 1.0
	if x != 1 {
		r = positivePow(x, y)
	}
	if math.IsInf(r, 0) {
		return 0, overflowError("(34, 'Numerical result out of range')")
	}
	if negative {
		r = -r
	}
	return r, nil
}

func isOddInteger(y float64) bool {
	return math.Mod(math.Abs(y), 2) == 1
}

// exactPowLimit: integer exponents up to this size are computed exactly,
// which also settles the powers that fall halfway between two floats
// (3.0 ** 34 is one).
const exactPowLimit = 64

// powPrec is the working precision of the other powers: far more than
// the 53 bits that the rounding to a float needs.
const powPrec = 192

// positivePow returns x ** y, correctly rounded, for finite x > 0 and
// finite y != 0; +Inf when it is too large for a float.
func positivePow(x, y float64) float64 {
	if y == math.Trunc(y) && math.Abs(y) <= exactPowLimit {
		n := int64(math.Abs(y))
		p := new(big.Float).SetPrec(uint(53*n + 1)).SetFloat64(x)
		acc := new(big.Float).SetPrec(p.Prec()).SetInt64(1)
		for ; n > 0; n >>= 1 {
			if n&1 == 1 {
				acc.Mul(acc, p)
			}
			p.Mul(p, p)
		}
		if y < 0 {
			acc = new(big.Float).SetPrec(powPrec).Quo(newFloat(1), acc)
		}
		f, _ := acc.Float64()
		return f
	}
	t := bigLog(x)
	t.Mul(t, newFloat(y))
	// Past these the result is inf or rounds to zero; exp need not try.
	if t.Cmp(newFloat(710)) > 0 {
		return math.Inf(1)
	}
	if t.Cmp(newFloat(-746)) < 0 {
		return 0
	}
	f, _ := bigExp(t).Float64()
	return f
}

// maxPowBits bounds the size of an int power: CPython would try it
// and most likely fail with MemoryError.
const maxPowBits = 1 << 31

// IntPow returns x ** y for ints: an int when y >= 0 (f is then 0);
// for y < 0 Python's float result, float(x) ** float(y), with i nil.
func IntPow(x, y *big.Int) (i *big.Int, f float64, err error) {
	if y.Sign() < 0 {
		fx, err := IntToFloat(x)
		if err != nil {
			return nil, 0, err
		}
		fy, err := IntToFloat(y)
		if err != nil {
			return nil, 0, err
		}
		f, err := FloatPow(fx, fy)
		return nil, f, err
	}
	if x.CmpAbs(big.NewInt(1)) > 0 && (!y.IsInt64() || float64(x.BitLen())*float64(y.Int64()) > maxPowBits) {
		return nil, 0, memoryError()
	}
	return new(big.Int).Exp(x, y, nil), 0, nil
}
