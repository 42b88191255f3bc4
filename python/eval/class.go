package eval

import (
	"fmt"
	"strings"
)

// Class is a Python type: a built-in one (int, list, Tensor...), whose
// instances are Go values, or one a class statement made, whose
// instances are *Instance.
type Class struct {
	Header
	Name   string
	Module string // __module__ ("builtins" for the built-in types)
	Bases  []*Class
	MRO    []*Class
	Dict   *Dict // the class namespace: methods, properties, attributes
	// typeTuples stand for the tuples a class statement's type keeps,
	// its __bases__ and __mro__ (CPython's tp_bases and tp_mro): made
	// from CPython's free lists of tuples and back there when the class
	// goes, they hold None here.
	typeTuples []Value
	// Native is set for a type whose instances are Go values made by Go
	// code (not *Instance): a class statement cannot subclass it unless
	// it is Subclassable.
	Native       bool
	Subclassable bool
	// StructSeq is a tuple subclass whose instances release their items
	// first to last, as CPython's structseq does (a plain tuple's go last
	// first).
	StructSeq bool
	// InstanceCheck, when set, is isinstance(v, cls) (a metaclass's
	// __instancecheck__: torch.cuda.FloatTensor checks a tensor's dtype
	// and device).
	InstanceCheck func(v Value) bool
	// New makes a native type's instance when the type is called
	// (int("3"), list(x)): args are borrowed, the result is owned.
	New func(in *Interp, cls *Class, args []Value, kw []KeywordArg) (Value, error)
}

// Type of a class is type.
func (c *Class) Type() *Class { return TypeType }

// Traverse visits the class's bases and namespace.
func (c *Class) Traverse(visit func(Value)) {
	for _, b := range c.Bases {
		visit(b)
	}
	if c.Dict != nil {
		visit(c.Dict)
	}
}

// Clear drops the class's namespace and bases.
func (c *Class) Clear(in *Interp) {
	bases, d, tuples := c.Bases, c.Dict, c.typeTuples
	c.Bases, c.Dict, c.MRO, c.typeTuples = nil, nil, nil, nil
	for _, b := range bases {
		in.Decref(b)
	}
	in.decrefAll(tuples)
	if d != nil {
		in.Decref(d)
	}
}

// NewClass makes a built-in class with the given bases (object when
// none) and a namespace: for types declared in Go. The class is not
// counted: built-in types live for the whole session.
func NewClass(name, module string, bases ...*Class) *Class {
	if len(bases) == 0 && ObjectType != nil {
		bases = []*Class{ObjectType}
	}
	c := &Class{Name: name, Module: module, Bases: bases, Dict: newStaticDict(), Native: true}
	c.Header.refs = 1 << 30
	mro, err := c3(c)
	if err != nil {
		panic(err)
	}
	c.MRO = mro
	return c
}

// lookup finds name in the class's MRO (a borrowed value), or nil.
func (c *Class) lookup(name string) Value {
	for _, k := range c.MRO {
		if k.Dict == nil {
			continue
		}
		if v, ok := k.Dict.getStr(name); ok {
			return v
		}
	}
	return nil
}

// Lookup finds name in the class's MRO, as Python's type attribute
// lookup does (a borrowed value), or nil.
func (c *Class) Lookup(name string) Value { return c.lookup(name) }

// IsSubclass reports whether c is sub or derives from it.
func (c *Class) IsSubclass(sub *Class) bool {
	for _, k := range c.MRO {
		if k == sub {
			return true
		}
	}
	return false
}

// SetMethod puts a Go function in the class namespace.
func (c *Class) SetMethod(b *Builtin) {
	b.Method = true
	if b.Owner == nil {
		b.Owner = c
	}
	c.Dict.setStr(b.Name, b)
}

// varArgs marks c's methods names as CPython's METH_VARARGS ones
// (Builtin.VarArgs).
func varArgs(c *Class, names ...string) {
	for _, n := range names {
		m, _ := c.Dict.getStr(n)
		m.(*Builtin).VarArgs = true
	}
}

// SetAttr puts a value in the class namespace (a constant, a property).
func (c *Class) SetAttr(name string, v Value) { c.Dict.setStr(name, v) }

// QualName is the class's name as repr shows it.
func (c *Class) QualName() string {
	if c.Module == "" || c.Module == "builtins" {
		return c.Name
	}
	return c.Module + "." + c.Name
}

// c3 is the C3 linearisation of c's bases: Python's method resolution
// order.
func c3(c *Class) ([]*Class, error) {
	var seqs [][]*Class
	for _, b := range c.Bases {
		seqs = append(seqs, append([]*Class(nil), b.MRO...))
	}
	seqs = append(seqs, append([]*Class(nil), c.Bases...))
	out := []*Class{c}
	for {
		empty := true
		for _, s := range seqs {
			if len(s) > 0 {
				empty = false
			}
		}
		if empty {
			return out, nil
		}
		var head *Class
		for _, s := range seqs {
			if len(s) == 0 {
				continue
			}
			cand := s[0]
			inTail := false
			for _, t := range seqs {
				for _, x := range t[min(1, len(t)):] {
					if x == cand {
						inTail = true
					}
				}
			}
			if !inTail {
				head = cand
				break
			}
		}
		if head == nil {
			names := make([]string, len(c.Bases))
			for i, b := range c.Bases {
				names[i] = b.Name
			}
			return nil, fmt.Errorf("Cannot create a consistent method resolution order (MRO) for bases %s", strings.Join(names, ", "))
		}
		out = append(out, head)
		for i, s := range seqs {
			if len(s) > 0 && s[0] == head {
				seqs[i] = s[1:]
			}
		}
	}
}

// Instance is an instance of a class made by a class statement (or of
// a built-in class written in Python, such as nn.Module).
type Instance struct {
	Header
	cls       *Class
	Dict      *Dict // __dict__
	finalized bool  // __del__ has run
	// clsHeld is set while the instance holds a reference to its class.
	clsHeld bool
	// Native holds Go state of a built-in base: an exception's
	// traceback and cause.
	exc *excState
	// base is the built-in value of an instance of a subclass of a
	// built-in value type (subclass.go): its list, dict, str or int.
	base Value
	// dictCounted is set once the collector counted Dict as CPython
	// counts an instance's dict when it is made (MaterializeDict)
	dictCounted bool
	// dictOwner is the instance of a dict subclass whose dict Dict is,
	// when __dict__ was set to one (self.__dict__ = self makes the
	// reference cycle CPython makes, which only the collector breaks).
	dictOwner Value
}

// Type is the instance's class.
func (o *Instance) Type() *Class { return o.cls }

// Traverse visits the class, the instance dict and an exception's state.
func (o *Instance) Traverse(visit func(Value)) {
	visit(o.cls)
	if o.Dict != nil {
		visit(o.Dict)
	}
	if o.exc != nil {
		o.exc.traverse(visit)
	}
	if _, ok := o.base.(Object); ok {
		visit(o.base)
	}
	if o.dictOwner != nil {
		visit(o.dictOwner)
	}
}

// Clear drops the instance's attributes, its built-in value (after
// them, as CPython's subtype_dealloc calls the base's dealloc last),
// exception state and class.
func (o *Instance) Clear(in *Interp) {
	d, cls, exc, base, sd := o.Dict, o.cls, o.exc, o.base, o.dictOwner
	o.Dict, o.exc, o.base, o.dictOwner = nil, nil, nil, nil
	if sd != nil {
		in.Decref(sd)
	}
	if d != nil {
		in.Decref(d)
	}
	if base != nil {
		in.Decref(base)
	}
	if exc != nil {
		exc.clear(in)
	}
	if o.clsHeld {
		o.clsHeld = false
		in.Decref(cls)
	}
}

// newInstance makes an instance of cls with an empty __dict__.
func (in *Interp) newInstance(cls *Class) *Instance {
	o := &Instance{cls: cls, clsHeld: !cls.Native}
	if o.clsHeld {
		Incref(cls)
	}
	in.track(o)
	o.Dict = in.NewDict()
	in.uncount(o.Dict)
	if isException(cls) {
		o.exc = &excState{}
	}
	return o
}

// Attr returns the instance attribute name (borrowed) from its __dict__.
func (o *Instance) Attr(name string) (Value, bool) {
	if o.Dict == nil {
		return nil, false
	}
	return o.Dict.getStr(name)
}

// method declares a method of a built-in class.
func method(c *Class, name string, fn GoFunc) { c.SetMethod(NewBuiltin(name, "", fn)) }

// newInstanceWith makes an instance of a Go-declared class with
// attributes (borrowed values).
func (in *Interp) newInstanceWith(cls *Class, attrs ...any) *Instance {
	o := in.newInstance(cls)
	for i := 0; i+1 < len(attrs); i += 2 {
		in.SetStr(o.Dict, attrs[i].(string), attrs[i+1])
	}
	return o
}
