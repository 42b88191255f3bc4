package pyformat

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// pyValue is a Python value in the tests: it is the Operand of Percent
// and what the str.format renderer looks fields up in, and it travels to
// the CPython oracle as JSON.
type pyValue struct {
	kind  string // int, float, str, bool, list, tuple, dict
	i     *big.Int
	f     float64
	s     string
	b     bool
	items []pyValue
	keys  []string // a dict's keys, beside its items
}

func pyInt(i int64) pyValue        { return pyValue{kind: "int", i: big.NewInt(i)} }
func pyBig(i *big.Int) pyValue     { return pyValue{kind: "int", i: i} }
func pyFloat(f float64) pyValue    { return pyValue{kind: "float", f: f} }
func pyStr(s string) pyValue       { return pyValue{kind: "str", s: s} }
func pyBool(b bool) pyValue        { return pyValue{kind: "bool", b: b} }
func pyList(v ...pyValue) pyValue  { return pyValue{kind: "list", items: v} }
func pyTuple(v ...pyValue) pyValue { return pyValue{kind: "tuple", items: v} }

func pyDict(keys []string, items []pyValue) pyValue {
	return pyValue{kind: "dict", keys: keys, items: items}
}

func (v pyValue) MarshalJSON() ([]byte, error) {
	var x any
	switch v.kind {
	case "int":
		x = v.i.String()
	case "float":
		x = strconv.FormatFloat(v.f, 'x', -1, 64)
	case "str":
		x = v.s
	case "bool":
		x = v.b
	case "list", "tuple":
		x = v.items
	case "dict":
		pairs := make([][2]any, len(v.keys))
		for i, k := range v.keys {
			pairs[i] = [2]any{k, v.items[i]}
		}
		x = pairs
	}
	return json.Marshal(map[string]any{v.kind: x})
}

func (v pyValue) TypeName() string { return v.kind }

func (v pyValue) Str() (string, error) {
	switch v.kind {
	case "str":
		return v.s, nil
	case "bool":
		if v.b {
			return "True", nil
		}
		return "False", nil
	}
	return v.Repr()
}

func (v pyValue) Repr() (string, error) {
	switch v.kind {
	case "int":
		return IntString(v.i)
	case "float":
		return ReprFloat(v.f), nil
	case "str":
		return ReprStr(v.s), nil
	case "bool":
		return v.Str()
	}
	parts := make([]string, len(v.items))
	for i, item := range v.items {
		r, err := item.Repr()
		if err != nil {
			return "", err
		}
		if v.kind == "dict" {
			r = ReprStr(v.keys[i]) + ": " + r
		}
		parts[i] = r
	}
	inside := strings.Join(parts, ", ")
	switch v.kind {
	case "list":
		return "[" + inside + "]", nil
	case "dict":
		return "{" + inside + "}", nil
	}
	if len(parts) == 1 {
		inside += ","
	}
	return "(" + inside + ")", nil
}

func (v pyValue) Int() (*big.Int, bool) {
	switch v.kind {
	case "int":
		return v.i, true
	case "bool":
		if v.b {
			return big.NewInt(1), true
		}
		return big.NewInt(0), true
	}
	return nil, false
}

func (v pyValue) Float() (float64, bool) { return v.f, v.kind == "float" }

func (v pyValue) Text() (string, bool) { return v.s, v.kind == "str" }

func (v pyValue) NotComputed() (string, bool) { return "<not computed>", v.kind == "unknown" }

// format is format(v, spec).
func (v pyValue) format(spec string) (string, error) {
	switch v.kind {
	case "int":
		return FormatInt(v.i, spec)
	case "float":
		return FormatFloat(v.f, spec)
	case "str":
		return FormatStr(v.s, spec)
	case "bool":
		return FormatBool(v.b, spec)
	}
	if spec != "" {
		return "", &Error{"TypeError", fmt.Sprintf("unsupported format string passed to %s.__format__", v.kind)}
	}
	return v.Str()
}

// access is v.attr or v[key] for a str.format field's path: ints,
// floats and bools have .real, lists, dicts and strs items.
func (v pyValue) access(a Accessor) (pyValue, error) {
	switch {
	case a.Attr && a.Name == "real" && (v.kind == "int" || v.kind == "float"):
		return v, nil
	case a.Attr && a.Name == "real" && v.kind == "bool":
		x, _ := v.Int()
		return pyBig(x), nil
	case a.Attr:
		return v, &Error{"AttributeError", fmt.Sprintf("'%s' object has no attribute '%s'", v.kind, a.Name)}
	case v.kind == "list" && a.IsIndex:
		if a.Index >= len(v.items) {
			return v, &Error{"IndexError", "list index out of range"}
		}
		return v.items[a.Index], nil
	case v.kind == "list":
		return v, &Error{"TypeError", "list indices must be integers or slices, not str"}
	case v.kind == "dict" && !a.IsIndex:
		return v.lookup(a.Name)
	case v.kind == "dict":
		return v, &Error{"KeyError", strconv.Itoa(a.Index)}
	case v.kind == "str" && a.IsIndex:
		r := []rune(v.s)
		if a.Index >= len(r) {
			return v, &Error{"IndexError", "string index out of range"}
		}
		return pyStr(string(r[a.Index])), nil
	case v.kind == "str":
		return v, &Error{"TypeError", "string indices must be integers, not 'str'"}
	}
	return v, &Error{"TypeError", fmt.Sprintf("'%s' object is not subscriptable", v.kind)}
}

// lookup is a dict's v[key] for a str key.
func (v pyValue) lookup(key string) (pyValue, error) {
	for i, k := range v.keys {
		if k == key {
			return v.items[i], nil
		}
	}
	return v, &Error{"KeyError", ReprStr(key)}
}

// percent is fmt % v, the arguments passed as the evaluator passes them.
func percent(format string, v pyValue) (string, error) {
	switch v.kind {
	case "tuple":
		return Percent(format, operands(v.items), nil)
	case "dict", "list":
		return Percent(format, []Operand{v}, func(key string) (Operand, error) {
			if v.kind == "list" {
				return nil, &Error{"TypeError", "list indices must be integers or slices, not str"}
			}
			return v.lookup(key)
		})
	}
	return Percent(format, []Operand{v}, nil)
}

func operands(items []pyValue) []Operand {
	ops := make([]Operand, len(items))
	for i, item := range items {
		ops[i] = item
	}
	return ops
}

// strFormat is template.format(*args, **kwargs), rendered in CPython's
// order from ParseFormatString's pieces.
func strFormat(template string, args []pyValue, kwargs pyValue) (string, error) {
	pieces, err := ParseFormatString(template)
	return renderPieces(pieces, err, args, kwargs)
}

func renderPieces(pieces []Piece, err error, args []pyValue, kwargs pyValue) (string, error) {
	var b strings.Builder
	for _, p := range pieces {
		b.WriteString(p.Literal)
		if p.Field == nil {
			continue
		}
		s, err := renderField(p.Field, args, kwargs)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	return b.String(), err
}

func renderField(f *Field, args []pyValue, kwargs pyValue) (string, error) {
	var v pyValue
	var err error
	if f.Keyword != "" {
		if v, err = kwargs.lookup(f.Keyword); err != nil {
			return "", err
		}
	} else {
		if f.Index >= len(args) {
			return "", &Error{"IndexError", fmt.Sprintf("Replacement index %d out of range for positional args tuple", f.Index)}
		}
		v = args[f.Index]
	}
	for _, a := range f.Path {
		if v, err = v.access(a); err != nil {
			return "", err
		}
	}
	if f.Err != nil {
		return "", f.Err
	}
	var text string
	switch f.Conversion {
	case 's':
		text, err = v.Str()
	case 'r':
		text, err = v.Repr()
	case 'a':
		text, err = v.Repr()
		text = ASCII(text)
	}
	if err != nil {
		return "", err
	}
	if f.Conversion != 0 {
		v = pyStr(text)
	}
	spec, err := renderPieces(f.Spec, f.SpecErr, args, kwargs)
	if err != nil {
		return "", err
	}
	return v.format(spec)
}
