package pyformat

import (
	"math"
	"math/big"
	"strings"
)

// FormatInt returns format(x, spec) for a Python int: types b c d o x X
// n and none; e E f F g G % format float(x).
func FormatInt(x *big.Int, spec string) (string, error) {
	return formatInt(x, spec, "int")
}

// FormatBool returns format(b, spec): "True" or "False" for an empty
// spec, else b formatted as the int 1 or 0 (bool is an int in Python).
func FormatBool(b bool, spec string) (string, error) {
	if spec == "" {
		if b {
			return "True", nil
		}
		return "False", nil
	}
	x := big.NewInt(0)
	if b {
		x.SetInt64(1)
	}
	return formatInt(x, spec, "bool")
}

func formatInt(x *big.Int, spec, typeName string) (string, error) {
	if spec == "" {
		return IntString(x)
	}
	s, err := ParseSpec(spec, typeName)
	if err != nil {
		return "", err
	}
	switch s.Type {
	case 'b', 'c', 'd', 'o', 'x', 'X', 'n':
		return intSpec(x, s)
	case 'e', 'E', 'f', 'F', 'g', 'G', '%':
		f, err := IntToFloat(x)
		if err != nil {
			return "", err
		}
		return floatSpec(f, s)
	}
	return "", unknownCode(s.Type, typeName)
}

// intSpec formats x with an integer presentation type.
func intSpec(x *big.Int, s Spec) (string, error) {
	if s.Precision >= 0 {
		return "", valueError("Precision not allowed in integer format specifier")
	}
	if s.NoNegZero {
		return "", valueError("Negative zero coercion (z) not allowed in integer format specifier")
	}
	if s.Type == 'c' {
		return charSpec(x, s)
	}
	n := number{sign: signOf(x.Sign() < 0, s.Sign)}
	g := s.grouping(3)
	switch s.Type {
	case 'b', 'o', 'x', 'X':
		if s.Alternate {
			n.prefix = "0" + string(s.Type)
		}
		n.digits = radixText(x, s.Type)
		g = s.grouping(4)
	default:
		var err error
		if n.digits, err = decimalText(x); err != nil {
			return "", err
		}
	}
	return n.pad(s, g)
}

// charSpec is the 'c' type: the character with code point x.
func charSpec(x *big.Int, s Spec) (string, error) {
	if s.Sign != 0 {
		return "", valueError("Sign not allowed with integer format specifier 'c'")
	}
	if s.Alternate {
		return "", valueError("Alternate form (#) not allowed with integer format specifier 'c'")
	}
	if !x.IsInt64() {
		return "", overflowError("Python int too large to convert to C long")
	}
	if x.Sign() < 0 || x.Int64() > unicodeMax {
		return "", overflowError("%%c arg not in range(0x110000)")
	}
	return number{rest: string(rune(x.Int64()))}.pad(s, grouping{})
}

// unicodeMax is the largest code point.
const unicodeMax = 0x10ffff

// FormatFloat returns format(f, spec) for a Python float: types e E f F
// g G n % and none (repr without a precision; like 'g' with one, but
// with a digit after the point and exponent form from precision-1).
func FormatFloat(f float64, spec string) (string, error) {
	if spec == "" {
		return ReprFloat(f), nil
	}
	s, err := ParseSpec(spec, "float")
	if err != nil {
		return "", err
	}
	switch s.Type {
	case 'e', 'E', 'f', 'F', 'g', 'G', 'n', '%', 0:
		return floatSpec(f, s)
	}
	return "", unknownCode(s.Type, "float")
}

// floatSpec formats f with a float presentation type.
func floatSpec(f float64, s Spec) (string, error) {
	switch {
	case s.Precision > math.MaxInt32:
		return "", valueError("precision too big")
	case s.Precision > maxWidth:
		return "", memoryError()
	}
	typ, prec := s.Type, s.Precision
	switch {
	case typ == 0 && prec < 0:
		typ = 'r'
	case prec < 0:
		prec = 6
	}
	if typ == '%' {
		f *= 100
	}
	body, negative := floatText(f, typ, prec, s.Alternate)
	if negative && s.NoNegZero && !math.IsInf(f, 0) && isZeroText(body) {
		negative = false
	}
	return numberOf(signOf(negative, s.Sign), body).pad(s, s.grouping(3))
}

// floatText returns the text of |f| for a type, and whether f shows
// as negative (NaN never does).
func floatText(f float64, typ rune, prec int, alt bool) (string, bool) {
	upper := typ == 'E' || typ == 'F' || typ == 'G'
	if s, ok := nonFinite(math.Abs(f), upper); ok {
		if typ == '%' {
			s += "%"
		}
		return s, math.IsInf(f, -1)
	}
	return floatBody(math.Abs(f), typ, prec, alt), math.Signbit(f)
}

// isZeroText reports whether a formatted number's digits are all zeros.
func isZeroText(body string) bool {
	mant, _, _ := strings.Cut(strings.ToLower(body), "e")
	return !strings.ContainsAny(mant, "123456789")
}

// FormatStr returns format(s, spec) for a Python str: type s or none; a
// precision truncates; a width pads, left-aligned unless told otherwise.
func FormatStr(str, spec string) (string, error) {
	if spec == "" {
		return str, nil
	}
	s, err := ParseSpec(spec, "str")
	if err != nil {
		return "", err
	}
	switch {
	case s.Type != 's':
		return "", unknownCode(s.Type, "str")
	case s.Sign == ' ':
		return "", valueError("Space not allowed in string format specifier")
	case s.Sign != 0:
		return "", valueError("Sign not allowed in string format specifier")
	case s.NoNegZero:
		return "", valueError("Negative zero coercion (z) not allowed in string format specifier")
	case s.Alternate:
		return "", valueError("Alternate form (#) not allowed in string format specifier")
	case s.Align == '=':
		return "", valueError("'=' alignment not allowed in string format specifier")
	}
	fill, align := s.fillAlign('<')
	return padText(truncate(str, s.Precision), s.Width, fill, align)
}

// truncate keeps the first n characters of s; all of it for n < 0.
func truncate(s string, n int) string {
	if n < 0 {
		return s
	}
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}
