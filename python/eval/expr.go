package eval

import (
	"math/big"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// eval evaluates an expression to an owned value. Temporaries are
// dropped as soon as CPython drops them: an operation's operands right
// after it (left, then right), a call's arguments right after it
// returns.
func (in *Interp) eval(fr *Frame, e syntax.Expr) (Value, error) {
	switch e := e.(type) {
	case *syntax.Constant:
		return in.constant(e.Value), nil
	case *syntax.Name:
		return in.loadName(fr, e.Id)
	case *syntax.Attribute:
		if cls, self, ok, err := in.superOperand(fr, e.Value, e.Attr); ok || err != nil {
			if err != nil {
				return nil, err
			}
			fr.setPos(e)
			return in.superGet(cls, self, e.Attr)
		}
		obj, err := in.eval(fr, e.Value)
		if err != nil {
			return nil, err
		}
		fr.setPos(e)
		v, err := in.GetAttr(obj, e.Attr)
		in.Decref(obj)
		return v, err
	case *syntax.Subscript:
		obj, err := in.eval(fr, e.Value)
		if err != nil {
			return nil, err
		}
		key, err := in.eval(fr, e.Slice)
		if err != nil {
			in.Decref(obj)
			return nil, err
		}
		fr.setPos(e)
		v, err := in.GetItem(obj, key)
		in.Decref(obj)
		in.Decref(key)
		return v, err
	case *syntax.Slice:
		parts := [3]Value{None, None, None}
		for i, p := range []syntax.Expr{e.Lower, e.Upper, e.Step} {
			if p == nil {
				continue
			}
			v, err := in.eval(fr, p)
			if err != nil {
				in.decrefAll(parts[:i])
				return nil, err
			}
			parts[i] = v
		}
		s := &SliceObj{Start: parts[0], Stop: parts[1], Step: parts[2]}
		in.track(s)
		return s, nil
	case *syntax.Call:
		return in.evalCall(fr, e)
	case *syntax.BinOp:
		a, err := in.eval(fr, e.Left)
		if err != nil {
			return nil, err
		}
		b, err := in.eval(fr, e.Right)
		if err != nil {
			in.Decref(a)
			return nil, err
		}
		fr.setPos(e)
		v, err := in.BinOp(e.Op, a, b, false)
		in.Decref(a)
		in.Decref(b)
		return v, err
	case *syntax.UnaryOp:
		a, err := in.eval(fr, e.Operand)
		if err != nil {
			return nil, err
		}
		fr.setPos(e)
		v, err := in.unaryOp(e.Op, a)
		in.Decref(a)
		return v, err
	case *syntax.BoolOp:
		var v Value
		for i, x := range e.Values {
			if v != nil {
				in.Decref(v)
			}
			var err error
			if v, err = in.eval(fr, x); err != nil {
				return nil, err
			}
			if i == len(e.Values)-1 {
				break
			}
			t, err := in.Truth(v)
			if err != nil {
				in.Decref(v)
				return nil, err
			}
			if t == (e.Op == syntax.Or) {
				break
			}
		}
		return v, nil
	case *syntax.Compare:
		return in.evalCompare(fr, e)
	case *syntax.IfExp:
		t, err := in.truthOf(fr, e.Test)
		if err != nil {
			return nil, err
		}
		if t {
			return in.eval(fr, e.Body)
		}
		return in.eval(fr, e.Orelse)
	case *syntax.NamedExpr:
		v, err := in.eval(fr, e.Value)
		if err != nil {
			return nil, err
		}
		in.storeName(fr, e.Target.Id, newRef(v))
		return v, nil
	case *syntax.Lambda:
		return in.makeFunction(fr, "<lambda>", e.Scope, e.Args, nil, e.Body, e.Start.Line)
	case *syntax.Tuple:
		items, err := in.evalElts(fr, e.Elts)
		if err != nil {
			return nil, err
		}
		return in.NewTuple(items), nil
	case *syntax.List:
		items, err := in.evalElts(fr, e.Elts)
		if err != nil {
			return nil, err
		}
		return in.NewList(items), nil
	case *syntax.Set:
		items, err := in.evalElts(fr, e.Elts)
		if err != nil {
			return nil, err
		}
		s := in.newSet()
		for _, x := range items {
			if err == nil {
				err = in.setAdd(s, x)
			}
			in.Decref(x)
		}
		if err != nil {
			in.Decref(s)
			return nil, err
		}
		return s, nil
	case *syntax.Dict:
		return in.evalDict(fr, e)
	case *syntax.ListComp:
		return in.comprehension(fr, e.Scope, e.Generators, compList, e.Elt, nil)
	case *syntax.SetComp:
		return in.comprehension(fr, e.Scope, e.Generators, compSet, e.Elt, nil)
	case *syntax.DictComp:
		return in.comprehension(fr, e.Scope, e.Generators, compDict, e.Key, e.Value)
	case *syntax.GeneratorExp:
		return in.comprehension(fr, e.Scope, e.Generators, compGen, e.Elt, nil)
	case *syntax.JoinedStr:
		return in.joinedStr(fr, e)
	case *syntax.FormattedValue:
		return in.formattedValue(fr, e)
	case *syntax.Yield:
		var v Value = None
		if e.Value != nil {
			var err error
			if v, err = in.eval(fr, e.Value); err != nil {
				return nil, err
			}
		}
		return in.yield(fr, v)
	case *syntax.YieldFrom:
		v, err := in.eval(fr, e.Value)
		if err != nil {
			return nil, err
		}
		return in.yieldFrom(fr, v)
	case *syntax.Starred:
		return nil, in.Raise(SyntaxErrorType, "can't use starred expression here")
	}
	return nil, in.Refuse(NotImplementedErrType, "this tool cannot evaluate a %T expression", e)
}

// constant is a literal's value.
func (in *Interp) constant(c any) Value {
	switch c := c.(type) {
	case nil:
		return None
	case syntax.Bytes:
		return Bytes(c)
	case syntax.Ellipsis:
		return EllipsisType{}
	case *big.Int:
		return c
	}
	return c
}

// truthOf evaluates e and tests it.
func (in *Interp) truthOf(fr *Frame, e syntax.Expr) (bool, error) {
	v, err := in.eval(fr, e)
	if err != nil {
		return false, err
	}
	t, err := in.Truth(v)
	in.Decref(v)
	return t, err
}

// evalElts evaluates a display's elements, expanding *x.
func (in *Interp) evalElts(fr *Frame, elts []syntax.Expr) ([]Value, error) {
	out := make([]Value, 0, len(elts))
	for _, x := range elts {
		if st, ok := x.(*syntax.Starred); ok {
			v, err := in.eval(fr, st.Value)
			if err != nil {
				in.decrefAll(out)
				return nil, err
			}
			items, err := in.collect(v)
			in.Decref(v)
			if err != nil {
				in.decrefAll(out)
				return nil, err
			}
			out = append(out, items...)
			continue
		}
		v, err := in.eval(fr, x)
		if err != nil {
			in.decrefAll(out)
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func (in *Interp) evalDict(fr *Frame, e *syntax.Dict) (Value, error) {
	d := in.NewDict()
	for i, k := range e.Keys {
		v, err := in.eval(fr, e.Values[i])
		if err != nil {
			in.Decref(d)
			return nil, err
		}
		if k == nil {
			err = in.dictUpdate(d, v)
			in.Decref(v)
			if err != nil {
				in.Decref(d)
				return nil, err
			}
			continue
		}
		kv, err := in.eval(fr, k)
		if err != nil {
			in.Decref(v)
			in.Decref(d)
			return nil, err
		}
		err = in.dictSet(d, kv, v)
		in.Decref(kv)
		in.Decref(v)
		if err != nil {
			in.Decref(d)
			return nil, err
		}
	}
	return d, nil
}

// evalCall evaluates a call: the callable, the arguments left to right,
// the call (callStack: who owns the arguments). obj.m(...) calls the
// method without making a bound method, as CPython's LOAD_METHOD does,
// holding obj until the call ends.
func (in *Interp) evalCall(fr *Frame, e *syntax.Call) (Value, error) {
	var fn, self, bound Value
	if a, ok := e.Func.(*syntax.Attribute); ok {
		var err error
		if fn, self, bound, err = in.methodCallee(fr, a); err != nil {
			return nil, err
		}
	} else {
		var err error
		if fn, err = in.eval(fr, e.Func); err != nil {
			return nil, err
		}
	}
	fail := func(args []Value, err error) (Value, error) {
		if bound != nil {
			in.Decref(bound)
		}
		if self != nil {
			in.Decref(self)
		}
		in.dropArgs(args, nil)
		in.Decref(fn)
		return nil, err
	}
	args, err := in.evalElts(fr, e.Args)
	if err != nil {
		return fail(nil, err)
	}
	kw, err := in.evalKeywords(fr, e.Keywords)
	if err != nil {
		return fail(args, err)
	}
	fr.setPos(e)
	if bound != nil { // CALL takes the function and self out of it
		in.Decref(bound)
	}
	r, err := in.callStack(fn, self, args, kw, exCall(e))
	fr.setPos(e)
	return r, err
}

// methodCallee is what CPython pushes for a call obj.name(...): the
// plain function of a method found on obj's class and obj (no bound
// method), else the attribute and nil; for super().name(...) (see
// superOperand) a method found from the class after C, a function or a
// method of a built-in type, and the object, with no super object and no
// bound method either, where the object is an instance (not a class).
// LOAD_SUPER_ATTR_METHOD asks for the method alone only where
// Py_TYPE(self)->tp_getattro is PyObject_GenericGetAttr: for a class with
// __getattr__ or __getattribute__ (an nn.Module) it binds the method, a
// new object that lives while the call's arguments are evaluated, until
// CALL takes the function and self out of it and drops it: bound, for
// the caller to drop then.
func (in *Interp) methodCallee(fr *Frame, a *syntax.Attribute) (fn, self, bound Value, err error) {
	cls, obj, ok, err := in.superOperand(fr, a.Value, a.Attr)
	if err != nil {
		return nil, nil, nil, err
	}
	fr.setPos(a)
	if ok {
		if _, isCls := obj.(*Class); !isCls {
			v, _ := in.superLookup(cls, obj, a.Attr)
			f, isFn := v.(*Function)
			b, isB := v.(*Builtin)
			if isFn && f != nil || isB && b.Method && b.Self == nil {
				if getattrHook(TypeOf(obj)) {
					bound = in.bindTo(v, obj, TypeOf(obj))
				}
				in.Decref(cls)
				return newRef(v), obj, bound, nil
			}
		}
		fn, err = in.superGet(cls, obj, a.Attr)
		return fn, nil, nil, err
	}
	if obj, err = in.eval(fr, a.Value); err != nil {
		return nil, nil, nil, err
	}
	fr.setPos(a)
	if m := in.methodOf(obj, a.Attr); m != nil {
		return newRef(m), obj, nil, nil
	}
	fn, err = in.GetAttr(obj, a.Attr)
	in.Decref(obj)
	return fn, nil, nil, err
}

// getattrHook says whether CPython gives cls's instances a tp_getattro
// of its own (slot_tp_getattr_hook): cls or a base defines __getattr__
// or __getattribute__.
func getattrHook(cls *Class) bool {
	if cls.lookupAttr("__getattr__") != nil {
		return true
	}
	for _, k := range cls.MRO {
		if k == ObjectType {
			break
		}
		if k.Dict != nil {
			if _, ok := k.Dict.getStr("__getattribute__"); ok {
				return true
			}
		}
	}
	return false
}

// exCall says whether CPython compiles a call to CALL_FUNCTION_EX, its
// arguments in a tuple and a dict: a *starred argument, a **mapping, or
// more argument slots than its stack guideline (30; a keyword counts
// two).
func exCall(e *syntax.Call) bool {
	if len(e.Args)+2*len(e.Keywords) > 30 {
		return true
	}
	for _, a := range e.Args {
		if _, ok := a.(*syntax.Starred); ok {
			return true
		}
	}
	for _, k := range e.Keywords {
		if k.Arg == "" {
			return true
		}
	}
	return false
}

// methodOf returns the plain function a method call obj.name(...)
// would bind (borrowed), or nil when the attribute is not a method
// found on the class.
func (in *Interp) methodOf(obj Value, name string) Value {
	switch obj.(type) {
	case *ModuleObj, *Class, *Super:
		return nil
	}
	cls := TypeOf(obj)
	m := cls.lookupAttr(name) // a built-in value type's own dunder too, as GetAttr finds it
	switch f := m.(type) {
	case *Function:
	case *Builtin:
		if !f.Method || f.Self != nil {
			return nil
		}
	default:
		return nil
	}
	if inst, ok := obj.(*Instance); ok && inst.Dict != nil {
		if _, shadow := inst.Dict.getStr(name); shadow {
			return nil
		}
	}
	return m
}

// evalKeywords evaluates keyword arguments, expanding **d.
func (in *Interp) evalKeywords(fr *Frame, kws []*syntax.Keyword) ([]KeywordArg, error) {
	var out []KeywordArg
	fail := func(err error) ([]KeywordArg, error) {
		for _, k := range out {
			in.Decref(k.Value)
		}
		return nil, err
	}
	for _, k := range kws {
		v, err := in.eval(fr, k.Value)
		if err != nil {
			return fail(err)
		}
		if k.Arg != "" {
			out = append(out, KeywordArg{Name: k.Arg, Value: v})
			continue
		}
		d, ok := v.(*Dict)
		if !ok && TypeOf(v).lookupAttr("keys") != nil {
			// a mapping that is not a dict: its items, as dict(v) has them
			d = in.NewDict()
			err := in.dictUpdate(d, v)
			in.Decref(v)
			if v, ok = d, true; err != nil {
				in.Decref(d)
				return fail(err)
			}
		}
		if !ok {
			in.Decref(v)
			return fail(in.typeError("argument after ** must be a mapping, not %s", TypeOf(v).Name))
		}
		var bad error
		d.Items(func(key, val Value) bool {
			s, ok := asStr(key)
			if !ok {
				bad = in.typeError("keywords must be strings")
				return false
			}
			out = append(out, KeywordArg{Name: s, Value: newRef(val)})
			return true
		})
		in.Decref(v)
		if bad != nil {
			return fail(bad)
		}
	}
	return out, nil
}

func (in *Interp) evalCompare(fr *Frame, e *syntax.Compare) (Value, error) {
	a, err := in.eval(fr, e.Left)
	if err != nil {
		return nil, err
	}
	for i, op := range e.Ops {
		b, err := in.eval(fr, e.Comparators[i])
		if err != nil {
			in.Decref(a)
			return nil, err
		}
		fr.setPos(e)
		r, err := in.Compare(op, a, b)
		in.Decref(a)
		if err != nil {
			in.Decref(b)
			return nil, err
		}
		if i == len(e.Ops)-1 {
			in.Decref(b)
			return r, nil
		}
		t, err := in.Truth(r)
		if err != nil || !t {
			in.Decref(b)
			if err != nil {
				in.Decref(r)
				return nil, err
			}
			return r, nil
		}
		in.Decref(r)
		a = b
	}
	return a, nil
}

// assign stores v (owned) into a target.
func (in *Interp) assign(fr *Frame, t syntax.Expr, v Value) error {
	switch t := t.(type) {
	case *syntax.Name:
		in.storeName(fr, t.Id, v)
		return nil
	case *syntax.Attribute:
		obj, err := in.eval(fr, t.Value)
		if err != nil {
			in.Decref(v)
			return err
		}
		fr.setPos(t)
		err = in.SetAttr(obj, t.Attr, v)
		in.Decref(v)
		in.Decref(obj)
		return err
	case *syntax.Subscript:
		obj, err := in.eval(fr, t.Value)
		if err != nil {
			in.Decref(v)
			return err
		}
		key, err := in.eval(fr, t.Slice)
		if err != nil {
			in.Decref(v)
			in.Decref(obj)
			return err
		}
		fr.setPos(t)
		err = in.SetItem(obj, key, v)
		in.Decref(v)
		in.Decref(obj)
		in.Decref(key)
		return err
	case *syntax.Tuple:
		return in.unpack(fr, t.Elts, v)
	case *syntax.List:
		return in.unpack(fr, t.Elts, v)
	case *syntax.Starred:
		return in.assign(fr, t.Value, v)
	}
	in.Decref(v)
	return in.Raise(SyntaxErrorType, "cannot assign to %T", t)
}

// unpack is a, b, *c = v.
func (in *Interp) unpack(fr *Frame, targets []syntax.Expr, v Value) error {
	star := -1
	for i, t := range targets {
		if _, ok := t.(*syntax.Starred); ok {
			star = i
		}
	}
	var items []Value
	var err error
	if star < 0 {
		items, err = in.take(v, len(targets)+1)
	} else {
		items, err = in.collect(v)
	}
	in.Decref(v)
	if err != nil {
		return err
	}
	n := len(targets)
	switch {
	case star < 0 && len(items) > n:
		in.decrefAll(items)
		return in.Raise(ValueErrorType, "too many values to unpack (expected %d)", n)
	case star < 0 && len(items) < n:
		in.decrefAll(items)
		return in.Raise(ValueErrorType, "not enough values to unpack (expected %d, got %d)", n, len(items))
	case star >= 0 && len(items) < n-1:
		in.decrefAll(items)
		return in.Raise(ValueErrorType, "not enough values to unpack (expected at least %d, got %d)", n-1, len(items))
	}
	vals := make([]Value, 0, n)
	if star < 0 {
		vals = items
	} else {
		rest := len(items) - (n - 1)
		vals = append(vals, items[:star]...)
		vals = append(vals, in.NewList(append([]Value(nil), items[star:star+rest]...)))
		vals = append(vals, items[star+rest:]...)
	}
	for i, t := range targets {
		if err := in.assign(fr, t, vals[i]); err != nil {
			in.decrefAll(vals[i+1:])
			return err
		}
	}
	return nil
}

// take is the first n items of an iterable (fewer when it ends first),
// as unpacking pulls them: it never runs an iterator further.
func (in *Interp) take(v Value, n int) ([]Value, error) {
	if items, ok := seqItems(v); ok {
		out := make([]Value, 0, min(n, len(items)))
		for _, x := range items[:min(n, len(items))] {
			out = append(out, newRef(x))
		}
		return out, nil
	}
	it, err := in.Iter(v)
	if err != nil {
		if Matches(err, TypeErrorType) {
			in.Drop(err)
			return nil, in.typeError("cannot unpack non-iterable %s object", TypeOf(v).Name)
		}
		return nil, err
	}
	defer in.Decref(it)
	var out []Value
	for len(out) < n {
		x, ok, err := in.Next(it)
		if err != nil {
			in.decrefAll(out)
			return nil, err
		}
		if !ok {
			break
		}
		out = append(out, x)
	}
	return out, nil
}

func (in *Interp) delete(fr *Frame, t syntax.Expr) error {
	fr.setPos(t)
	switch t := t.(type) {
	case *syntax.Name:
		return in.deleteName(fr, t.Id)
	case *syntax.Attribute:
		obj, err := in.eval(fr, t.Value)
		if err != nil {
			return err
		}
		err = in.DelAttr(obj, t.Attr)
		in.Decref(obj)
		return err
	case *syntax.Subscript:
		obj, err := in.eval(fr, t.Value)
		if err != nil {
			return err
		}
		key, err := in.eval(fr, t.Slice)
		if err != nil {
			in.Decref(obj)
			return err
		}
		err = in.DelItem(obj, key)
		in.Decref(obj)
		in.Decref(key)
		return err
	case *syntax.Tuple:
		for _, x := range t.Elts {
			if err := in.delete(fr, x); err != nil {
				return err
			}
		}
		return nil
	case *syntax.List:
		for _, x := range t.Elts {
			if err := in.delete(fr, x); err != nil {
				return err
			}
		}
		return nil
	}
	return in.Raise(SyntaxErrorType, "cannot delete %T", t)
}

func (in *Interp) augAssign(fr *Frame, s *syntax.AugAssign) error {
	switch t := s.Target.(type) {
	case *syntax.Name:
		cur, err := in.loadName(fr, t.Id)
		if err != nil {
			return err
		}
		r, err := in.augOp(fr, s, cur)
		if err != nil {
			return err
		}
		in.storeName(fr, t.Id, r)
		return nil
	case *syntax.Attribute:
		obj, err := in.eval(fr, t.Value)
		if err != nil {
			return err
		}
		defer in.Decref(obj)
		cur, err := in.GetAttr(obj, t.Attr)
		if err != nil {
			return err
		}
		r, err := in.augOp(fr, s, cur)
		if err != nil {
			return err
		}
		err = in.SetAttr(obj, t.Attr, r)
		in.Decref(r)
		return err
	case *syntax.Subscript:
		obj, err := in.eval(fr, t.Value)
		if err != nil {
			return err
		}
		defer in.Decref(obj)
		key, err := in.eval(fr, t.Slice)
		if err != nil {
			return err
		}
		defer in.Decref(key)
		cur, err := in.GetItem(obj, key)
		if err != nil {
			return err
		}
		r, err := in.augOp(fr, s, cur)
		if err != nil {
			return err
		}
		err = in.SetItem(obj, key, r)
		in.Decref(r)
		return err
	}
	return in.Raise(SyntaxErrorType, "illegal expression for augmented assignment")
}

// augOp evaluates the right side and applies the in-place operator to
// cur (owned, dropped here).
func (in *Interp) augOp(fr *Frame, s *syntax.AugAssign, cur Value) (Value, error) {
	v, err := in.eval(fr, s.Value)
	if err != nil {
		in.Decref(cur)
		return nil, err
	}
	fr.setPos(s)
	r, err := in.BinOp(s.Op, cur, v, true)
	in.Decref(cur)
	in.Decref(v)
	return r, err
}

// joinedStr is an f-string.
func (in *Interp) joinedStr(fr *Frame, e *syntax.JoinedStr) (Value, error) {
	var b strings.Builder
	for _, p := range e.Values {
		v, err := in.eval(fr, p)
		if err != nil {
			return nil, err
		}
		s, ok := v.(string)
		if !ok {
			in.Decref(v)
			return nil, in.typeError("f-string part is not a str")
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

func (in *Interp) formattedValue(fr *Frame, e *syntax.FormattedValue) (Value, error) {
	v, err := in.eval(fr, e.Value)
	if err != nil {
		return nil, err
	}
	switch e.Conversion {
	case 's', 'r', 'a':
		var s string
		if e.Conversion == 's' {
			s, err = in.Str(v)
		} else {
			s, err = in.Repr(v)
		}
		in.Decref(v)
		if err != nil {
			return nil, err
		}
		v = s
	}
	spec := ""
	if e.FormatSpec != nil {
		sv, err := in.joinedStr(fr, e.FormatSpec)
		if err != nil {
			in.Decref(v)
			return nil, err
		}
		spec = sv.(string)
	}
	s, err := in.Format(v, spec)
	in.Decref(v)
	if err != nil {
		return nil, err
	}
	return s, nil
}
