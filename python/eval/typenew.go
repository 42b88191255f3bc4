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
	IntType.New = newInt
	BoolType.New = newBool
	FloatType.New = newFloat
	StrType.New = newStr
	ListType.New = newList
	TupleType.New = newTuple
	DictType.New = newDict
	SetType.New = newSetOf(false)
	FrozenSetType.New = newSetOf(true)
	RangeType.New = newRange
	SliceType.New = newSlice
	ObjectType.New = newObject
	TypeType.New = newType
	PropertyType.New = newProperty
	PropertyType.SetMethod(NewBuiltin("setter", "", propertySetter))
	StaticMethodType.New = newMethodWrapper(false)
	ClassMethodType.New = newMethodWrapper(true)
	SuperType.New = newSuper
}

func newInt(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	var x, base Value
	if err := in.UnpackArgs("int", args, kw, "x?", &x, "/", "base?", &base); err != nil {
		return nil, err
	}
	if x == nil {
		return int64(0), nil
	}
	return in.toInt(x, base)
}

func newBool(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	t := false
	err := in.unpackExpected("bool", args, kw, "x?", &t, "/")
	return t, err
}

func newFloat(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	var x Value
	if err := in.unpackExpected("float", args, kw, "x?", &x, "/"); err != nil {
		return nil, err
	}
	if x == nil {
		return 0.0, nil
	}
	switch x := plain(x, "__float__").(type) {
	case float64, Unknown:
		return x, nil
	case string:
		f, err := pyformat.ParseFloat(x)
		return f, in.pyErr(err)
	}
	if b, ok := bigInt(plain(x, "__float__")); ok {
		f, err := pyformat.IntToFloat(b)
		return f, in.pyErr(err)
	}
	if f := TypeOf(x).lookup("__float__"); f != nil {
		return in.callWithSelf(f, x, nil, nil)
	}
	return nil, in.typeError("float() argument must be a string or a real number, not '%s'", TypeOf(x).Name)
}

func newStr(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	var obj Value
	encoding, errors := "", ""
	if err := in.UnpackArgs("str", args, kw, "object?", &obj, "encoding?", &encoding, "errors?", &errors); err != nil {
		return nil, err
	}
	if obj == nil {
		return "", nil
	}
	if encoding == "" && errors == "" && len(args) < 2 && Kwarg(kw, "encoding") == nil && Kwarg(kw, "errors") == nil {
		return in.Str(obj)
	}
	// str(b, encoding, errors) is b.decode(encoding, errors)
	switch b := obj.(type) {
	case Bytes:
		if encoding == "" {
			encoding = "utf-8"
		}
		if errors == "" {
			errors = "strict"
		}
		return in.decodeBytes(string(b), encoding, errors)
	case string:
		return nil, in.typeError("decoding str is not supported")
	}
	return nil, in.typeError("decoding to str: need a bytes-like object, %s found", TypeOf(obj).Name)
}

func newList(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	var iterable Value
	if err := in.unpackExpected("list", args, kw, "iterable?", &iterable, "/"); err != nil {
		return nil, err
	}
	var items []Value
	if iterable != nil {
		var err error
		if items, err = in.collect(iterable); err != nil {
			return nil, err
		}
	}
	l := in.NewList(items)
	in.counted(l) // list's vectorcall allocates with tp_alloc, not from the free list
	return l, nil
}

func newTuple(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	var iterable Value
	if err := in.unpackExpected("tuple", args, kw, "iterable?", &iterable, "/"); err != nil {
		return nil, err
	}
	if iterable == nil {
		return in.NewTuple(nil), nil
	}
	if t, ok := iterable.(*Tuple); ok && t.cls == nil {
		return newRef(t), nil
	}
	if _, ok := iterable.(*List); ok {
		items, _ := in.collect(iterable)
		return in.NewTuple(items), nil
	}
	// PySequence_Tuple: a tuple of the iterable's length hint (10 when it
	// gives none, as a generator), made before the items come and resized
	// to them, so that it leaves the free list of its first size and goes
	// back to that of its last
	hint, err := in.lengthHint(iterable, 10)
	if err != nil {
		return nil, err
	}
	t := in.noneTuple(int(hint)).(*Tuple)
	items, err := in.collect(iterable)
	if err != nil {
		in.Decref(t)
		return nil, err
	}
	return in.resize(t, items), nil
}

// resize is _PyTuple_Resize of t, made for a guessed length, to items
// (taken over): in place, or for none the empty tuple, t freed onto the
// free list of its first size.
func (in *Interp) resize(t *Tuple, items []Value) *Tuple {
	if len(items) == 0 {
		in.Decref(t)
		return in.NewTuple(nil)
	}
	t.items = items
	in.resized(t)
	return t
}

// NewTupleGuessed is tuple() of an iterable that gives no length (a
// generator, a map), as CPython's PySequence_Tuple makes it: a 10-tuple
// made before the items come, resized to them (items taken over).
func (in *Interp) NewTupleGuessed(items []Value) *Tuple {
	return in.resize(in.noneTuple(10).(*Tuple), items)
}

// lengthHint is PyObject_LengthHint(v, def): v's len() where it has one,
// else what its __length_hint__ says (a built-in list's or tuple's
// iterator: the items left), else def.
func (in *Interp) lengthHint(v Value, def int64) (int64, error) {
	switch x := plain(v, "__len__").(type) {
	case string, Bytes, *List, *Tuple, *Dict, *Set, *dictView, *Range:
		return in.Len(x)
	case *iterObj:
		switch s := x.src.(type) {
		case *List:
			return max(0, int64(len(s.items))-x.i), nil
		case *Tuple:
			return max(0, int64(len(s.items))-x.i), nil
		}
		return def, nil
	case *Generator:
		return def, nil
	}
	cls := TypeOf(v)
	if cls.lookup("__len__") != nil {
		return in.Len(v)
	}
	f := cls.lookup("__length_hint__")
	if f == nil {
		return def, nil
	}
	r, err := in.callWithSelf(f, v, nil, nil)
	if err != nil {
		return 0, err
	}
	defer in.Decref(r)
	if r == NotImplemented {
		return def, nil
	}
	n, err := in.Index(r)
	if err == nil && n < 0 {
		err = in.Raise(ValueErrorType, "__length_hint__() should return >= 0")
	}
	return n, err
}

func newDict(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	var other Value
	if err := in.unpackExpected("dict", args, nil, "other?", &other, "/"); err != nil {
		return nil, err
	}
	d := in.NewDict()
	in.counted(d) // dict_new allocates with tp_alloc, not from the free list
	if other != nil {
		if err := in.dictUpdate(d, other); err != nil {
			in.Decref(d)
			return nil, err
		}
	}
	for _, k := range kw {
		in.SetStr(d, k.Name, k.Value)
	}
	return d, nil
}

// newSetOf is set() or frozenset() (frozen).
func newSetOf(frozen bool) func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	name := "set"
	if frozen {
		name = "frozenset"
	}
	return func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		var iterable Value
		if err := in.unpackExpected(name, args, kw, "iterable?", &iterable, "/"); err != nil {
			return nil, err
		}
		s := in.newSet()
		s.frozen = frozen
		if iterable != nil {
			if err := in.forEach(iterable, func(v Value) error { return in.setAdd(s, v) }); err != nil {
				in.Decref(s)
				return nil, err
			}
		}
		return s, nil
	}
}

func newRange(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	var n [3]int64
	if err := in.unpackExpected("range", args, kw, "start", &n[0], "stop?", &n[1], "step?", &n[2], "/"); err != nil {
		return nil, err
	}
	switch len(args) {
	case 1:
		return &Range{Stop: n[0], Step: 1}, nil
	case 2:
		return &Range{Start: n[0], Stop: n[1], Step: 1}, nil
	}
	if n[2] == 0 {
		return nil, in.Raise(ValueErrorType, "range() arg 3 must not be zero")
	}
	return &Range{Start: n[0], Stop: n[1], Step: n[2]}, nil
}

func newSlice(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	var a [3]Value
	if err := in.unpackExpected("slice", args, kw, "start", &a[0], "stop?", &a[1], "step?", &a[2], "/"); err != nil {
		return nil, err
	}
	s := &SliceObj{Start: None, Stop: newRef(a[0]), Step: None}
	if len(args) > 1 {
		s.Start, s.Stop = newRef(a[0]), newRef(a[1])
	}
	if len(args) > 2 {
		s.Step = newRef(a[2])
	}
	in.track(s)
	return s, nil
}

func newObject(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	if len(args) > 0 || len(kw) > 0 {
		return nil, in.typeError("object() takes no arguments")
	}
	o := &Instance{cls: ObjectType}
	in.track(o)
	return o, nil
}

func newType(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	switch {
	case len(args) == 1 && len(kw) > 0:
		return nil, in.typeError("type() takes no keyword arguments")
	case len(args) == 1:
		return newRef(TypeOf(args[0])), nil
	case len(args) != 3:
		return nil, in.typeError("type() takes 1 or 3 arguments")
	}
	return nil, in.Refuse(NotImplementedErrType, "this tool makes classes with the class statement, not type(name, bases, dict)")
}

func newProperty(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	var get, set, del, doc Value
	if err := in.UnpackArgs("property", args, kw, "fget?", &get, "fset?", &set, "fdel?", &del, "doc?", &doc); err != nil {
		return nil, err
	}
	p := &Property{}
	if get != nil && get != None {
		p.Get = newRef(get)
	}
	if set != nil && set != None {
		p.Set = newRef(set)
	}
	in.track(p)
	return p, nil
}

// propertySetter is property.setter(f): a property with f as its setter.
func propertySetter(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var set Value
	if err := in.UnpackArgs("property.setter", args, kw, "fset", &set, "/"); err != nil {
		return nil, err
	}
	old := self.(*Property)
	p := &Property{Set: newRef(set)}
	if old.Get != nil {
		p.Get = newRef(old.Get)
	}
	in.track(p)
	return p, nil
}

// newMethodWrapper is staticmethod(f) or classmethod(f) (class).
func newMethodWrapper(class bool) func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	name := "staticmethod"
	if class {
		name = "classmethod"
	}
	return func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		var fn Value
		if err := in.unpackExpected(name, args, kw, "function", &fn, "/"); err != nil {
			return nil, err
		}
		w := &wrapper{fn: newRef(fn), class: class}
		in.track(w)
		return w, nil
	}
}

func newSuper(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	cls, self, err := in.superArgs(args, kw)
	if err != nil {
		return nil, err
	}
	s := &Super{Class: newRef(cls).(*Class), Self: newRef(self)}
	in.track(s)
	return s, nil
}

// superArgs are the class and object super(*args) looks up from (the
// caller's __class__ cell and first argument for super()), borrowed.
func (in *Interp) superArgs(args []Value, kw []KeywordArg) (cls *Class, self Value, err error) {
	// CPython words super's count with its parentheses
	if err := in.noKw("super", kw); err != nil {
		return nil, nil, err
	}
	if err := in.unpackExpected("super()", args, nil, "type?", new(Value), "object_or_type?", new(Value), "/"); err != nil {
		return nil, nil, err
	}
	switch len(args) {
	case 1, 2:
		c, ok := args[0].(*Class)
		if !ok {
			return nil, nil, in.typeError("super() argument 1 must be a type, not %s", TypeOf(args[0]).Name)
		}
		if len(args) == 1 {
			return nil, nil, in.Refuse(NotImplementedErrType, "this tool does not model an unbound super object (super(%s) without its second argument)", c.Name)
		}
		cls, self = c, args[1]
		if o, isClass := self.(*Class); !TypeOf(self).IsSubclass(cls) && (!isClass || !o.IsSubclass(cls)) {
			return nil, nil, in.typeError("super(type, obj): obj must be an instance or subtype of type")
		}
	case 0:
		fr := in.frame
		if fr == nil || fr.code == nil || fr.fn == nil || len(fr.fn.params.Args)+len(fr.fn.params.Posonlyargs) == 0 {
			return nil, nil, in.Raise(RuntimeErrorType, "super(): no arguments")
		}
		i, ok := fr.code.free["__class__"]
		if !ok {
			return nil, nil, in.Raise(RuntimeErrorType, "super(): __class__ cell not found")
		}
		c, ok := fr.closure[i].V.(*Class)
		if !ok {
			return nil, nil, in.Raise(RuntimeErrorType, "super(): empty __class__ cell")
		}
		self = fr.locals[0]
		if cell, ok := self.(*Cell); ok && fr.code.cells[fr.code.scope.Locals[0]] {
			self = cell.V
		}
		if self == nil {
			return nil, nil, in.Raise(RuntimeErrorType, "super(): arg[0] deleted")
		}
		cls = c
	}
	return cls, self, nil
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
