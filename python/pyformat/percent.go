package pyformat

import (
	"math"
	"math/big"
	"strings"
)

// Operand is one value on the right of printf-style %: the evaluator's
// Python object, which says what kind of value it is.
type Operand interface {
	// TypeName returns type(x).__name__, for error messages.
	TypeName() string
	// Str returns str(x), and Repr repr(x); either may raise.
	Str() (string, error)
	Repr() (string, error)
	// Int returns x when it is an int (True and False included) or has
	// __index__.
	Int() (*big.Int, bool)
	// Float returns x when it is a float.
	Float() (float64, bool)
	// Text returns x when it is a str.
	Text() (string, bool)
	// NotComputed returns how x prints when it is a number the caller
	// does not compute (a tensor's value): a numeric conversion shows that
	// text instead of failing or making a number up.
	NotComputed() (string, bool)
}

// Percent returns format % values, Python's printf-style formatting.
// args are the values: a tuple's items, or the one value that is not a
// tuple. mapping is non-nil when that one value is a mapping (any object
// but a tuple or str that has __getitem__, as in CPython): %(key)s looks
// key up through it, and an unused argument is then no error.
func Percent(format string, args []Operand, mapping func(key string) (Operand, error)) (string, error) {
	p := percentParser{format: []rune(format), args: args, mapping: mapping}
	var b strings.Builder
	for p.i < len(p.format) {
		r := p.format[p.i]
		p.i++
		if r != '%' {
			b.WriteRune(r)
			continue
		}
		text, err := p.conversion()
		if err != nil {
			return "", err
		}
		b.WriteString(text)
	}
	if p.next < len(p.args) && mapping == nil {
		return "", typeError("not all arguments converted during string formatting")
	}
	return b.String(), nil
}

// percentParser walks a % format; next is the argument to take next.
type percentParser struct {
	format  []rune
	i       int
	args    []Operand
	next    int
	mapping func(key string) (Operand, error)
}

// directive is one parsed conversion: its flags, width and precision.
type directive struct {
	left, sign, blank, alt, zero bool
	width, prec                  int
	typ                          rune
}

func (p *percentParser) atEnd() bool { return p.i >= len(p.format) }

func (p *percentParser) peek() rune { return p.format[p.i] }

func (p *percentParser) arg() (Operand, error) {
	if p.next >= len(p.args) {
		return nil, typeError("not enough arguments for format string")
	}
	p.next++
	return p.args[p.next-1], nil
}

// conversion formats one directive; p.i is just past its '%'.
func (p *percentParser) conversion() (string, error) {
	if !p.atEnd() && p.peek() == '%' {
		p.i++
		return "%", nil
	}
	if err := p.key(); err != nil {
		return "", err
	}
	d, err := p.directive()
	if err != nil {
		return "", err
	}
	v, err := p.arg()
	if err != nil {
		return "", err
	}
	return d.format(v, p.i-1)
}

// key reads a %(key) and makes its value the arguments that follow.
func (p *percentParser) key() error {
	if p.atEnd() || p.peek() != '(' {
		return nil
	}
	if p.mapping == nil {
		return typeError("format requires a mapping")
	}
	p.i++
	start, depth := p.i, 1
	for ; p.i < len(p.format); p.i++ {
		switch p.format[p.i] {
		case '(':
			depth++
		case ')':
			depth--
		}
		if depth == 0 {
			break
		}
	}
	if depth > 0 {
		return valueError("incomplete format key")
	}
	v, err := p.mapping(string(p.format[start:p.i]))
	if err != nil {
		return err
	}
	p.i++
	p.args, p.next = []Operand{v}, 0
	return nil
}

// directive reads flags, width, precision, a length modifier and the type.
func (p *percentParser) directive() (directive, error) {
	d := directive{width: -1, prec: -1}
flags:
	for ; !p.atEnd(); p.i++ {
		switch p.peek() {
		case '-':
			d.left = true
		case '+':
			d.sign = true
		case ' ':
			d.blank = true
		case '#':
			d.alt = true
		case '0':
			d.zero = true
		default:
			break flags
		}
	}
	w, given, err := p.number(math.MaxInt64, "width too big", "ssize_t")
	if err != nil {
		return d, err
	}
	if given {
		// A negative '*' width left-aligns, as the '-' flag.
		d.width = w
		if w < 0 {
			d.left, d.width = true, -w
		}
	}
	if !p.atEnd() && p.peek() == '.' {
		p.i++
		if d.prec, _, err = p.number(math.MaxInt32, "precision too big", "int"); err != nil {
			return d, err
		}
		d.prec = max(d.prec, 0)
	}
	if !p.atEnd() && strings.ContainsRune("hlL", p.peek()) {
		p.i++
	}
	if p.atEnd() {
		return d, valueError("incomplete format")
	}
	d.typ = p.peek()
	p.i++
	return d, nil
}

// number reads a width or precision: '*' (the next argument, an int
// that fits a C type) or decimal digits; given is false for neither.
func (p *percentParser) number(limit int, tooBig, cType string) (n int, given bool, err error) {
	if p.atEnd() {
		return 0, false, nil
	}
	if p.peek() == '*' {
		p.i++
		v, err := p.arg()
		if err != nil {
			return 0, false, err
		}
		x, ok := v.Int()
		if !ok {
			return 0, false, typeError("* wants int")
		}
		if !x.IsInt64() || x.Int64() > int64(limit) || x.Int64() < -int64(limit) {
			return 0, false, overflowError("Python int too large to convert to C %s", cType)
		}
		return int(x.Int64()), true, nil
	}
	for ; !p.atEnd() && p.peek() >= '0' && p.peek() <= '9'; p.i++ {
		c := int(p.peek() - '0')
		if n > (limit-c)/10 {
			return 0, false, valueError("%s", tooBig)
		}
		n, given = n*10+c, true
	}
	return n, given, nil
}
