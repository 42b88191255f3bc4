package eval

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/pyformat"
)

// write prints s to Stdout.
func (in *Interp) write(s string) { fmt.Fprint(in.Stdout, s) }

// ReprOf is repr(v), or a placeholder when repr raises (for messages).
func (in *Interp) ReprOf(v Value) string { return in.orPlaceholder(in.Repr(v))("<repr failed>") }

// StrOf is str(v), or a placeholder when str raises.
func (in *Interp) StrOf(v Value) string { return in.orPlaceholder(in.Str(v))("<str failed>") }

// orPlaceholder gives s, or (the error dropped) the placeholder.
func (in *Interp) orPlaceholder(s string, err error) func(placeholder string) string {
	return func(placeholder string) string {
		if err != nil {
			in.Drop(err)
			return placeholder
		}
		return s
	}
}

// addr is the made-up address repr shows for an object: stable for its
// life, distinct between live objects.
func (in *Interp) addr(o Object) string {
	id, ok := in.ids[o]
	if !ok {
		in.nextID++
		id = in.nextID
		in.ids[o] = id
	}
	return fmt.Sprintf("0x7f00%08x", id*16)
}

// callStr calls the method f of v, which must return a str; notStr is
// the TypeError's text otherwise (its %s the type returned).
func (in *Interp) callStr(f, v Value, args []Value, notStr string) (string, error) {
	r, err := in.callWithSelf(f, v, args, nil)
	if err != nil {
		return "", err
	}
	s, ok := asStr(r)
	in.Decref(r)
	if !ok {
		return "", in.typeError(notStr, TypeOf(r).Name)
	}
	return s, nil
}

// Repr is repr(v).
func (in *Interp) Repr(v Value) (string, error) {
	v = plain(v, "__repr__")
	switch x := v.(type) {
	case NoneType:
		return "None", nil
	case bool:
		if x {
			return "True", nil
		}
		return "False", nil
	case int64:
		return fmt.Sprint(x), nil
	case *big.Int:
		s, err := pyformat.IntString(x)
		return s, in.pyErr(err)
	case float64:
		return pyformat.ReprFloat(x), nil
	case complex128:
		return fmt.Sprintf("(%s%+gj)", pyformat.ReprFloat(real(x)), imag(x)), nil
	case string:
		return pyformat.ReprStr(x), nil
	case Bytes:
		return pyformat.ReprBytes([]byte(x)), nil
	case EllipsisType:
		return "Ellipsis", nil
	case NotImplementedType:
		return "NotImplemented", nil
	case Unknown:
		return "<not computed: " + x.What + ">", nil
	case *Range:
		if x.Step == 1 {
			return fmt.Sprintf("range(%d, %d)", x.Start, x.Stop), nil
		}
		return fmt.Sprintf("range(%d, %d, %d)", x.Start, x.Stop, x.Step), nil
	}
	o := v.(Object)
	if in.reprActive[o] {
		switch o.(type) {
		case *List:
			return "[...]", nil
		case *Dict:
			return "{...}", nil
		}
		return "...", nil
	}
	if f := TypeOf(v).lookup("__repr__"); f != nil && f != objectRepr {
		return in.callStr(f, v, nil, "__repr__ returned non-string (type %s)")
	}
	in.reprActive[o] = true
	defer delete(in.reprActive, o)
	switch x := o.(type) {
	case *List:
		return in.reprItems("[", x.items, "]")
	case *Tuple:
		if len(x.items) == 1 {
			return in.reprItems("(", x.items, ",)")
		}
		return in.reprItems("(", x.items, ")")
	case *Set:
		if x.d.n == 0 {
			return TypeOf(x).Name + "()", nil
		}
		s, err := in.reprItems("{", x.d.keys(), "}")
		if x.frozen {
			s = "frozenset(" + s + ")"
		}
		return s, err
	case *Dict:
		var b strings.Builder
		b.WriteString("{")
		var err error
		first := true
		x.Items(func(k, val Value) bool {
			if !first {
				b.WriteString(", ")
			}
			first = false
			var ks, vs string
			if ks, err = in.Repr(k); err != nil {
				return false
			}
			if vs, err = in.Repr(val); err != nil {
				return false
			}
			b.WriteString(ks + ": " + vs)
			return true
		})
		b.WriteString("}")
		return b.String(), err
	case *dictView:
		items, err := in.collect(x)
		if err != nil {
			return "", err
		}
		defer in.decrefAll(items)
		s, err := in.reprItems("[", items, "]")
		return TypeOf(x).Name + "(" + s + ")", err
	case *Class:
		return "<class '" + x.QualName() + "'>", nil
	case *Function:
		return "<function " + x.QualName + " at " + in.addr(x) + ">", nil
	case *Builtin:
		if x.Self != nil {
			return "<built-in method " + x.Name + " of " + TypeOf(x.Self).Name + " object at " + in.addr(x) + ">", nil
		}
		return "<built-in function " + x.Name + ">", nil
	case *Method:
		name := "?"
		if f, ok := x.Fn.(*Function); ok {
			name = f.QualName
		}
		s, err := in.Repr(x.Self)
		return "<bound method " + name + " of " + s + ">", err
	case *ModuleObj:
		return "<module '" + x.Name + "'>", nil
	case *Generator:
		return "<generator object " + x.name + " at " + in.addr(x) + ">", nil
	case *SliceObj:
		return in.reprItems("slice(", []Value{x.Start, x.Stop, x.Step}, ")")
	case *Instance:
		if isException(x.cls) {
			r, err := in.call(baseExcRepr, []Value{x}, nil)
			if err != nil {
				return "", err
			}
			s, _ := r.(string)
			return s, nil
		}
	}
	return "<" + TypeOf(v).QualName() + " object at " + in.addr(o) + ">", nil
}

func (in *Interp) reprItems(open string, items []Value, close string) (string, error) {
	parts := make([]string, len(items))
	for i, x := range items {
		s, err := in.Repr(x)
		if err != nil {
			return "", err
		}
		parts[i] = s
	}
	return open + strings.Join(parts, ", ") + close, nil
}

// Str is str(v).
func (in *Interp) Str(v Value) (string, error) {
	if o, ok := v.(*Instance); ok && o.base != nil {
		if _, isStr := o.base.(string); isStr {
			v = plain(v, "__str__")
		} else {
			v = plain(v, "__str__", "__repr__")
		}
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case Unknown:
		return "<not computed: " + x.What + ">", nil
	case *Instance:
		if isException(x.cls) {
			if f := x.cls.lookup("__str__"); f == baseExcStr {
				return in.defaultExcStr(x), nil
			}
		}
	}
	if _, ok := v.(Object); ok {
		if f := TypeOf(v).lookup("__str__"); f != nil && f != objectStr {
			return in.callStr(f, v, nil, "__str__ returned non-string (type %s)")
		}
	}
	return in.Repr(v)
}

// Format is format(v, spec).
func (in *Interp) Format(v Value, spec string) (string, error) {
	if p := plain(v, "__format__"); valueInstance(v) && p != v {
		if spec == "" {
			return in.Str(v)
		}
		v = p
	}
	var s string
	var err error
	switch x := v.(type) {
	case bool:
		s, err = pyformat.FormatBool(x, spec)
	case int64:
		s, err = pyformat.FormatInt(big.NewInt(x), spec)
	case *big.Int:
		s, err = pyformat.FormatInt(x, spec)
	case float64:
		s, err = pyformat.FormatFloat(x, spec)
	case string:
		s, err = pyformat.FormatStr(x, spec)
	case Unknown:
		return "<not computed: " + x.What + ">", nil
	default:
		if f := TypeOf(v).lookup("__format__"); f != nil && f != objectFormat {
			return in.callStr(f, v, []Value{spec}, "__format__ must return a str, not %s")
		}
		if spec != "" {
			return "", in.typeError("unsupported format string passed to %s.__format__", TypeOf(v).Name)
		}
		return in.Str(v)
	}
	return s, in.pyErr(err)
}

// operand is a value as printf-style formatting sees it.
type operand struct {
	in *Interp
	v  Value
}

func (o operand) TypeName() string      { return TypeOf(o.v).Name }
func (o operand) Str() (string, error)  { return o.in.Str(o.v) }
func (o operand) Repr() (string, error) { return o.in.Repr(o.v) }
func (o operand) Int() (*big.Int, bool) { return bigInt(o.v) }
func (o operand) Float() (float64, bool) {
	f, ok := o.dunderFloat().(float64)
	return f, ok
}
func (o operand) Text() (string, bool) { return asStr(o.v) }
func (o operand) NotComputed() (string, bool) {
	if u, ok := o.dunderFloat().(Unknown); ok {
		return "<not computed: " + u.What + ">", true
	}
	return "", false
}

// dunderFloat is the operand as %f reads it: a float or Unknown as it
// is, else what its class's __float__ returns (nil when it has none, or
// it fails: the conversion's own TypeError follows).
func (o operand) dunderFloat() Value {
	switch o.v.(type) {
	case float64, Unknown:
		return o.v
	}
	f := TypeOf(o.v).lookup("__float__")
	if f == nil {
		return nil
	}
	r, err := o.in.callWithSelf(f, o.v, nil, nil)
	if err != nil {
		o.in.Drop(err)
		return nil
	}
	return r
}

// percent is format % args.
func (in *Interp) percent(format string, args Value) (string, error) {
	var ops []pyformat.Operand
	var mapping func(string) (pyformat.Operand, error)
	switch a := args.(type) {
	case *Tuple:
		for _, x := range a.items {
			ops = append(ops, operand{in, x})
		}
	case *Dict:
		mapping = func(key string) (pyformat.Operand, error) {
			v, ok := a.getStr(key)
			if !ok {
				return nil, in.raiseInst(in.NewException(KeyErrorType, key))
			}
			return operand{in, v}, nil
		}
		ops = []pyformat.Operand{operand{in, a}}
	default:
		ops = []pyformat.Operand{operand{in, a}}
	}
	s, err := pyformat.Percent(format, ops, mapping)
	return s, in.pyErr(err)
}

var objectRepr, objectStr, objectFormat, baseExcRepr *Builtin

func init() {
	objectRepr = NewBuiltin("__repr__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.slotArgs("__repr__", args, kw, 0); err != nil {
			return nil, err
		}
		o, ok := self.(Object)
		if !ok {
			return in.Repr(self)
		}
		return "<" + TypeOf(self).QualName() + " object at " + in.addr(o) + ">", nil
	})
	objectStr = NewBuiltin("__str__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.slotArgs("__str__", args, kw, 0); err != nil {
			return nil, err
		}
		return in.Repr(self)
	})
	objectFormat = NewBuiltin("__format__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		owner := "object" // the built-in types' own __format__ bear their name
		if c := TypeOf(self); c.Native {
			owner = c.Name
		}
		var spec string
		if err := in.UnpackArgs(owner+".__format__", args, kw, "format_spec", &spec, "/"); err != nil {
			return nil, err
		}
		if spec != "" {
			return nil, in.typeError("unsupported format string passed to %s.__format__", TypeOf(self).Name)
		}
		return in.Str(self)
	})
	for _, b := range []*Builtin{objectRepr, objectStr, objectFormat} {
		ObjectType.SetMethod(b)
	}
	baseExcRepr = BaseExceptionType.Dict.entries[BaseExceptionType.Dict.index[hashKey{kind: keyStr, s: "__repr__"}]].val.(*Builtin)
}

func itoa(n int64) string {
	s, _ := pyformat.IntString(bigOf(n))
	return s
}
