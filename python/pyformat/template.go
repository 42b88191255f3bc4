package pyformat

import (
	"fmt"
	"math"
	"strings"
)

// A Piece is one part of a str.format template: literal text, then a
// replacement field or none.
type Piece struct {
	Literal string
	Field   *Field // nil when none follows
}

// A Field is a replacement field, {name!conversion:spec}. Rendering it
// is: look up the argument (Index, or Keyword), follow Path, raise Err
// if set, apply Conversion, render Spec (its fields are nested fields)
// and raise SpecErr if set, then format the value with that spec. That
// is CPython's order, so the same error comes first.
type Field struct {
	Index      int        // the positional argument, automatic or written; when Keyword is ""
	Keyword    string     // the keyword argument; "" for a positional one
	Path       []Accessor // the .attr and [key] after the name
	Err        error      // a malformed rest of the name, or an unknown conversion
	Conversion rune       // 'r', 's', 'a', or 0 for none (another only with Err set)
	Spec       []Piece    // the format spec
	SpecErr    error      // an error in the spec, after Spec's pieces
}

// An Accessor is one .attr or [key] after a field's first name.
type Accessor struct {
	Attr    bool   // .name rather than [key]
	Name    string // the attribute's name, or the key's text
	IsIndex bool   // a [key] of decimal digits, an int key
	Index   int    // the int key, when IsIndex
}

// ParseFormatString parses a str.format template. On an error it
// returns the pieces before it as well: CPython renders those first, so
// their own lookup errors come first. A field whose Err or SpecErr is
// set is the last piece.
func ParseFormatString(s string) ([]Piece, error) {
	return (&numbering{}).parse([]rune(s), 2)
}

// numbering is the automatic ({}) or manual ({0}) numbering state that
// a template and its nested specs share.
type numbering struct {
	auto, manual bool
	next         int
}

// parse parses a template at the given nesting depth (CPython allows a
// spec's fields, but no fields in their specs).
func (n *numbering) parse(r []rune, depth int) ([]Piece, error) {
	var pieces []Piece
	var lit strings.Builder
	for i := 0; i < len(r); {
		c := r[i]
		i++
		switch {
		case c != '{' && c != '}':
			lit.WriteRune(c)
			continue
		case i < len(r) && r[i] == c:
			lit.WriteRune(c)
			i++
			continue
		case c == '}':
			return pieces, valueError("Single '}' encountered in format string")
		case i == len(r):
			return pieces, valueError("Single '{' encountered in format string")
		}
		f, end, err := n.field(r, i, depth)
		if err != nil {
			return pieces, err
		}
		pieces = append(pieces, Piece{Literal: lit.String(), Field: f})
		lit.Reset()
		if f.Err != nil || f.SpecErr != nil {
			return pieces, nil
		}
		i = end
	}
	if lit.Len() > 0 {
		pieces = append(pieces, Piece{Literal: lit.String()})
	}
	return pieces, nil
}

// field parses the field that starts at r[i], just past its '{', and
// returns it with the index just past its '}'.
func (n *numbering) field(r []rune, i, depth int) (*Field, int, error) {
	raw, end, err := splitField(r, i)
	if err != nil {
		return nil, 0, err
	}
	conv, spec := raw.conv, raw.spec
	f := &Field{Conversion: conv}
	first, rest := raw.name, []rune(nil)
	if k := indexAny(raw.name, ".["); k >= 0 {
		first, rest = raw.name[:k], raw.name[k:]
	}
	if err := n.resolve(f, first); err != nil {
		return nil, 0, err
	}
	f.Path, f.Err = parsePath(rest)
	if f.Err == nil && conv != 0 && conv != 'r' && conv != 's' && conv != 'a' {
		f.Err = valueError("Unknown conversion specifier %s", conversionText(conv))
	}
	switch {
	case !raw.expand:
		if len(spec) > 0 {
			f.Spec = []Piece{{Literal: string(spec)}}
		}
	case depth <= 1:
		f.SpecErr = valueError("Max string recursion exceeded")
	default:
		f.Spec, f.SpecErr = n.parse(spec, depth-1)
	}
	return f, end, nil
}

// rawField is a field's text split as CPython's parse_field splits it:
// its name, its conversion and its spec, which has fields to expand when
// it holds a '{'.
type rawField struct {
	name, spec []rune
	conv       rune
	expand     bool
}

// splitField splits the field that starts at r[i] and returns it with
// the index just past its '}'.
func splitField(r []rune, i int) (rawField, int, error) {
	var f rawField
	start := i
	var c rune
scan:
	for i < len(r) {
		c = r[i]
		i++
		switch c {
		case '{':
			return f, 0, valueError("unexpected '{' in field name")
		case '[':
			for i < len(r) && r[i] != ']' {
				i++
			}
		case '}', ':', '!':
			break scan
		}
	}
	f.name = r[start : i-1]
	if c != '!' && c != ':' {
		if c != '}' {
			return f, 0, valueError("expected '}' before end of string")
		}
		return f, i, nil
	}
	if c == '!' {
		if i == len(r) {
			return f, 0, valueError("end of string while looking for conversion specifier")
		}
		f.conv = r[i]
		i++
		if i < len(r) {
			c = r[i]
			i++
			if c == '}' {
				return f, i, nil
			}
			if c != ':' {
				return f, 0, valueError("expected ':' after conversion specifier")
			}
		}
	}
	start, count := i, 1
	for ; i < len(r); i++ {
		switch r[i] {
		case '{':
			f.expand = true
			count++
		case '}':
			count--
		}
		if count == 0 {
			f.spec = r[start:i]
			return f, i + 1, nil
		}
	}
	return f, 0, valueError("unmatched '{' in format spec")
}

// resolve sets the argument a field's first name refers to, numbering
// an empty name automatically.
func (n *numbering) resolve(f *Field, first []rune) error {
	index, isIndex, err := fieldInteger(first)
	if err != nil {
		return err
	}
	switch {
	case len(first) == 0:
		if n.manual {
			return valueError("cannot switch from manual field specification to automatic field numbering")
		}
		n.auto = true
		f.Index = n.next
		n.next++
	case isIndex:
		if n.auto {
			return valueError("cannot switch from automatic field numbering to manual field specification")
		}
		n.manual = true
		f.Index = index
	default:
		f.Keyword = string(first)
	}
	return nil
}

// fieldInteger reads a name of decimal digits as CPython's get_integer:
// the digits overflow with an error even when a letter follows.
func fieldInteger(r []rune) (int, bool, error) {
	v := 0
	for _, c := range r {
		d, ok := decimalValue(c)
		if !ok {
			return 0, false, nil
		}
		if v > (math.MaxInt64-d)/10 {
			return 0, false, valueError("Too many decimal digits in format string")
		}
		v = v*10 + d
	}
	return v, len(r) > 0, nil
}

// parsePath parses the .attr and [key] accessors after a field's first
// name, as far as they are well formed.
func parsePath(r []rune) ([]Accessor, error) {
	var path []Accessor
	for i := 0; i < len(r); {
		var a Accessor
		c := r[i]
		i++
		switch c {
		case '.':
			start := i
			for i < len(r) && r[i] != '.' && r[i] != '[' {
				i++
			}
			a = Accessor{Attr: true, Name: string(r[start:i])}
		case '[':
			start := i
			for i < len(r) && r[i] != ']' {
				i++
			}
			if i == len(r) {
				return path, valueError("Missing ']' in format string")
			}
			key := r[start:i]
			i++
			index, isIndex, err := fieldInteger(key)
			if err != nil {
				return path, err
			}
			a = Accessor{Name: string(key), IsIndex: isIndex, Index: index}
		default:
			return path, valueError("Only '.' or '[' may follow ']' in format field specifier")
		}
		if a.Name == "" {
			return path, valueError("Empty attribute in format string")
		}
		path = append(path, a)
	}
	return path, nil
}

func indexAny(r []rune, chars string) int {
	for i, c := range r {
		if strings.ContainsRune(chars, c) {
			return i
		}
	}
	return -1
}

// conversionText shows an unknown conversion as CPython does: the
// character if printable ASCII, else \x and its hex code.
func conversionText(c rune) string {
	if c > 32 && c < 127 {
		return string(c)
	}
	return fmt.Sprintf("\\x%x", c)
}
