package eval

import (
	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// Frame is one running (or finished, but still referenced) execution
// of a module, class body, function or comprehension. A traceback that
// holds a frame keeps its locals alive, as in CPython.
type Frame struct {
	Header
	code    *code
	name    string
	file    string
	locals  []Value // fast locals in code order; a cell variable's slot holds its *Cell
	globals *Dict
	// ns is the namespace of a module or class body (names not in
	// slots); nil in a function.
	ns      *Dict
	closure []*Cell // the free variables' cells
	back    *Frame
	// start and end are where the frame is: the expression running.
	start, end syntax.Pos
	ret        Value // a return's value
	gen        *Generator
	toplevel   bool // the module frame
	fn         *Function
	// classCell is a class body's __class__ cell, set to the class once
	// it is made (super() in its methods reads it).
	classCell *Cell
	// fBack is the caller's frame, held once this frame's frame object
	// outlived it (takeOwnership: CPython's f_back).
	fBack *Frame
}

// Type is frame.
func (f *Frame) Type() *Class { return FrameType }

// Traverse visits the locals and namespaces.
func (f *Frame) Traverse(visit func(Value)) {
	for _, v := range f.locals {
		if v != nil {
			visit(v)
		}
	}
	if f.globals != nil {
		visit(f.globals)
	}
	if f.ns != nil && f.ns != f.globals {
		visit(f.ns)
	}
	for _, c := range f.closure {
		visit(c)
	}
	if f.classCell != nil {
		visit(f.classCell)
	}
	if f.fBack != nil {
		visit(f.fBack)
	}
}

// Clear drops the frame's locals in slot order (as CPython clears a
// frame), then its namespaces.
func (f *Frame) Clear(in *Interp) {
	locals, g, ns, cl, cc, back := f.locals, f.globals, f.ns, f.closure, f.classCell, f.fBack
	f.locals, f.globals, f.ns, f.closure, f.classCell, f.fBack = nil, nil, nil, nil, nil, nil
	if cc != nil {
		in.Decref(cc)
	}
	if back != nil {
		in.Decref(back)
	}
	for i, v := range locals {
		if v != nil {
			locals[i] = nil
			in.Decref(v)
		}
	}
	for _, c := range cl {
		in.Decref(c)
	}
	if ns != nil && ns != g {
		in.Decref(ns)
	}
	if g != nil {
		in.Decref(g)
	}
}

// newFrame makes a frame for code c, holding references to globals and
// the closure's cells.
func (in *Interp) newFrame(c *code, name, file string, globals *Dict, closure []*Cell) *Frame {
	fr := &Frame{code: c, name: name, file: file, globals: globals, back: in.frame}
	Incref(globals)
	if c != nil {
		fr.locals = make([]Value, c.nlocal)
	}
	for _, cell := range closure {
		Incref(cell)
	}
	fr.closure = closure
	in.track(fr)
	return fr
}

// ModuleFrame makes the frame a module's statements run in.
func (in *Interp) ModuleFrame(file string, globals *Dict) *Frame {
	fr := in.newFrame(nil, "<module>", file, globals, nil)
	fr.ns = globals
	fr.toplevel = true
	return fr
}

// Release lets go of a frame the caller made.
func (in *Interp) Release(fr *Frame) { in.Decref(fr) }

// setPos records where the frame is.
func (fr *Frame) setPos(n interface {
	Span() (syntax.Pos, syntax.Pos)
}) {
	fr.start, fr.end = n.Span()
}

// makeCells puts a fresh cell in every cell variable's slot, holding
// the parameter's value where the cell is a parameter.
func (in *Interp) makeCells(fr *Frame) {
	for _, name := range fr.code.scope.Cells {
		i := fr.code.slots[name]
		c := &Cell{V: fr.locals[i]}
		in.track(c)
		fr.locals[i] = c
	}
}

// nameKind is where a name lives in a frame.
type nameKind uint8

const (
	nameFast      nameKind = iota // a plain local slot
	nameCell                      // a local slot holding a cell
	nameFree                      // a closure cell
	nameGlobal                    // globals, then builtins
	nameNS                        // a module or class namespace (then globals, builtins)
	nameClassFree                 // class body: namespace, then the closure cell
)

// where says where name lives in fr, and its slot.
func (fr *Frame) where(name string) (nameKind, int) {
	c := fr.code
	if fr.ns != nil {
		if c != nil {
			if c.global[name] {
				return nameGlobal, 0
			}
			if i, ok := c.free[name]; ok {
				return nameClassFree, i
			}
		}
		return nameNS, 0
	}
	if i, ok := c.slots[name]; ok {
		if c.cells[name] {
			return nameCell, i
		}
		return nameFast, i
	}
	if i, ok := c.free[name]; ok {
		return nameFree, i
	}
	return nameGlobal, 0
}

// loadName reads a name (an owned reference), or raises NameError.
func (in *Interp) loadName(fr *Frame, name string) (Value, error) {
	kind, i := fr.where(name)
	switch kind {
	case nameFast:
		if v := fr.locals[i]; v != nil {
			return newRef(v), nil
		}
		return nil, in.Raise(UnboundLocalErrorType, "cannot access local variable '%s' where it is not associated with a value", name)
	case nameCell, nameFree:
		var c *Cell
		if kind == nameCell {
			c = fr.locals[i].(*Cell)
		} else {
			c = fr.closure[i]
		}
		if c.V != nil {
			return newRef(c.V), nil
		}
		if kind == nameCell {
			return nil, in.Raise(UnboundLocalErrorType, "cannot access local variable '%s' where it is not associated with a value", name)
		}
		return nil, in.Raise(NameErrorType, "cannot access free variable '%s' where it is not associated with a value in enclosing scope", name)
	case nameClassFree:
		if v, ok := fr.ns.getStr(name); ok {
			return newRef(v), nil
		}
		if v := fr.closure[i].V; v != nil {
			return newRef(v), nil
		}
		return nil, in.Raise(NameErrorType, "cannot access free variable '%s' where it is not associated with a value in enclosing scope", name)
	case nameNS:
		if v, ok := fr.ns.getStr(name); ok {
			return newRef(v), nil
		}
	}
	if v, ok := fr.globals.getStr(name); ok {
		return newRef(v), nil
	}
	if v, ok := in.builtins.getStr(name); ok {
		return newRef(v), nil
	}
	return nil, in.nameError(fr, name)
}

// storeName binds name to v, taking over the caller's reference. The
// old value is dropped after the new one is bound.
func (in *Interp) storeName(fr *Frame, name string, v Value) {
	kind, i := fr.where(name)
	var old Value
	switch kind {
	case nameFast, nameCell, nameFree:
		old = fr.swapSlot(kind, i, v)
	case nameClassFree, nameNS:
		old = putNS(fr.ns, name, v)
		if fr.toplevel && in.Hooks.Bound != nil {
			in.Hooks.Bound(name, v)
		}
	case nameGlobal:
		old = putNS(fr.globals, name, v)
	}
	if old != nil {
		in.Labeled(old, "old "+name)
	}
}

// swapSlot puts v (nil: unbound) in a local slot, a cell local or a
// free variable's cell, and returns what was there.
func (fr *Frame) swapSlot(kind nameKind, i int, v Value) (old Value) {
	switch kind {
	case nameCell:
		c := fr.locals[i].(*Cell)
		old, c.V = c.V, v
	case nameFree:
		c := fr.closure[i]
		old, c.V = c.V, v
	default:
		old, fr.locals[i] = fr.locals[i], v
	}
	return old
}

// putNS stores name: v in a namespace dict, taking v's reference, and
// returns the value it replaces (the caller's to drop), or nil.
func putNS(d *Dict, name string, v Value) Value {
	k := hashKey{kind: keyStr, s: name}
	d.version++
	if i, ok := d.index[k]; ok {
		old := d.entries[i].val
		d.entries[i].val = v
		return old
	}
	d.index[k] = len(d.entries)
	d.entries = append(d.entries, dictEntry{key: name, val: v, k: k})
	d.n++
	return nil
}

// deleteName is del name.
func (in *Interp) deleteName(fr *Frame, name string) error {
	kind, i := fr.where(name)
	var old Value
	switch kind {
	case nameFast, nameCell, nameFree:
		old = fr.swapSlot(kind, i, nil)
	default:
		d := fr.ns
		if kind == nameGlobal || d == nil {
			d = fr.globals
		}
		v, ok := d.getStr(name)
		if !ok {
			return in.nameError(fr, name)
		}
		Incref(v)
		in.delStr(d, name)
		in.Labeled(v, name)
		return nil
	}
	if old == nil {
		if kind == nameFree {
			return in.Raise(NameErrorType, "cannot access free variable '%s' where it is not associated with a value in enclosing scope", name)
		}
		return in.Raise(UnboundLocalErrorType, "cannot access local variable '%s' where it is not associated with a value", name)
	}
	in.Labeled(old, name)
	return nil
}

// nameError is NameError for name, with the "Did you mean" hint the
// traceback shows when a name in scope is close.
func (in *Interp) nameError(fr *Frame, name string) error {
	msg := "name '" + name + "' is not defined"
	hint := ""
	var cands []string
	if fr.code != nil {
		cands = append(cands, fr.code.scope.Locals...)
	}
	for _, d := range []*Dict{fr.ns, fr.globals, in.builtins} {
		if d != nil {
			for _, k := range d.keys() {
				if s, ok := k.(string); ok {
					cands = append(cands, s)
				}
			}
		}
	}
	if s := closest(name, cands); s != "" {
		hint = ". Did you mean: '" + s + "'?"
	}
	err := in.Raise(NameErrorType, "%s", msg)
	err.(*Exception).Inst.exc.hint = hint
	return err
}

// Globals is the frame's global namespace (borrowed).
func (fr *Frame) Globals() *Dict { return fr.globals }

// Bind binds name in fr as an assignment does, taking v's reference;
// the old value is dropped after, called "old NAME".
func (in *Interp) Bind(fr *Frame, name string, v Value) { in.storeName(fr, name, v) }

// Unbind is del name in fr.
func (in *Interp) Unbind(fr *Frame, name string) error { return in.deleteName(fr, name) }
