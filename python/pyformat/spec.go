package pyformat

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// Spec is a parsed format spec, Python's mini-language
// [[fill]align][sign][z][#][0][width][grouping][.precision][type].
type Spec struct {
	Fill      rune // the fill character; ' ' when not given
	Align     byte // '<', '>', '^' or '='; 0 when not given
	Sign      byte // '+', '-' or ' '; 0 when not given
	NoNegZero bool // 'z': a negative zero after rounding prints as zero
	Alternate bool // '#'
	ZeroPad   bool // '0' before the width, with no fill given
	Width     int  // -1 when not given
	Grouping  byte // ',' or '_'; 0 when not given
	Precision int  // -1 when not given
	Type      rune // the presentation type; when not given, the type's default: 's' for str, 'd' for int and bool, else 0
}

// ParseSpec parses a format spec for a value of the named Python type
// (the name appears in the error for a spec that does not parse, and
// decides the default type). It makes the checks that CPython makes
// before it formats: a grouping the type allows, a precision after '.',
// digits that fit.
func ParseSpec(spec, typeName string) (Spec, error) {
	s := Spec{Fill: ' ', Width: -1, Precision: -1}
	switch typeName {
	case "str":
		s.Type = 's'
	case "int", "bool":
		s.Type = 'd'
	}
	r := []rune(spec)
	i, fillGiven := 0, false
	switch {
	case len(r) >= 2 && isAlign(r[1]):
		s.Fill, s.Align = r[0], byte(r[1])
		i, fillGiven = 2, true
	case len(r) >= 1 && isAlign(r[0]):
		s.Align = byte(r[0])
		i = 1
	}
	if i < len(r) && (r[i] == '+' || r[i] == '-' || r[i] == ' ') {
		s.Sign = byte(r[i])
		i++
	}
	if i < len(r) && r[i] == 'z' {
		s.NoNegZero = true
		i++
	}
	if i < len(r) && r[i] == '#' {
		s.Alternate = true
		i++
	}
	if !fillGiven && i < len(r) && r[i] == '0' {
		s.ZeroPad = true
		i++
	}
	var err error
	if s.Width, i, err = specInteger(r, i); err != nil {
		return s, err
	}
	if i < len(r) && (r[i] == ',' || r[i] == '_') {
		s.Grouping = byte(r[i])
		i++
		if i < len(r) && (r[i] == ',' || r[i] == '_') && byte(r[i]) != s.Grouping {
			return s, valueError("Cannot specify both ',' and '_'.")
		}
	}
	if i < len(r) && r[i] == '.' {
		if s.Precision, i, err = specInteger(r, i+1); err != nil {
			return s, err
		}
		if s.Precision < 0 {
			return s, valueError("Format specifier missing precision")
		}
	}
	switch len(r) - i {
	case 0:
	case 1:
		s.Type = r[i]
	default:
		return s, valueError("Invalid format specifier '%s' for object of type '%s'", spec, typeName)
	}
	return s, s.checkGrouping()
}

func isAlign(r rune) bool {
	return r == '<' || r == '>' || r == '=' || r == '^'
}

// specInteger reads the decimal digits at r[i:] (any Unicode decimal
// digits, as CPython's get_integer): -1 when there are none.
func specInteger(r []rune, i int) (int, int, error) {
	n, start := 0, i
	for ; i < len(r); i++ {
		d, ok := decimalValue(r[i])
		if !ok {
			break
		}
		if n > (math.MaxInt64-d)/10 {
			return 0, i, valueError("Too many decimal digits in format string")
		}
		n = n*10 + d
	}
	if i == start {
		return -1, i, nil
	}
	return n, i, nil
}

// checkGrouping is CPython's rule of which types take a grouping:
// ',' and '_' with decimal and float types, '_' alone with b, o, x, X.
func (s Spec) checkGrouping() error {
	if s.Grouping == 0 {
		return nil
	}
	switch s.Type {
	case 'd', 'e', 'f', 'g', 'E', 'G', '%', 'F', 0:
		return nil
	case 'b', 'o', 'x', 'X':
		if s.Grouping == '_' {
			return nil
		}
	}
	return groupingError(s.Grouping, s.Type)
}

func groupingError(sep byte, typ rune) error {
	return valueError("Cannot specify '%c' with %s.", sep, quoteCode(typ))
}

// quoteCode shows a presentation type in an error: 'x', or '\x1' for one
// that is not printable ASCII, as CPython shows it.
func quoteCode(typ rune) string {
	if typ > 32 && typ < 128 {
		return fmt.Sprintf("'%c'", typ)
	}
	return fmt.Sprintf("'\\x%x'", typ)
}

func unknownCode(typ rune, typeName string) error {
	return valueError("Unknown format code %s for object of type '%s'", quoteCode(typ), typeName)
}

// fillAlign returns the fill and alignment that apply for a value whose
// default alignment is def: '0' before the width pads with zeros and,
// for numbers (def '>'), between the sign and the digits.
func (s Spec) fillAlign(def byte) (rune, byte) {
	fill, align := s.Fill, s.Align
	if s.ZeroPad {
		fill = '0'
	}
	if align == 0 {
		align = def
		if s.ZeroPad && def == '>' {
			align = '='
		}
	}
	return fill, align
}

// runeLen is a Python str's len: code points.
func runeLen(s string) int {
	return utf8.RuneCountInString(s)
}
