package eval

import "github.com/gpumemrepl/gpumemrepl/python/syntax"

// GetAttr is getattr(obj, name): an owned result, or AttributeError.
func (in *Interp) GetAttr(obj Value, name string) (Value, error) {
	v, found, err := in.getAttr(obj, name)
	if err != nil || found {
		return v, err
	}
	if ga := TypeOf(obj).lookup("__getattr__"); ga != nil {
		return in.callWithSelf(ga, obj, []Value{name}, nil)
	}
	return nil, in.AttrError(obj, name)
}

// AttrError is the AttributeError CPython raises for obj.name, with the
// embedder's note (Hooks.MissingAttr); a __getattr__ written in Go
// raises it when it finds nothing.
func (in *Interp) AttrError(obj Value, name string) error {
	note, raise := "", in.Raise
	if in.Hooks.MissingAttr != nil {
		if n := in.Hooks.MissingAttr(obj, name); n != "" {
			// PyTorch has the attribute: the error is the tool's refusal
			note, raise = " ("+n+")", in.Refuse
		}
	}
	switch o := obj.(type) {
	case *ModuleObj:
		err := raise(AttributeErrorType, "module '%s' has no attribute '%s'%s", o.Name, name, note)
		if note == "" {
			// the traceback's "Did you mean", from the module's names as
			// CPython 3.12 takes them from dir(module)
			var cands []string
			for _, k := range o.Dict.keys() {
				if s, ok := k.(string); ok {
					cands = append(cands, s)
				}
			}
			if s := closest(name, cands); s != "" {
				err.(*Exception).Inst.exc.hint = ". Did you mean: '" + s + "'?"
			}
		}
		return err
	case *Class:
		return raise(AttributeErrorType, "type object '%s' has no attribute '%s'%s", o.Name, name, note)
	}
	return raise(AttributeErrorType, "'%s' object has no attribute '%s'%s", TypeOf(obj).Name, name, note)
}

// getAttr looks name up on obj without __getattr__; found is false
// when there is no such attribute.
func (in *Interp) getAttr(obj Value, name string) (Value, bool, error) {
	switch o := obj.(type) {
	case *ModuleObj:
		if v, ok := o.Dict.getStr(name); ok {
			return newRef(v), true, nil
		}
		if name == "__dict__" {
			return newRef(o.Dict), true, nil
		}
		return nil, false, nil
	case *Class:
		return in.classAttr(o, name)
	case *Super:
		return in.superAttr(o, name)
	}
	cls := TypeOf(obj)
	attr := cls.lookupAttr(name)
	if p, ok := attr.(*Property); ok {
		v, err := in.call(p.Get, []Value{obj}, nil)
		return v, err == nil, err
	}
	switch o := obj.(type) {
	case *Instance:
		if name == "__dict__" {
			if o.Dict == nil { // object(), and classes with __slots__: no __dict__
				return nil, false, nil
			}
			if o.dictOwner != nil {
				return newRef(o.dictOwner), true, nil
			}
			in.MaterializeDict(o)
			return newRef(o.Dict), true, nil
		}
		if name == "__class__" {
			return newRef(o.cls), true, nil
		}
		if v, ok := o.Dict.getStr(name); ok {
			return newRef(v), true, nil
		}
		if cp, ok := attr.(*cachedProperty); ok {
			v, err := in.call(cp.fn, []Value{obj}, nil)
			if err != nil {
				return nil, false, err
			}
			in.SetStr(o.Dict, name, v)
			return v, true, nil
		}
	case *Function:
		switch name {
		case "__code__":
			return in.functionCode(o), true, nil
		case "__name__":
			return o.Name, true, nil
		case "__qualname__":
			return o.QualName, true, nil
		case "__module__":
			return o.Module, true, nil
		case "__closure__":
			if o.closureTuple == nil {
				return None, true, nil
			}
			return newRef(o.closureTuple), true, nil
		}
		if o.dict != nil {
			if v, ok := o.dict.getStr(name); ok {
				return newRef(v), true, nil
			}
		}
		if name == "__doc__" {
			return docString(o.body), true, nil
		}
	case *Builtin:
		if name == "__name__" {
			return o.Name, true, nil
		}
	case *Cell:
		if name == "cell_contents" {
			if o.V == nil {
				return nil, false, in.Raise(ValueErrorType, "Cell is empty")
			}
			return newRef(o.V), true, nil
		}
	}
	if name == "__class__" {
		return newRef(cls), true, nil
	}
	if attr == nil {
		return nil, false, nil
	}
	return in.bindTo(attr, obj, cls), true, nil
}

// bindTo is what a class attribute found for obj gives: a method bound
// to obj, a classmethod bound to cls, or the value itself.
func (in *Interp) bindTo(attr, obj Value, cls *Class) Value {
	switch a := attr.(type) {
	case *Function:
		return in.newMethod(a, obj)
	case *Builtin:
		if a.Method && a.Self == nil {
			return in.bindBuiltin(a, receiver(a, obj))
		}
	case *wrapper:
		if a.class {
			return in.newMethod(a.fn, cls)
		}
		return newRef(a.fn)
	}
	return newRef(attr)
}

// classAttr is C.name: functions come back plain, classmethods bound
// to the class.
func (in *Interp) classAttr(c *Class, name string) (Value, bool, error) {
	switch name {
	case "__name__", "__qualname__":
		return c.Name, true, nil
	case "__module__":
		return c.Module, true, nil
	case "__mro__":
		items := make([]Value, len(c.MRO))
		for i, k := range c.MRO {
			items[i] = newRef(k)
		}
		return in.NewTuple(items), true, nil
	case "__dict__":
		return newRef(c.Dict), true, nil
	case "__bases__":
		items := make([]Value, len(c.Bases))
		for i, k := range c.Bases {
			items[i] = newRef(k)
		}
		return in.NewTuple(items), true, nil
	}
	attr := c.lookupAttr(name)
	if attr == nil {
		if a := TypeType.lookup(name); a != nil {
			return in.bindTo(a, c, TypeType), true, nil
		}
		return nil, false, nil
	}
	if w, ok := attr.(*wrapper); ok {
		if w.class {
			return in.newMethod(w.fn, c), true, nil
		}
		return newRef(w.fn), true, nil
	}
	return newRef(attr), true, nil
}

// SetAttr is setattr(obj, name, v); v is borrowed.
func (in *Interp) SetAttr(obj Value, name string, v Value) error {
	cls := TypeOf(obj)
	if p, ok := cls.lookup(name).(*Property); ok {
		if p.Set == nil {
			return in.Raise(AttributeErrorType, "property '%s' of '%s' object has no setter", name, cls.Name)
		}
		r, err := in.call(p.Set, []Value{obj, v}, nil)
		if err == nil {
			in.Decref(r)
		}
		return err
	}
	if sa := cls.lookup("__setattr__"); sa != nil && sa != objectSetattr {
		r, err := in.callWithSelf(sa, obj, []Value{name, v}, nil)
		if err == nil {
			in.Decref(r)
		}
		return err
	}
	return in.genericSetAttr(obj, name, v)
}

// genericSetAttr is object.__setattr__: the instance's __dict__.
func (in *Interp) genericSetAttr(obj Value, name string, v Value) error {
	var d *Dict
	switch o := obj.(type) {
	case *Instance:
		if name == "__dict__" {
			return in.setInstanceDict(o, v)
		}
		if o.Dict == nil { // object(), which has no __dict__
			return in.Raise(AttributeErrorType, "'%s' object has no attribute '%s'", o.cls.Name, name)
		}
		d = o.Dict
	case *Class:
		if o.Native {
			return in.typeError("cannot set '%s' attribute of immutable type '%s'", name, o.Name)
		}
		if s, ok := asStr(v); ok && (name == "__name__" || name == "__module__") {
			// the names repr and tracebacks show
			if name == "__name__" {
				o.Name = s
			} else {
				o.Module = s
			}
		}
		d = o.Dict
	case *Function:
		if s, ok := asStr(v); ok {
			switch name {
			case "__name__":
				o.Name = s
				return nil
			case "__qualname__":
				o.QualName = s
				return nil
			case "__module__":
				o.Module = s
				return nil
			}
		}
		if o.dict == nil {
			o.dict = in.NewDict()
		}
		d = o.dict
	case *ModuleObj:
		d = o.Dict
	default:
		return in.Raise(AttributeErrorType, "'%s' object has no attribute '%s'", TypeOf(obj).Name, name)
	}
	if old := putNS(d, name, newRef(v)); old != nil {
		in.Labeled(old, "old ."+name)
	}
	return nil
}

// DelAttr is del obj.name.
func (in *Interp) DelAttr(obj Value, name string) error {
	cls := TypeOf(obj)
	if da := cls.lookup("__delattr__"); da != nil && da != objectDelattr {
		r, err := in.callWithSelf(da, obj, []Value{name}, nil)
		if err == nil {
			in.Decref(r)
		}
		return err
	}
	return in.genericDelAttr(obj, name)
}

func (in *Interp) genericDelAttr(obj Value, name string) error {
	var d *Dict
	switch o := obj.(type) {
	case *Instance:
		d = o.Dict
	case *Class:
		d = o.Dict
	case *ModuleObj:
		d = o.Dict
	case *Function:
		d = o.dict
	}
	if d != nil {
		if v, ok := d.getStr(name); ok {
			Incref(v)
			in.delStr(d, name)
			in.Labeled(v, "."+name)
			return nil
		}
	}
	return in.AttrError(obj, name)
}

var objectSetattr, objectDelattr *Builtin

func init() {
	objectSetattr = NewBuiltin("__setattr__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.slotArgs("__setattr__", args, kw, 2); err != nil {
			return nil, err
		}
		name, err := in.attrName(args[0])
		if err != nil {
			return nil, err
		}
		return None, in.genericSetAttr(self, name, args[1])
	})
	ObjectType.SetMethod(objectSetattr)
	objectDelattr = NewBuiltin("__delattr__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.slotArgs("__delattr__", args, kw, 1); err != nil {
			return nil, err
		}
		name, ok := args[0].(string)
		if !ok {
			return nil, in.typeError("attribute name must be string, not '%s'", TypeOf(args[0]).Name)
		}
		return None, in.genericDelAttr(self, name)
	})
	ObjectType.SetMethod(objectDelattr)
}

// Super is a super() object: attribute lookup starting after Class in
// Self's MRO.
type Super struct {
	Header
	Class *Class
	Self  Value
}

// Type is super.
func (s *Super) Type() *Class { return SuperType }

// Traverse visits the class and the object.
func (s *Super) Traverse(visit func(Value)) {
	visit(s.Class)
	visit(s.Self)
}

// Clear drops them.
func (s *Super) Clear(in *Interp) {
	c, o := s.Class, s.Self
	s.Class, s.Self = nil, None
	in.Decref(o)
	if c != nil {
		in.Decref(c)
	}
}

func (in *Interp) superAttr(s *Super, name string) (Value, bool, error) {
	return in.superAttrOf(s.Class, s.Self, name)
}

// superLookup finds name in the classes after cls in self's MRO (self's
// own MRO when self is a subclass of cls): the attribute as the class
// holds it, borrowed.
func (in *Interp) superLookup(cls *Class, self Value, name string) (Value, bool) {
	var mro []*Class
	if c, ok := self.(*Class); ok && c.IsSubclass(cls) {
		mro = c.MRO
	} else {
		mro = TypeOf(self).MRO
	}
	i := 0
	for i < len(mro) && mro[i] != cls {
		i++
	}
	for _, k := range mro[min(i+1, len(mro)):] {
		if k.Dict == nil {
			continue
		}
		v, ok := k.Dict.getStr(name)
		if b := nativeMethod(k, name); !ok && b != nil {
			v, ok = b, true
		}
		if ok {
			return v, true
		}
	}
	return nil, false
}

// superAttrOf is super(cls, self).name.
func (in *Interp) superAttrOf(cls *Class, self Value, name string) (Value, bool, error) {
	v, ok := in.superLookup(cls, self, name)
	if !ok {
		return nil, false, nil
	}
	if p, ok := v.(*Property); ok {
		r, err := in.call(p.Get, []Value{self}, nil)
		return r, err == nil, err
	}
	if _, isCls := self.(*Class); isCls {
		if w, ok := v.(*wrapper); ok && w.class {
			return in.newMethod(w.fn, self), true, nil
		}
		return newRef(v), true, nil
	}
	return in.bindTo(v, self, TypeOf(self)), true, nil
}

// superOperand is CPython 3.12's LOAD_SUPER_ATTR: where e, the object
// of an attribute, is super() or super(C, obj) -- the builtin, called
// with no keyword and no starred argument --, the class and object it
// looks up from, without the super object the call would make (ok
// false where e is not such a call).
func (in *Interp) superOperand(fr *Frame, e syntax.Expr, name string) (cls *Class, self Value, ok bool, err error) {
	c, isCall := e.(*syntax.Call)
	if !isCall || len(c.Keywords) > 0 || (len(c.Args) != 0 && len(c.Args) != 2) || name == "__class__" {
		return nil, nil, false, nil
	}
	if n, ok := c.Func.(*syntax.Name); !ok || n.Id != "super" {
		return nil, nil, false, nil
	}
	for _, a := range c.Args {
		if _, ok := a.(*syntax.Starred); ok {
			return nil, nil, false, nil
		}
	}
	f, err := in.eval(fr, c.Func)
	if err != nil {
		return nil, nil, false, err
	}
	in.Decref(f)
	if f != Value(SuperType) {
		return nil, nil, false, nil
	}
	args, err := in.evalElts(fr, c.Args)
	if err != nil {
		return nil, nil, false, err
	}
	defer in.decrefAll(args)
	if cls, self, err = in.superArgs(args, nil); err != nil {
		return nil, nil, false, err
	}
	return newRef(cls).(*Class), newRef(self), true, nil
}

// superGet is LOAD_SUPER_ATTR's lookup of name from cls and self (which
// it lets go): where nothing is found, CPython makes the super object
// and asks it, which raises.
func (in *Interp) superGet(cls *Class, self Value, name string) (Value, error) {
	v, ok, err := in.superAttrOf(cls, self, name)
	if ok || err != nil {
		in.Decref(cls)
		in.Decref(self)
		return v, err
	}
	s := Track(in, &Super{Class: cls, Self: self})
	v, err = in.GetAttr(s, name)
	in.Decref(s)
	return v, err
}
