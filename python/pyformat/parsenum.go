package pyformat

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// ParseFloat returns float(s) for a str: surrounding whitespace, '_'
// between digits, "inf", "infinity" and "nan" in any case; a magnitude
// too large is inf and one too small zero, as in CPython.
func ParseFloat(s string) (float64, error) {
	bad := valueError("could not convert string to float: %s", ReprStr(s))
	t, ok := asciiNumber(s)
	if ok && strings.Contains(t, "_") {
		t, ok = dropUnderscores(t)
	}
	if !ok {
		return 0, bad
	}
	body := strings.TrimLeft(t, "+-")
	if len(t)-len(body) > 1 {
		return 0, bad
	}
	negative := strings.HasPrefix(t, "-")
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if negative {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	case "nan":
		return math.NaN(), nil
	}
	if !isDecimalLiteral(body) {
		return 0, bad
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil && !errorsIsRange(err) {
		return 0, bad
	}
	return f, nil
}

func errorsIsRange(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// dropUnderscores removes the underscores of a number, each of which
// must sit between two digits.
func dropUnderscores(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && (i == 0 || i == len(s)-1 || !isDigit(s[i-1]) || !isDigit(s[i+1])) {
			return "", false
		}
	}
	return strings.ReplaceAll(s, "_", ""), true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isDecimalLiteral reports whether s is digits with an optional point
// (a digit on at least one side) and an optional exponent.
func isDecimalLiteral(s string) bool {
	i, mant := 0, 0
	for ; i < len(s) && isDigit(s[i]); i++ {
		mant++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && isDigit(s[i]); i++ {
			mant++
		}
	}
	if mant == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		for ; i < len(s) && isDigit(s[i]); i++ {
		}
		if i == start {
			return false
		}
	}
	return i == len(s)
}

// ParseInt returns int(s, base) for a str: base 2 to 36, or 0 to read
// the base from a 0x, 0o or 0b prefix as Python source does; whitespace
// around, a sign, '_' between digits (and after a prefix).
func ParseInt(s string, base int) (*big.Int, error) {
	if base != 0 && (base < 2 || base > 36) {
		return nil, valueError("int() base must be >= 2 and <= 36, or 0")
	}
	bad := valueError("invalid literal for int() with base %d: %s", base, truncate(ReprStr(s), 200))
	t, ok := asciiNumber(s)
	if !ok {
		return nil, bad
	}
	body := t
	if body != "" && (body[0] == '+' || body[0] == '-') {
		body = body[1:]
	}
	body, radix, prefixed := stripRadixPrefix(body, base)
	digits, n, ok := scanIntDigits(body, radix, prefixed)
	if !ok {
		return nil, bad
	}
	if radix&(radix-1) != 0 && len(digits) > MaxStrDigits {
		return nil, valueError("Exceeds the limit (%d digits) for integer string conversion: value has %d digits; use sys.set_int_max_str_digits() to increase the limit", MaxStrDigits, len(digits))
	}
	// Base 0 reads decimals as Python source does: no leading zeros.
	if n < len(body) || (base == 0 && !prefixed && digits[0] == '0' && strings.Trim(digits, "0") != "") {
		return nil, bad
	}
	x, _ := new(big.Int).SetString(digits, radix)
	if strings.HasPrefix(t, "-") {
		x.Neg(x)
	}
	return x, nil
}

// stripRadixPrefix removes a 0x, 0o or 0b that base allows (base 0 takes
// its base from it; no prefix is base 10).
func stripRadixPrefix(s string, base int) (string, int, bool) {
	if len(s) >= 2 && s[0] == '0' {
		radix := 0
		switch s[1] | 0x20 {
		case 'x':
			radix = 16
		case 'o':
			radix = 8
		case 'b':
			radix = 2
		}
		if radix != 0 && (base == 0 || base == radix) {
			return s[2:], radix, true
		}
	}
	if base == 0 {
		return s, 10, false
	}
	return s, base, false
}

// scanIntDigits reads the digits of s in radix up to the first that is
// not one, and returns them without underscores, with how much of s they
// took; ok is false for a misplaced underscore or no digits at all.
func scanIntDigits(s string, radix int, prefixed bool) (digits string, n int, ok bool) {
	var b strings.Builder
	underscore := !prefixed // an underscore may not come first, nor twice
	for ; n < len(s); n++ {
		c := s[n]
		if c == '_' {
			if underscore {
				return "", 0, false
			}
			underscore = true
			continue
		}
		if digitValue(c) >= radix {
			break
		}
		b.WriteByte(c)
		underscore = false
	}
	if b.Len() == 0 || (n > 0 && s[n-1] == '_') {
		return "", 0, false
	}
	return b.String(), n, true
}

// digitValue is c's value as a digit of bases up to 36; 36 for none.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c|0x20 >= 'a' && c|0x20 <= 'z':
		return int(c|0x20-'a') + 10
	}
	return 36
}
