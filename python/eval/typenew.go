package eval

import (
	"math"
	"math/big"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/pyformat"
	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// Operator kinds the builtins use.
const (
	addOp      = syntax.Add
	modOp      = syntax.Mod
	powOp      = syntax.Pow
	floorDivOp = syntax.FloorDiv
	ltOp       = syntax.Lt
	multOp     = syntax.Mult
	gtOp       = syntax.Gt
)

// The constructors of the built-in types: int(x), list(x)...
func init() {
	IntType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		a, err := in.ArgSpec("int", args, kw, 0, "x", "base")
		if err != nil {
			return nil, err
		}
		if a[0] == nil {
			return int64(0), nil
		}
		return in.toInt(a[0], a[1])
	}
	BoolType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("bool", args, kw, 0, 1); err != nil {
			return nil, err
		}
		if len(args) == 0 {
			return false, nil
		}
		return in.Truth(args[0])
	}
	FloatType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("float", args, kw, 0, 1); err != nil {
			return nil, err
		}
		if len(args) == 0 {
			return 0.0, nil
		}
		switch x := plain(args[0], "__float__").(type) {
		case float64, Unknown:
			return x, nil
		case string:
			f, err := pyformat.ParseFloat(x)
			return f, in.pyErr(err)
		}
		if b, ok := bigInt(plain(args[0], "__float__")); ok {
			f, err := pyformat.IntToFloat(b)
			return f, in.pyErr(err)
		}
		if f := TypeOf(args[0]).lookup("__float__"); f != nil {
			return in.callWithSelf(f, args[0], nil, nil)
		}
		return nil, in.typeError("float() argument must be a string or a real number, not '%s'", TypeOf(args[0]).Name)
	}
	StrType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		a, err := in.ArgSpec("str", args, kw, 0, "object")
		if err != nil {
			return nil, err
		}
		if a[0] == nil {
			return "", nil
		}
		return in.Str(a[0])
	}
	ListType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("list", args, kw, 0, 1); err != nil {
			return nil, err
		}
		if len(args) == 0 {
			return in.NewList(nil), nil
		}
		items, err := in.collect(args[0])
		if err != nil {
			return nil, err
		}
		return in.NewList(items), nil
	}
	TupleType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("tuple", args, kw, 0, 1); err != nil {
			return nil, err
		}
		if len(args) == 0 {
			return in.NewTuple(nil), nil
		}
		if t, ok := args[0].(*Tuple); ok && t.cls == nil {
			return newRef(t), nil
		}
		items, err := in.collect(args[0])
		if err != nil {
			return nil, err
		}
		return in.NewTuple(items), nil
	}
	DictType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) > 1 {
			return nil, in.typeError("dict expected at most 1 argument, got %d", len(args))
		}
		d := in.NewDict()
		if len(args) == 1 {
			if err := in.dictUpdate(d, args[0]); err != nil {
				in.Decref(d)
				return nil, err
			}
		}
		for _, k := range kw {
			in.SetStr(d, k.Name, k.Value)
		}
		return d, nil
	}
	setNew := func(frozen bool) func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		return func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs("set", args, kw, 0, 1); err != nil {
				return nil, err
			}
			s := in.newSet()
			s.frozen = frozen
			if len(args) == 1 {
				if err := in.forEach(args[0], func(v Value) error { return in.setAdd(s, v) }); err != nil {
					in.Decref(s)
					return nil, err
				}
			}
			return s, nil
		}
	}
	SetType.New = setNew(false)
	FrozenSetType.New = setNew(true)
	RangeType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("range", args, kw, 1, 3); err != nil {
			return nil, err
		}
		n := make([]int64, len(args))
		for i, a := range args {
			v, err := in.Index(a)
			if err != nil {
				return nil, err
			}
			n[i] = v
		}
		r := &Range{Step: 1}
		switch len(n) {
		case 1:
			r.Stop = n[0]
		default:
			r.Start, r.Stop = n[0], n[1]
			if len(n) == 3 {
				if n[2] == 0 {
					return nil, in.Raise(ValueErrorType, "range() arg 3 must not be zero")
				}
				r.Step = n[2]
			}
		}
		return r, nil
	}
	SliceType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("slice", args, kw, 1, 3); err != nil {
			return nil, err
		}
		s := &SliceObj{Start: None, Stop: None, Step: None}
		switch len(args) {
		case 1:
			s.Stop = newRef(args[0])
		default:
			s.Start, s.Stop = newRef(args[0]), newRef(args[1])
			if len(args) == 3 {
				s.Step = newRef(args[2])
			}
		}
		in.track(s)
		return s, nil
	}
	ObjectType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("object", args, kw, 0, 0); err != nil {
			return nil, err
		}
		o := &Instance{cls: ObjectType}
		in.track(o)
		return o, nil
	}
	TypeType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) == 1 {
			return newRef(TypeOf(args[0])), nil
		}
		return nil, in.Raise(NotImplementedErrType, "this tool makes classes with the class statement, not type(name, bases, dict)")
	}
	PropertyType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		a, err := in.ArgSpec("property", args, kw, 0, "fget", "fset", "fdel", "doc")
		if err != nil {
			return nil, err
		}
		p := &Property{}
		if a[0] != nil && a[0] != None {
			p.Get = newRef(a[0])
		}
		if a[1] != nil && a[1] != None {
			p.Set = newRef(a[1])
		}
		in.track(p)
		return p, nil
	}
	PropertyType.SetMethod(NewBuiltin("setter", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("setter", args, kw, 1, 1); err != nil {
			return nil, err
		}
		old := self.(*Property)
		p := &Property{Set: newRef(args[0])}
		if old.Get != nil {
			p.Get = newRef(old.Get)
		}
		in.track(p)
		return p, nil
	}))
	wrap := func(class bool) func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		return func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs("staticmethod", args, kw, 1, 1); err != nil {
				return nil, err
			}
			w := &wrapper{fn: newRef(args[0]), class: class}
			in.track(w)
			return w, nil
		}
	}
	StaticMethodType.New = wrap(false)
	ClassMethodType.New = wrap(true)
	SuperType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		var cls *Class
		var self Value
		switch len(args) {
		case 2:
			c, ok := args[0].(*Class)
			if !ok {
				return nil, in.typeError("super() argument 1 must be a type, not %s", TypeOf(args[0]).Name)
			}
			cls, self = c, args[1]
		case 0:
			fr := in.frame
			if fr == nil || fr.code == nil || fr.fn == nil || len(fr.fn.params.Args)+len(fr.fn.params.Posonlyargs) == 0 {
				return nil, in.Raise(RuntimeErrorType, "super(): no arguments")
			}
			i, ok := fr.code.free["__class__"]
			if !ok {
				return nil, in.Raise(RuntimeErrorType, "super(): __class__ cell not found")
			}
			c, ok := fr.closure[i].V.(*Class)
			if !ok {
				return nil, in.Raise(RuntimeErrorType, "super(): empty __class__ cell")
			}
			self = fr.locals[0]
			if cell, ok := self.(*Cell); ok && fr.code.cells[fr.code.scope.Locals[0]] {
				self = cell.V
			}
			if self == nil {
				return nil, in.Raise(RuntimeErrorType, "super(): arg[0] deleted")
			}
			cls = c
		default:
			return nil, in.typeError("super() takes 0 or 2 arguments")
		}
		s := &Super{Class: newRef(cls).(*Class), Self: newRef(self)}
		in.track(s)
		return s, nil
	}
}

// toInt is int(x[, base]).
func (in *Interp) toInt(x, base Value) (Value, error) {
	if base != nil {
		s, ok := x.(string)
		if !ok {
			return nil, in.typeError("int() can't convert non-string with explicit base")
		}
		b, err := in.Index(base)
		if err != nil {
			return nil, err
		}
		r, err := pyformat.ParseInt(s, int(b))
		if err != nil {
			return nil, in.pyErr(err)
		}
		return normInt(r), nil
	}
	switch v := plain(x, "__int__", "__index__").(type) {
	case int64:
		return v, nil
	case bool:
		if v {
			return int64(1), nil
		}
		return int64(0), nil
	case *big.Int:
		return v, nil
	case float64:
		if math.IsInf(v, 0) {
			return nil, in.Raise(OverflowErrorType, "cannot convert float infinity to integer")
		}
		if math.IsNaN(v) {
			return nil, in.Raise(ValueErrorType, "cannot convert float NaN to integer")
		}
		r, err := pyformat.FloatToInt(v)
		if err != nil {
			return nil, in.pyErr(err)
		}
		return normInt(r), nil
	case string:
		r, err := pyformat.ParseInt(strings.TrimSpace(v), 10)
		if err != nil {
			return nil, in.pyErr(err)
		}
		return normInt(r), nil
	case Unknown:
		return v, nil
	}
	for _, name := range []string{"__int__", "__index__"} {
		if f := TypeOf(x).lookup(name); f != nil {
			return in.callWithSelf(f, x, nil, nil)
		}
	}
	return nil, in.typeError("int() argument must be a string, a bytes-like object or a real number, not '%s'", TypeOf(x).Name)
}

// dictUpdate is d.update(src): a dict, or an iterable of pairs.
func (in *Interp) dictUpdate(d *Dict, src Value) error {
	if s, ok := plain(src, "__iter__").(*Dict); ok {
		var err error
		s.Items(func(k, v Value) bool {
			err = in.dictSet(d, k, v)
			return err == nil
		})
		return err
	}
	if keys, err := in.GetAttr(src, "keys"); err == nil {
		// a mapping: its keys(), each looked up in it
		ks, err := in.call(keys, nil, nil)
		in.Decref(keys)
		if err != nil {
			return err
		}
		defer in.Decref(ks)
		return in.forEach(ks, func(k Value) error {
			v, err := in.GetItem(src, k)
			if err != nil {
				return err
			}
			defer in.Decref(v)
			return in.dictSet(d, k, v)
		})
	} else if !Matches(err, AttributeErrorType) {
		return err
	} else {
		in.Drop(err)
	}
	return in.forEach(src, func(p Value) error {
		items, err := in.collect(p)
		if err != nil {
			return err
		}
		defer in.decrefAll(items)
		if len(items) != 2 {
			return in.Raise(ValueErrorType, "dictionary update sequence element has length %d; 2 is required", len(items))
		}
		return in.dictSet(d, items[0], items[1])
	})
}
