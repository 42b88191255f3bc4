package pyformat

import (
	"math"
	"math/big"
	"strings"
)

// MaxStrDigits is CPython's default limit on the decimal digits of an
// int converted to or from text (sys.get_int_max_str_digits()).
const MaxStrDigits = 4300

// maxStrBits: an int of more bits has more than MaxStrDigits digits.
const maxStrBits = 14286

// IntString returns str(x) for a Python int, or CPython's ValueError
// for one of more than MaxStrDigits digits.
func IntString(x *big.Int) (string, error) {
	digits, err := decimalText(x)
	if err != nil {
		return "", err
	}
	if x.Sign() < 0 {
		return "-" + digits, nil
	}
	return digits, nil
}

// decimalText returns the digits of |x|, within CPython's limit.
func decimalText(x *big.Int) (string, error) {
	limitErr := valueError("Exceeds the limit (%d digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit", MaxStrDigits)
	if x.BitLen() > maxStrBits {
		return "", limitErr
	}
	s := new(big.Int).Abs(x).String()
	if len(s) > MaxStrDigits {
		return "", limitErr
	}
	return s, nil
}

// IntToFloat returns float(x): correctly rounded, half to even, and
// OverflowError past the largest float.
func IntToFloat(x *big.Int) (float64, error) {
	f, _ := new(big.Float).SetInt(x).Float64()
	if math.IsInf(f, 0) {
		return 0, overflowError("int too large to convert to float")
	}
	return f, nil
}

// FloatToInt returns int(f): f truncated toward zero.
func FloatToInt(f float64) (*big.Int, error) {
	if err := checkIntegral(f); err != nil {
		return nil, err
	}
	i, _ := big.NewFloat(f).Int(nil)
	return i, nil
}

// checkIntegral is the error CPython raises turning inf or nan into an int.
func checkIntegral(f float64) error {
	switch {
	case math.IsNaN(f):
		return valueError("cannot convert float NaN to integer")
	case math.IsInf(f, 0):
		return overflowError("cannot convert float infinity to integer")
	}
	return nil
}

// radixText returns the digits of |x| for an integer type: b, o, x or
// X (capital hex digits).
func radixText(x *big.Int, typ rune) string {
	base := 16
	switch typ {
	case 'b':
		base = 2
	case 'o':
		base = 8
	}
	s := new(big.Int).Abs(x).Text(base)
	if typ == 'X' {
		s = strings.ToUpper(s)
	}
	return s
}
