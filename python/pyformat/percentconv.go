package pyformat

import (
	"math/big"
	"strings"
)

// format converts one argument; at is the index of the type character.
func (d directive) format(v Operand, at int) (string, error) {
	switch d.typ {
	case 's', 'r', 'a':
		text, err := d.text(v)
		if err != nil {
			return "", err
		}
		return padText(truncate(text, d.prec), d.width, ' ', d.textAlign())
	case 'c':
		text, err := percentChar(v)
		if err != nil {
			return "", err
		}
		return padText(text, d.width, ' ', d.textAlign())
	case 'd', 'i', 'u', 'o', 'x', 'X':
		return d.integer(v)
	case 'e', 'E', 'f', 'F', 'g', 'G':
		return d.float(v)
	}
	shown := d.typ // CPython shows codes 31 to 126 as they are
	if shown < 31 || shown > '~' {
		shown = '?'
	}
	return "", valueError("unsupported format character '%c' (0x%x) at index %d", shown, d.typ, at)
}

func (d directive) textAlign() byte {
	if d.left {
		return '<'
	}
	return '>'
}

// text is %s, %r or %a: str(v), repr(v) or ascii(v).
func (d directive) text(v Operand) (string, error) {
	switch d.typ {
	case 's':
		return v.Str()
	case 'r':
		return v.Repr()
	}
	r, err := v.Repr()
	return ASCII(r), err
}

// percentChar is %c: a str of one character, or an int code point.
func percentChar(v Operand) (string, error) {
	if s, ok := v.Text(); ok {
		if runeLen(s) == 1 {
			return s, nil
		}
	} else if x, ok := v.Int(); ok {
		if x.Sign() < 0 || x.Cmp(big.NewInt(unicodeMax)) > 0 {
			return "", overflowError("%%c arg not in range(0x110000)")
		}
		return string(rune(x.Int64())), nil
	}
	return "", typeError("%%c requires int or char")
}

// integer is %d %i %u (any real number, truncated) and %o %x %X (ints).
func (d directive) integer(v Operand) (string, error) {
	if s, ok := v.NotComputed(); ok {
		return s, nil
	}
	x, ok := v.Int()
	if !ok {
		f, isFloat := v.Float()
		if d.typ == 'o' || d.typ == 'x' || d.typ == 'X' {
			return "", typeError("%%%c format: an integer is required, not %s", d.typ, v.TypeName())
		}
		if !isFloat {
			return "", typeError("%%%c format: a real number is required, not %s", d.typ, v.TypeName())
		}
		var err error
		if x, err = FloatToInt(f); err != nil {
			return "", err
		}
	}
	n := number{sign: d.signOf(x.Sign() < 0)}
	switch d.typ {
	case 'o', 'x', 'X':
		n.digits = radixText(x, d.typ)
		if d.alt {
			n.prefix = "0" + string(d.typ)
		}
	default:
		var err error
		if n.digits, err = decimalText(x); err != nil {
			return "", err
		}
	}
	if d.prec > maxWidth {
		return "", memoryError()
	}
	if pad := d.prec - len(n.digits); pad > 0 {
		n.digits = strings.Repeat("0", pad) + n.digits
	}
	return d.pad(n)
}

// float is %e %E %f %F %g %G of a real number.
func (d directive) float(v Operand) (string, error) {
	if s, ok := v.NotComputed(); ok {
		return s, nil
	}
	f, ok := v.Float()
	if !ok {
		x, isInt := v.Int()
		if !isInt {
			return "", typeError("must be real number, not %s", v.TypeName())
		}
		var err error
		if f, err = IntToFloat(x); err != nil {
			return "", err
		}
	}
	prec := d.prec
	if prec < 0 {
		prec = 6
	}
	if prec > maxWidth {
		return "", memoryError()
	}
	body, negative := floatText(f, d.typ, prec, d.alt)
	return d.pad(numberOf(d.signOf(negative), body))
}

// signOf is the sign a number shows: '+' wins over ' '.
func (d directive) signOf(negative bool) string {
	switch {
	case d.sign:
		return signOf(negative, '+')
	case d.blank:
		return signOf(negative, ' ')
	}
	return signOf(negative, 0)
}

// pad fills a number's field: spaces on the left, or on the right for
// '-', or zeros after the sign and prefix for '0'.
func (d directive) pad(n number) (string, error) {
	s := Spec{Fill: ' ', Align: '>', Width: d.width}
	switch {
	case d.left:
		s.Align = '<'
	case d.zero:
		s.Fill, s.Align = '0', '='
	}
	return n.pad(s, grouping{})
}
