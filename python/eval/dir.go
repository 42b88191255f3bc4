package eval

import "sort"

// Dir is the attribute names dir(v) lists, sorted: a module's namespace;
// a class's and its bases'; for any other value its own (an instance's
// __dict__) and its type's.
func Dir(v Value) []string {
	seen := map[string]bool{}
	add := func(d *Dict) {
		if d == nil {
			return
		}
		d.Items(func(k, _ Value) bool {
			if s, ok := k.(string); ok {
				seen[s] = true
			}
			return true
		})
	}
	classes := TypeOf(v).MRO
	switch o := v.(type) {
	case *ModuleObj:
		add(o.Dict)
		classes = nil
	case *Class:
		classes = o.MRO
	case *Instance:
		add(o.Dict)
	}
	for _, c := range classes {
		add(c.Dict)
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// builtinDir is dir([object]): without an argument the names bound in
// the caller's scope; with one, the list its class's __dir__ returns
// when the program defines one, else Dir's; sorted either way.
func builtinDir(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var obj Value
	if err := in.UnpackArgs("dir", args, kw, "object?", &obj, "/"); err != nil {
		return nil, err
	}
	var names []Value
	switch {
	case obj == nil:
		for _, s := range in.frame.boundNames() {
			names = append(names, s)
		}
	case isFunction(TypeOf(obj).lookup("__dir__")):
		r, err := in.CallMethod(obj, "__dir__")
		if err != nil {
			return nil, err
		}
		names, err = in.collect(r)
		in.Decref(r)
		if err != nil {
			return nil, err
		}
	default:
		for _, s := range Dir(obj) {
			names = append(names, s)
		}
	}
	l := in.NewList(names)
	if err := in.sortList(l, nil, nil); err != nil {
		in.Decref(l)
		return nil, err
	}
	return l, nil
}

// boundNames are the names a frame has bound: a module's or class
// body's namespace, a function's locals and free variables with a value.
func (fr *Frame) boundNames() []string {
	if fr.ns != nil {
		var out []string
		fr.ns.Items(func(k, _ Value) bool {
			if s, ok := k.(string); ok {
				out = append(out, s)
			}
			return true
		})
		return out
	}
	var out []string
	for i, name := range fr.code.scope.Locals {
		if i >= len(fr.locals) {
			break
		}
		v := fr.locals[i]
		if c, ok := v.(*Cell); ok && fr.code.cells[name] {
			v = c.V
		}
		if v != nil {
			out = append(out, name)
		}
	}
	for name, i := range fr.code.free {
		if i < len(fr.closure) && fr.closure[i].V != nil {
			out = append(out, name)
		}
	}
	return out
}

// isFunction reports whether v is a function written in Python (a
// class's own __dir__, not object's).
func isFunction(v Value) bool {
	_, ok := v.(*Function)
	return ok
}
