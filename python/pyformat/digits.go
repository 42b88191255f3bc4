package pyformat

import (
	"strconv"
	"strings"
)

// decimalDigits returns the significant digits of a finite f >= 0 and the
// place of its decimal point: f is about 0.d1d2... × 10**decpt. n < 0 asks
// for the fewest digits that read back as f (Python's repr); n >= 1 for n
// digits, correctly rounded, half to even, as CPython's dtoa rounds.
func decimalDigits(f float64, n int) (string, int) {
	prec := -1
	if n > 0 {
		prec = n - 1
	}
	s := strconv.FormatFloat(f, 'e', prec, 64)
	mant, exp, _ := strings.Cut(s, "e")
	e, _ := strconv.Atoi(exp)
	return strings.Replace(mant, ".", "", 1), e + 1
}

// layout writes digits d with the decimal point at decpt, in exponent or
// positional form. alt keeps a decimal point with nothing after it
// ('#'); dot0 adds ".0" to a whole number in positional form (repr, and
// a float format with no type).
func layout(d string, decpt int, useExp, alt, dot0 bool) string {
	var b strings.Builder
	if useExp {
		b.WriteString(d[:1])
		if len(d) > 1 || alt {
			b.WriteByte('.')
			b.WriteString(d[1:])
		}
		writeExponent(&b, decpt-1)
		return b.String()
	}
	switch {
	case decpt <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -decpt))
		b.WriteString(d)
	case decpt >= len(d):
		b.WriteString(d)
		b.WriteString(strings.Repeat("0", decpt-len(d)))
		if alt || dot0 {
			b.WriteByte('.')
		}
		if dot0 {
			b.WriteByte('0')
		}
	default:
		b.WriteString(d[:decpt])
		b.WriteByte('.')
		b.WriteString(d[decpt:])
	}
	return b.String()
}

// writeExponent writes e+XX or e-XX, at least two digits, as C's printf.
func writeExponent(b *strings.Builder, exp int) {
	b.WriteByte('e')
	if exp < 0 {
		b.WriteByte('-')
		exp = -exp
	} else {
		b.WriteByte('+')
	}
	if exp < 10 {
		b.WriteByte('0')
	}
	b.WriteString(strconv.Itoa(exp))
}

// shortestLayout is repr's form of f >= 0: the shortest digits,
// positional from 1e-4 up to 1e16.
func shortestLayout(f float64, alt, dot0 bool) string {
	d, decpt := decimalDigits(f, -1)
	return layout(d, decpt, decpt <= -4 || decpt > 16, alt, dot0)
}

// generalLayout is the 'g' form of f >= 0 with prec significant digits:
// positional unless the exponent is below -4 or not below prec (prec-1
// for the no-type form, dot0), trailing zeros dropped unless alt.
func generalLayout(f float64, prec int, alt, dot0 bool) string {
	if prec == 0 {
		prec = 1
	}
	d, decpt := decimalDigits(f, prec)
	if !alt {
		d = strings.TrimRight(d, "0")
		if d == "" {
			d = "0"
		}
	}
	limit := prec
	if dot0 {
		limit = prec - 1
	}
	return layout(d, decpt, decpt <= -4 || decpt > limit, alt, dot0)
}

// floatBody returns the digits of f >= 0, finite, for a presentation
// type: 'e', 'f', 'g' (and their capitals, '%' and 'n'), 'r' for repr
// (no type, no precision) and 0 for no type with a precision.
func floatBody(f float64, typ rune, prec int, alt bool) string {
	var s string
	switch typ {
	case 'e', 'E':
		s = strconv.FormatFloat(f, 'e', prec, 64)
		if alt && prec == 0 {
			s = s[:1] + "." + s[1:]
		}
	case 'f', 'F', '%':
		s = strconv.FormatFloat(f, 'f', prec, 64)
		if alt && prec == 0 {
			s += "."
		}
	case 'g', 'G', 'n':
		s = generalLayout(f, prec, alt, false)
	case 'r':
		s = shortestLayout(f, alt, true)
	default:
		s = generalLayout(f, prec, alt, true)
	}
	switch typ {
	case 'E', 'F', 'G':
		s = strings.ToUpper(s)
	case '%':
		s += "%"
	}
	return s
}
