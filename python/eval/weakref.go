package eval

import (
	_ "embed"
	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// weakRef is weakref.ref(obj[, callback]): it holds no reference to
// obj; calling it gives obj while obj lives, None after. When obj dies
// its weak references are cleared and their callbacks run, newest
// first, before obj's memory goes (as CPython clears weak references
// before it frees an object's contents).
type weakRef struct {
	Header
	target   Object
	callback Value // nil when none
	// finalize is set for weakref.finalize: the callback runs with args.
	finalize bool
	args     *Tuple
}

var (
	weakRefType  = NewClass("ReferenceType", "weakref")
	finalizeType = NewClass("finalize", "weakref")
)

func (w *weakRef) Type() *Class {
	if w.finalize {
		return finalizeType
	}
	return weakRefType
}

func (w *weakRef) Traverse(visit func(Value)) {
	if w.callback != nil {
		visit(w.callback)
	}
	if w.args != nil {
		visit(w.args)
	}
}

func (w *weakRef) Clear(in *Interp) {
	cb, args := w.callback, w.args
	w.callback, w.args = nil, nil
	if w.target != nil {
		refs := in.weakrefs[w.target]
		for i, r := range refs {
			if r == w {
				in.weakrefs[w.target] = append(refs[:i], refs[i+1:]...)
				break
			}
		}
		w.target = nil
	}
	if cb != nil {
		in.Decref(cb)
	}
	if args != nil {
		in.Decref(args)
	}
}

// clearWeakrefs runs when o dies: its weak references go dead and their
// callbacks run, newest first.
func (in *Interp) clearWeakrefs(o Object, refs []*weakRef) {
	delete(in.weakrefs, o)
	for i := len(refs) - 1; i >= 0; i-- {
		w := refs[i]
		w.target = nil
		cb := w.callback
		if cb == nil {
			continue
		}
		Incref(w)
		var err error
		var r Value
		if w.finalize {
			w.callback = nil
			r, err = in.call(cb, w.args.items, nil)
			in.Decref(cb)
		} else {
			r, err = in.call(cb, []Value{w}, nil)
		}
		if err != nil {
			in.unraisable(err, "Exception ignored in weakref callback")
		} else {
			in.Decref(r)
		}
		if w.finalize {
			in.Decref(w) // the registry's reference
		}
		in.Decref(w)
	}
}

func init() {
	weakRefType.SetMethod(NewBuiltin("__call__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.noKw("weakref", kw); err != nil {
			return nil, err
		}
		if err := in.unpackExpected("weakref", args, nil); err != nil {
			return nil, err
		}
		w := self.(*weakRef)
		if w.target == nil {
			return None, nil
		}
		return newRef(w.target), nil
	}))
	finalizeType.SetMethod(NewBuiltin("__call__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		var unused Value
		if err := in.unpackMethodDef("finalize.__call__", args, kw, "_?", &unused); err != nil {
			return nil, err
		}
		w := self.(*weakRef)
		cb := w.callback
		if cb == nil || w.target == nil {
			return None, nil
		}
		w.callback = nil
		r, err := in.call(cb, w.args.items, nil)
		in.Decref(cb)
		in.Decref(w) // the registry's reference: the caller still holds one
		return r, err
	}))
	finalizeType.SetAttr("alive", NewProperty(NewBuiltin("alive", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		w := self.(*weakRef)
		return w.callback != nil && w.target != nil, nil
	}), nil))
}

func weakrefModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("weakref")
	m.Set(in, "ReferenceType", weakRefType)
	mk := func(obj Value, cb Value, fin bool, args []Value) (Value, error) {
		o, ok := obj.(Object)
		if !ok {
			return nil, in.typeError("cannot create weak reference to '%s' object", TypeOf(obj).Name)
		}
		w := &weakRef{target: o, finalize: fin}
		if cb != nil && cb != None {
			w.callback = newRef(cb)
		}
		if fin {
			items := make([]Value, len(args))
			for i, a := range args {
				items[i] = newRef(a)
			}
			w.args = in.NewTuple(items)
		}
		in.track(w)
		in.weakrefs[o] = append(in.weakrefs[o], w)
		if fin {
			Incref(w) // a finalize object lives until it runs, as CPython's registry keeps it
		}
		return w, nil
	}
	in.fn(m, "ref", "ref(object[, callback])", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var obj, cb Value
		if err := in.unpackExpected("__new__", args, kw, "object", &obj, "callback?", &cb, "/"); err != nil {
			return nil, err
		}
		if o, ok := obj.(Object); ok && (cb == nil || cb == None) {
			// CPython hands out an object's one reference without a
			// callback again (weakref___new__'s get_basic_refs)
			for _, w := range in.weakrefs[o] {
				if w.callback == nil && !w.finalize {
					return newRef(w), nil
				}
			}
		}
		return mk(obj, cb, false, nil)
	})
	in.fn(m, "finalize", "finalize(obj, func, *args)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var obj, fn Value
		if err := in.unpackMethodDef("finalize.__init__", args[:min(len(args), 2)], nil, "obj", &obj, "func", &fn); err != nil {
			return nil, err
		}
		if len(kw) > 0 {
			return nil, in.Refuse(NotImplementedErrType, "this tool does not pass keyword arguments to a weakref.finalize callback")
		}
		return mk(obj, fn, true, args[2:])
	})
	fr := in.ModuleFrame("<weakref>", m.Dict)
	defer in.Release(fr)
	return m, in.ExecSource(fr, "<weakref>", weakValueDictionarySource)
}

// weakValueDictionarySource is weakref.WeakValueDictionary, written in
// Python over ref: a dict whose values are weak references, an entry
// dropped by its reference's callback when its value dies (the callback
// reaches the dictionary through a weak reference, as CPython's does, so
// no cycle keeps it).
//
//go:embed lib/weakref.py
var weakValueDictionarySource string

// ExecSource runs Python source held by the Go program (a module's
// part written in Python, names a front end predefines) in frame fr,
// statement by statement; the first error stops it.
func (in *Interp) ExecSource(fr *Frame, file, src string) error {
	mod, err := syntax.ParseFile(file, []byte(src), nil)
	if err != nil {
		return err
	}
	for _, s := range mod.Body {
		if err := in.ExecStmt(fr, s); err != nil {
			return err
		}
	}
	return nil
}
