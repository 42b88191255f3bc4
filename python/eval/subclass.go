package eval

import (
	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// Instances of classes that derive from a built-in value type (class
// L(list), class Config(dict), class Name(str), class Level(int)) are
// *Instance with the built-in value they are in Instance.base. What the
// class does not override works on that value, as CPython's list,
// dict, str and int slots work on the object's own storage.

// valueBases are the built-in types whose subclasses carry a value.
var valueBases = []*Class{ListType, DictType, SetType, FrozenSetType, TupleType, IntType, FloatType, StrType}

// layoutConflict reports whether cls's bases carry two kinds of
// built-in state (list and dict, int and str, an exception and a
// list): CPython's "multiple bases have instance lay-out conflict".
func layoutConflict(cls *Class) bool {
	var found *Class
	for _, k := range cls.MRO {
		for _, b := range valueBases {
			if k == b && (found == nil || !found.IsSubclass(b)) {
				if found != nil {
					return true
				}
				found = b
			}
		}
	}
	return found != nil && isException(cls)
}

// valueBase is the built-in value type cls derives from, or nil.
func valueBase(cls *Class) *Class {
	for _, k := range cls.MRO {
		for _, b := range valueBases {
			if k == b {
				return b
			}
		}
	}
	return nil
}

// override is what the classes of o's MRO before its value base define
// for the first of names that one defines (nil: none does, the built-in
// type's own behaviour applies).
func (o *Instance) override(names ...string) Value {
	for _, k := range o.cls.MRO {
		if k.Native {
			return nil
		}
		for _, n := range names {
			if v, ok := k.Dict.getStr(n); ok {
				return v
			}
		}
	}
	return nil
}

// plain is the built-in value under v when v is an instance of a
// subclass of a built-in value type that overrides none of names;
// otherwise v itself.
func plain(v Value, names ...string) Value {
	if o, ok := v.(*Instance); ok && o.base != nil && o.override(names...) == nil {
		return o.base
	}
	return v
}

// newValueInstance makes an instance of cls, a subclass of the value
// type vb: an immutable value (int, str, tuple...) is made from args as
// vb(*args) would make it, a container starts empty (its __init__
// fills it).
func (in *Interp) newValueInstance(cls, vb *Class, args []Value, kw []KeywordArg) (Value, error) {
	var base Value
	var err error
	switch vb {
	case ListType, DictType, SetType:
		base, err = vb.New(in, vb, nil, nil)
	default:
		base, err = vb.New(in, vb, args, kw)
	}
	if err != nil {
		return nil, err
	}
	if bo, ok := base.(Object); ok {
		// CPython makes an instance of a list, dict, set or tuple
		// subclass as one object, from no free list (its tuple's
		// items are copied out of one that goes back to the free list)
		in.uncount(bo)
	}
	o := in.newInstance(cls)
	o.base = base
	return o, nil
}

// nativeMethods are the methods of the built-in value types that the
// evaluator's operations implement (their dunders), by type: what
// super().__init__(...), super().__getitem__(k) and list.__len__(x)
// find. They are kept out of the types' namespaces, which the
// evaluator's operations look in for a class's own overrides.
var nativeMethods = map[*Class]map[string]Value{}

// nativeMethod is the dunder name of the built-in value type c (a
// builtin, or None: list.__hash__), or nil.
func nativeMethod(c *Class, name string) Value {
	if m := nativeMethods[c]; m != nil {
		return m[name]
	}
	return nil
}

// lookupAttr is lookup, with the built-in value types' dunders: the
// attribute obj.name or C.name finds.
func (c *Class) lookupAttr(name string) Value {
	for _, k := range c.MRO {
		if k.Dict != nil {
			if v, ok := k.Dict.getStr(name); ok {
				return v
			}
		}
		if b := nativeMethod(k, name); b != nil {
			return b
		}
	}
	return nil
}

// receiver is the self a built-in method gets: the value under an
// instance of a subclass of a built-in value type when the method is
// that type's own.
func receiver(b *Builtin, self Value) Value {
	o, ok := self.(*Instance)
	if !ok || o.base == nil || !b.Method || b == dictGetItem {
		return self
	}
	vb := valueBase(o.cls)
	if v, ok := vb.Dict.getStr(b.Name); ok && v == b {
		return o.base
	}
	if nativeMethod(vb, b.Name) == b {
		return o.base
	}
	return self
}

// callBuiltinOn calls the built-in method b on self: a method of a
// built-in value type gets the value under self, and one that returns
// its receiver (list.__iadd__) returns self.
func (in *Interp) callBuiltinOn(b *Builtin, self Value, args []Value, kw []KeywordArg) (Value, error) {
	r := receiver(b, self)
	v, err := b.Fn(in, r, args, kw)
	if err == nil && r != self && same(v, r) {
		in.Decref(v)
		v = newRef(self)
	}
	return v, err
}

func init() {
	cmp := func(op syntax.CmpOpKind) GoFunc {
		return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.slotArgs(cmpDunders[op][0], args, kw, 1); err != nil {
				return nil, err
			}
			return in.Compare(op, self, args[0])
		}
	}
	bin := func(op syntax.BinOpKind, reflected, inplace bool) GoFunc {
		name := dunders[op][0]
		if reflected {
			name = dunders[op][1]
		} else if inplace {
			name = dunders[op][2]
		}
		return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.slotArgs(name, args, kw, 1); err != nil {
				return nil, err
			}
			a, b := self, args[0]
			if reflected {
				a, b = b, a
			}
			r, ok, err := in.builtinBinOp(op, a, b, inplace)
			if !ok && err == nil {
				return NotImplemented, nil
			}
			return r, err
		}
	}
	unary := func(name string, f func(in *Interp, self Value) (Value, error)) GoFunc {
		return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.slotArgs(name, args, kw, 0); err != nil {
				return nil, err
			}
			return f(in, self)
		}
	}
	common := map[string]GoFunc{
		"__eq__": cmp(syntax.Eq), "__ne__": cmp(syntax.NotEq),
		"__lt__": cmp(syntax.Lt), "__le__": cmp(syntax.LtE),
		"__gt__": cmp(syntax.Gt), "__ge__": cmp(syntax.GtE),
		"__repr__": unary("__repr__", func(in *Interp, self Value) (Value, error) { return in.Repr(self) }),
		"__str__":  unary("__str__", func(in *Interp, self Value) (Value, error) { return in.Str(self) }),
		"__hash__": unary("__hash__", func(in *Interp, self Value) (Value, error) {
			k, err := in.keyOf(self)
			return k.i, err
		}),
		"__format__": func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			var spec string
			if err := in.UnpackArgs(TypeOf(self).Name+".__format__", args, kw, "format_spec", &spec, "/"); err != nil {
				return nil, err
			}
			return in.Format(self, spec)
		},
		"__init__": func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			return None, nil
		},
	}
	sequence := map[string]GoFunc{
		"__len__":  unary("__len__", func(in *Interp, self Value) (Value, error) { return in.Len(self) }),
		"__iter__": unary("__iter__", func(in *Interp, self Value) (Value, error) { return in.Iter(self) }),
		"__contains__": func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.slotArgs("__contains__", args, kw, 1); err != nil {
				return nil, err
			}
			return in.Contains(self, args[0])
		},
		"__getitem__": func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.UnpackArgs(TypeOf(self).Name+".__getitem__", args, kw, "key", new(Value), "/"); err != nil {
				return nil, err
			}
			return in.GetItem(self, args[0])
		},
		"__add__": bin(syntax.Add, false, false), "__mul__": bin(syntax.Mult, false, false),
		"__rmul__": bin(syntax.Mult, true, false),
	}
	mutable := map[string]GoFunc{
		"__setitem__": func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.slotArgs("__setitem__", args, kw, 2); err != nil {
				return nil, err
			}
			return None, in.SetItem(self, args[0], args[1])
		},
		"__delitem__": func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.slotArgs("__delitem__", args, kw, 1); err != nil {
				return nil, err
			}
			return None, in.DelItem(self, args[0])
		},
		"__iadd__": bin(syntax.Add, false, true), "__imul__": bin(syntax.Mult, false, true),
	}
	number := map[string]GoFunc{
		"__bool__": unary("__bool__", func(in *Interp, self Value) (Value, error) { return in.Truth(self) }),
		"__neg__":  unary("__neg__", func(in *Interp, self Value) (Value, error) { return in.unaryOp(syntax.USub, self) }),
		"__pos__":  unary("__pos__", func(in *Interp, self Value) (Value, error) { return in.unaryOp(syntax.UAdd, self) }),
		"__abs__": unary("__abs__", func(in *Interp, self Value) (Value, error) {
			if f, ok := self.(float64); ok && f < 0 || isNegInt(self) {
				return in.unaryOp(syntax.USub, self)
			}
			return in.unaryOp(syntax.UAdd, self)
		}),
		"__int__":   unary("__int__", func(in *Interp, self Value) (Value, error) { return in.toInt(self, nil) }),
		"__float__": unary("__float__", func(in *Interp, self Value) (Value, error) { return toFloat(self), nil }),
	}
	for op, names := range dunders {
		number[names[0]] = bin(op, false, false)
		number[names[1]] = bin(op, true, false)
	}
	set := func(c *Class, tables ...map[string]GoFunc) {
		m := map[string]Value{}
		for _, t := range tables {
			for name, fn := range t {
				b := NewBuiltin(name, "", fn)
				b.Method, b.Owner = true, c
				m[name] = b
			}
		}
		nativeMethods[c] = m
	}
	set(ListType, common, sequence, mutable)
	set(TupleType, common, sequence)
	set(StrType, common, sequence)
	set(DictType, common, sequence, mutable)
	set(SetType, common, sequence)
	for _, c := range []*Class{ListType, DictType, SetType} {
		nativeMethods[c]["__hash__"] = None // unhashable
	}
	set(FrozenSetType, common, sequence)
	set(IntType, common, number)
	set(FloatType, common, number)
	strMod := NewBuiltin("__mod__", "", bin(syntax.Mod, false, false))
	strMod.Method, strMod.Owner = true, StrType
	nativeMethods[StrType]["__mod__"] = strMod
	dictGetItem = NewBuiltin("__getitem__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("dict.__getitem__", args, kw, "key", new(Value), "/"); err != nil {
			return nil, err
		}
		if o, ok := self.(*Instance); ok && o.base != nil {
			return in.baseGetItem(o, args[0])
		}
		return in.GetItem(self, args[0])
	})
	dictGetItem.Method, dictGetItem.Owner = true, DictType
	nativeMethods[DictType]["__getitem__"] = dictGetItem
	nativeMethods[ListType]["__init__"] = nativeInit("list", func(in *Interp, self Value, args []Value, kw []KeywordArg) error {
		l := self.(*List)
		old := l.items
		l.items = nil
		in.decrefAll(old)
		if len(args) == 0 {
			return nil
		}
		items, err := in.collect(args[0])
		l.items = items
		return err
	})
	nativeMethods[DictType]["__init__"] = nativeInit("dict", func(in *Interp, self Value, args []Value, kw []KeywordArg) error {
		d := self.(*Dict)
		if len(args) == 1 {
			if err := in.dictUpdate(d, args[0]); err != nil {
				return err
			}
		}
		for _, k := range kw {
			in.SetStr(d, k.Name, k.Value)
		}
		return nil
	})
	nativeMethods[SetType]["__init__"] = nativeInit("set", func(in *Interp, self Value, args []Value, kw []KeywordArg) error {
		s := self.(*Set)
		if len(args) == 0 {
			return nil
		}
		return in.forEach(args[0], func(v Value) error { return in.setAdd(s, v) })
	})
	for _, vb := range valueBases {
		newFn := NewBuiltin("__new__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			cls, ok := self.(*Class)
			if !ok {
				return nil, in.typeError("%s.__new__(X): X is not a type object (%s)", vb.Name, TypeOf(self).Name)
			}
			if !cls.IsSubclass(vb) {
				return nil, in.typeError("%s.__new__(%s): %s is not a subtype of %s", vb.Name, cls.Name, cls.Name, vb.Name)
			}
			if cls.Native {
				return vb.New(in, vb, args, kw)
			}
			return in.newValueInstance(cls, vb, args, kw)
		})
		newFn.Method = true
		nativeMethods[vb]["__new__"] = newFn
	}
}

// dictGetItem is dict.__getitem__, which gets a dict subclass's
// instance itself: a missing key goes to its __missing__.
var dictGetItem *Builtin

// nativeInit is a container type's __init__ (list.__init__(self,
// iterable)); dict's takes keywords, list's and set's at most one
// argument.
func nativeInit(name string, fill func(in *Interp, self Value, args []Value, kw []KeywordArg) error) *Builtin {
	owner := map[string]*Class{"list": ListType, "dict": DictType, "set": SetType}[name]
	b := NewBuiltin("__init__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		pkw := kw
		if name == "dict" {
			pkw = nil // dict's keywords are its items
		}
		if err := in.unpackExpected(name, args, pkw, "iterable?", new(Value), "/"); err != nil {
			return nil, err
		}
		return None, fill(in, self, args, kw)
	})
	b.Method, b.Owner = true, owner
	return b
}

func isNegInt(v Value) bool {
	b, ok := bigInt(v)
	return ok && b.Sign() < 0
}

// baseGetItem is o[key] for an instance of a subclass of a built-in
// value type that does not override __getitem__: a dict subclass's
// missing key goes to its __missing__.
func (in *Interp) baseGetItem(o *Instance, key Value) (Value, error) {
	d, ok := o.base.(*Dict)
	if !ok {
		return in.GetItem(o.base, key)
	}
	v, found, err := in.dictGet(d, key)
	if err != nil {
		return nil, err
	}
	if found {
		return newRef(v), nil
	}
	if m := o.cls.lookup("__missing__"); m != nil {
		return in.callWithSelf(m, o, []Value{key}, nil)
	}
	return nil, in.raiseInst(in.NewException(KeyErrorType, key))
}

// baseBinOp is a op b where either is an instance of a subclass of a
// built-in value type that does not define the operator: the operator
// of the values under them (a list subclass + list is a list); ok is
// false when that does not apply.
func (in *Interp) baseBinOp(op syntax.BinOpKind, a, b Value, inplace bool) (Value, bool, error) {
	if !valueInstance(a) && !valueInstance(b) {
		return nil, false, nil
	}
	names := dunders[op]
	pa := plain(a, names[0])
	if inplace {
		pa = plain(a, names[0], names[2])
	}
	pb := plain(b, names[1])
	if pa == a && pb == b {
		return nil, false, nil
	}
	r, ok, err := in.builtinBinOp(op, pa, pb, inplace)
	if ok && err == nil && pa != a && same(r, pa) {
		in.Decref(r)
		r = newRef(a)
	}
	return r, ok, err
}

// setInstanceDict is o.__dict__ = v: a dict, or an instance of a dict
// subclass (held by o while its dict is o's).
func (in *Interp) setInstanceDict(o *Instance, v Value) error {
	var owner Value
	d, ok := v.(*Dict)
	if inst, isInst := v.(*Instance); isInst {
		d, ok = inst.base.(*Dict)
		owner = inst
	}
	if !ok {
		return in.typeError("__dict__ must be set to a dictionary, not a '%s'", TypeOf(v).Name)
	}
	if o.Dict == nil {
		return in.Raise(AttributeErrorType, "'%s' object has no attribute '__dict__'", o.cls.Name)
	}
	oldDict, oldOwner := o.Dict, o.dictOwner
	o.Dict, o.dictOwner = newRef(d).(*Dict), nil
	if owner != nil {
		o.dictOwner = newRef(owner)
	}
	if oldOwner != nil {
		in.Decref(oldOwner)
	}
	in.Decref(oldDict)
	return nil
}

// valueInstance reports whether v is an instance of a subclass of a
// built-in value type.
func valueInstance(v Value) bool {
	o, ok := v.(*Instance)
	return ok && o.base != nil
}

// asStr is v as a Go string: a str, or an instance of a str subclass.
func asStr(v Value) (string, bool) {
	s, ok := plain(v).(string)
	return s, ok
}

// DictOf is v as a dict: v itself, or the dict under an instance of a
// dict subclass (collections.OrderedDict, a class Config(dict)).
func DictOf(v Value) (*Dict, bool) {
	if o, ok := v.(*Instance); ok && o.base != nil {
		v = o.base
	}
	d, ok := v.(*Dict)
	return d, ok
}
