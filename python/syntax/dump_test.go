package syntax

import (
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// dump writes a tree in the canonical form of testdata/astdump.py, so
// that our tree and CPython's compare as text.
func dump(m *Module) string {
	var b strings.Builder
	dumpValue(&b, reflect.ValueOf(m), 0)
	return b.String()
}

// pyClass maps our type names to CPython's where they differ.
var pyClass = map[string]string{
	"ExprStmt": "Expr", "Arguments": "arguments", "Arg": "arg", "Keyword": "keyword",
	"Alias": "alias", "WithItem": "withitem", "Comprehension": "comprehension",
}

var (
	stmtType = reflect.TypeOf((*Stmt)(nil)).Elem()
	nodeType = reflect.TypeOf(Node{})
)

func dumpValue(b *strings.Builder, v reflect.Value, depth int) {
	switch v.Kind() {
	case reflect.Interface:
		if v.IsNil() {
			b.WriteString("None")
			return
		}
		dumpValue(b, v.Elem(), depth)
	case reflect.Pointer:
		if v.IsNil() {
			b.WriteString("None")
			return
		}
		dumpStruct(b, v.Elem(), depth)
	case reflect.Slice:
		dumpSlice(b, v, depth)
	case reflect.String:
		if v.Len() == 0 {
			b.WriteString("None") // an optional name that is absent
			return
		}
		b.WriteString(pyStrRepr(v.String()))
	case reflect.Bool:
		b.WriteString(map[bool]string{true: "1", false: "0"}[v.Bool()])
	case reflect.Int:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint8: // an operator or a context
		b.WriteString(v.Interface().(fmt.Stringer).String())
	default:
		panic("dump: unexpected " + v.Type().String())
	}
}

func dumpSlice(b *strings.Builder, v reflect.Value, depth int) {
	if v.Type().Elem() == stmtType {
		b.WriteString("[")
		for i := 0; i < v.Len(); i++ {
			b.WriteString("\n" + strings.Repeat("  ", depth+1))
			dumpValue(b, v.Index(i), depth+1)
		}
		if v.Len() > 0 {
			b.WriteString("\n" + strings.Repeat("  ", depth))
		}
		b.WriteString("]")
		return
	}
	b.WriteString("[")
	for i := 0; i < v.Len(); i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		dumpValue(b, v.Index(i), depth)
	}
	b.WriteString("]")
}

func dumpStruct(b *strings.Builder, v reflect.Value, depth int) {
	t := v.Type()
	name := t.Name()
	if c, ok := pyClass[name]; ok {
		name = c
	}
	b.WriteString(name + "(")
	n := 0
	var node *Node
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		switch {
		case f.Type == nodeType:
			nd := v.Field(i).Interface().(Node)
			node = &nd
			continue
		case f.Name == "Scope", f.Name == "Deferred": // set by Resolve, not CPython's
			continue
		}
		if n > 0 {
			b.WriteString(", ")
		}
		n++
		b.WriteString(snake(f.Name) + "=")
		if c, ok := v.Addr().Interface().(*Constant); ok && f.Name == "Value" {
			b.WriteString(pyConstRepr(c.Value))
			continue
		}
		dumpValue(b, v.Field(i), depth)
	}
	b.WriteString(")")
	if node != nil && name != "Module" {
		fmt.Fprintf(b, "@%d:%d-%d:%d", node.Start.Line, node.Start.Col, node.End.Line, node.End.Col)
	}
}

// snake turns a Go field name into CPython's: DecoratorList is
// decorator_list.
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// pyConstRepr is Python's repr of a Constant's value.
func pyConstRepr(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		return map[bool]string{true: "True", false: "False"}[v]
	case int64:
		return strconv.FormatInt(v, 10)
	case *big.Int:
		return v.String()
	case float64:
		return pyFloatRepr(v, true)
	case complex128:
		return pyFloatRepr(imag(v), false) + "j"
	case string:
		return pyStrRepr(v)
	case Bytes:
		return pyBytesRepr(v)
	case Ellipsis:
		return "Ellipsis"
	}
	return fmt.Sprintf("<%T>", v)
}

// pyFloatRepr is Python's repr of a float (its shortest round-trip
// digits, in exponent form below 1e-4 and from 1e16); addDot adds ".0"
// to an integral value, as float's repr does and complex's does not.
func pyFloatRepr(f float64, addDot bool) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, exp, _ := strings.Cut(e, "e")
	x, _ := strconv.Atoi(exp)
	digits := strings.Replace(mant, ".", "", 1)
	if x < -4 || x >= 16 {
		sign := "+"
		if x < 0 {
			sign, x = "-", -x
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, x)
	}
	var s string
	switch {
	case x < 0:
		s = "0." + strings.Repeat("0", -x-1) + digits
	case len(digits) <= x+1:
		s = digits + strings.Repeat("0", x+1-len(digits))
		if addDot {
			s += ".0"
		}
	default:
		s = digits[:x+1] + "." + digits[x+1:]
	}
	return s
}

// pyStrRepr is Python's repr of a str held as WTF-8 (see unescape).
func pyStrRepr(s string) string {
	quote := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 3 || size == 1 && r == utf8.RuneError && i+2 < len(s) && s[i] == 0xED {
			r, size = rune(s[i]&0x0F)<<12|rune(s[i+1]&0x3F)<<6|rune(s[i+2]&0x3F), 3 // a surrogate
		}
		i += size
		switch {
		case r == '\\' || r == rune(quote):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x100 && !unicode.IsPrint(r) || 0xD800 <= r && r <= 0xDFFF:
			if r < 0x100 {
				fmt.Fprintf(&b, `\x%02x`, r)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		case !unicode.IsPrint(r):
			if r < 0x10000 {
				fmt.Fprintf(&b, `\u%04x`, r)
			} else {
				fmt.Fprintf(&b, `\U%08x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// pyBytesRepr is Python's repr of a bytes value.
func pyBytesRepr(v []byte) string {
	quote := byte('\'')
	if strings.IndexByte(string(v), '\'') >= 0 && strings.IndexByte(string(v), '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.WriteString("b")
	b.WriteByte(quote)
	for _, c := range v {
		switch {
		case c == '\\' || c == quote:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c < ' ' || c >= 0x7F:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(quote)
	return b.String()
}
