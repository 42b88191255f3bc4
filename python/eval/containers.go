package eval

// List is a Python list.
type List struct {
	Header
	items []Value
}

// Type is list.
func (l *List) Type() *Class { return ListType }

// Traverse visits the elements.
func (l *List) Traverse(visit func(Value)) {
	for _, v := range l.items {
		visit(v)
	}
}

// Clear empties the list, dropping its elements last first (as
// CPython's list_dealloc and list.clear do).
func (l *List) Clear(in *Interp) {
	items := l.items
	l.items = nil
	in.decrefAll(items)
}

// Items are the list's elements (borrowed; do not keep the slice).
func (l *List) Items() []Value { return l.items }

// NewList makes a list that takes over the references in items.
func (in *Interp) NewList(items []Value) *List {
	l := &List{items: items}
	in.track(l)
	return l
}

// Append adds v to l, taking a new reference.
func (l *List) Append(v Value) { l.items = append(l.items, newRef(v)) }

// Tuple is a Python tuple.
type Tuple struct {
	Header
	items []Value
	cls   *Class // a tuple subclass written in Go (torch.Size), or nil
}

// Type is tuple (or the subclass).
func (t *Tuple) Type() *Class {
	if t.cls != nil {
		return t.cls
	}
	return TupleType
}

// Traverse visits the elements.
func (t *Tuple) Traverse(visit func(Value)) {
	for _, v := range t.items {
		visit(v)
	}
}

// Clear drops the elements, last first.
func (t *Tuple) Clear(in *Interp) {
	items := t.items
	t.items = nil
	if t.cls != nil && t.cls.StructSeq {
		for _, v := range items {
			in.Decref(v)
		}
		return
	}
	in.decrefAll(items)
}

// Items are the tuple's elements (borrowed).
func (t *Tuple) Items() []Value { return t.items }

// NewTuple makes a tuple that takes over the references in items.
func (in *Interp) NewTuple(items []Value) *Tuple {
	t := &Tuple{items: items}
	in.track(t)
	return t
}

// noneTuple is a tuple of n Nones: one that stands for a tuple CPython
// makes whose items do not matter here.
func (in *Interp) noneTuple(n int) Value {
	items := make([]Value, n)
	for i := range items {
		items[i] = None
	}
	return in.NewTuple(items)
}

// NewTupleOf makes a tuple of a Go-declared tuple subclass (torch.Size)
// that takes over the references in items. CPython allocates a
// subclass's instance on its own (type_call's tp_alloc), not from the
// tuple free list, which serves exact tuples only.
func (in *Interp) NewTupleOf(cls *Class, items []Value) *Tuple {
	t := &Tuple{items: items, cls: cls}
	in.track(t)
	return t
}

// Set is a Python set (or frozenset).
type Set struct {
	Header
	d      *Dict // keys only; values None
	frozen bool
}

// Type is set or frozenset.
func (s *Set) Type() *Class {
	if s.frozen {
		return FrozenSetType
	}
	return SetType
}

// Traverse visits the members.
func (s *Set) Traverse(visit func(Value)) {
	if s.d != nil {
		visit(s.d)
	}
}

// Clear drops the members.
func (s *Set) Clear(in *Interp) {
	d := s.d
	s.d = nil
	if d != nil {
		in.Decref(d)
	}
}

// SetOf is v's members, as a dict of each to None: a set's, or the set's
// under an instance of a set subclass. A front end reads them; it
// changes a set through its methods.
func SetOf(v Value) (*Dict, bool) {
	if o, ok := v.(*Instance); ok && o.base != nil {
		v = o.base
	}
	s, ok := v.(*Set)
	if !ok || s.d == nil {
		return nil, false
	}
	return s.d, true
}

func (in *Interp) newSet() *Set {
	s := &Set{d: in.NewDict()}
	in.uncount(s.d) // CPython's set keeps its table in itself: one object
	in.track(s)
	return s
}

func (in *Interp) setAdd(s *Set, v Value) error { return in.dictSet(s.d, v, None) }

// Range is a range object: no references of its own (ints only).
type Range struct {
	Start, Stop, Step int64
}

// Len is the number of elements.
func (r *Range) Len() int64 {
	switch {
	case r.Step > 0 && r.Start < r.Stop:
		return (r.Stop - r.Start + r.Step - 1) / r.Step
	case r.Step < 0 && r.Start > r.Stop:
		return (r.Start - r.Stop - r.Step - 1) / -r.Step
	}
	return 0
}

// SliceObj is a slice object, start:stop:step (each None or a value).
type SliceObj struct {
	Header
	Start, Stop, Step Value
}

// Type is slice.
func (s *SliceObj) Type() *Class { return SliceType }

// Traverse visits the three parts.
func (s *SliceObj) Traverse(visit func(Value)) {
	visit(s.Start)
	visit(s.Stop)
	visit(s.Step)
}

// Clear drops the three parts.
func (s *SliceObj) Clear(in *Interp) {
	a, b, c := s.Start, s.Stop, s.Step
	s.Start, s.Stop, s.Step = None, None, None
	in.Decref(a)
	in.Decref(b)
	in.Decref(c)
}

// Cell is a closure cell: a variable an inner function shares with the
// scope that binds it. V is nil while the variable is unbound.
type Cell struct {
	Header
	V Value
}

// Type is cell.
func (c *Cell) Type() *Class { return CellType }

// Traverse visits the content.
func (c *Cell) Traverse(visit func(Value)) {
	if c.V != nil {
		visit(c.V)
	}
}

// Clear empties the cell.
func (c *Cell) Clear(in *Interp) {
	v := c.V
	c.V = nil
	if v != nil {
		in.Decref(v)
	}
}

// ModuleObj is an imported module.
type ModuleObj struct {
	Header
	Name string
	Dict *Dict
}

// Type is module.
func (m *ModuleObj) Type() *Class { return ModuleType }

// Traverse visits the namespace.
func (m *ModuleObj) Traverse(visit func(Value)) {
	if m.Dict != nil {
		visit(m.Dict)
	}
}

// Clear drops the namespace.
func (m *ModuleObj) Clear(in *Interp) {
	d := m.Dict
	m.Dict = nil
	if d != nil {
		in.Decref(d)
	}
}

// NewModule makes an empty module named name.
func (in *Interp) NewModule(name string) *ModuleObj {
	m := &ModuleObj{Name: name, Dict: in.NewDict()}
	in.track(m)
	in.SetStr(m.Dict, "__name__", name)
	return m
}

// Set binds name in the module, taking a reference to v.
func (m *ModuleObj) Set(in *Interp, name string, v Value) { in.SetStr(m.Dict, name, v) }

// Property is a property: a getter and maybe a setter, each a function
// or a Builtin taking the instance.
type Property struct {
	Header
	Get, Set Value
	Doc      string
}

// Type is property.
func (p *Property) Type() *Class { return PropertyType }

// Traverse visits the accessors.
func (p *Property) Traverse(visit func(Value)) {
	if p.Get != nil {
		visit(p.Get)
	}
	if p.Set != nil {
		visit(p.Set)
	}
}

// Clear drops the accessors.
func (p *Property) Clear(in *Interp) {
	g, s := p.Get, p.Set
	p.Get, p.Set = nil, nil
	if g != nil {
		in.Decref(g)
	}
	if s != nil {
		in.Decref(s)
	}
}

// NewProperty makes a property of Go accessors for a Go-declared class
// (it is never freed).
func NewProperty(get, set *Builtin) *Property {
	p := &Property{}
	p.refs = 1 << 30
	if get != nil {
		get.Method = true
		p.Get = get
	}
	if set != nil {
		set.Method = true
		p.Set = set
	}
	return p
}

// wrapper is staticmethod or classmethod around a function.
type wrapper struct {
	Header
	fn    Value
	class bool // classmethod
}

func (w *wrapper) Type() *Class {
	if w.class {
		return ClassMethodType
	}
	return StaticMethodType
}

func (w *wrapper) Traverse(visit func(Value)) { visit(w.fn) }

func (w *wrapper) Clear(in *Interp) {
	f := w.fn
	w.fn = None
	in.Decref(f)
}

// Method is a function bound to an instance (self), as x.f gives.
type Method struct {
	Header
	Fn, Self Value
}

// Type is method.
func (m *Method) Type() *Class { return MethodType }

// Traverse visits the function and self.
func (m *Method) Traverse(visit func(Value)) {
	visit(m.Fn)
	visit(m.Self)
}

// Clear drops the function and self.
func (m *Method) Clear(in *Interp) {
	f, s := m.Fn, m.Self
	m.Fn, m.Self = None, None
	in.Decref(s)
	in.Decref(f)
}

func (in *Interp) newMethod(fn, self Value) *Method {
	m := &Method{Fn: newRef(fn), Self: newRef(self)}
	in.track(m)
	return m
}
