package eval

import _ "embed"

// Copier is what an embedder implements to take part in the copy
// module for its own objects (a tensor, whose copy is the embedder's
// memory rule): ok false leaves v to the generic rules.
type Copier interface {
	// ShallowCopy is copy.copy(v).
	ShallowCopy(in *Interp, v Value) (c Value, ok bool, err error)
	// DeepCopy is copy.deepcopy(v, memo), memo the call's dict.
	DeepCopy(in *Interp, v Value, memo *Dict) (c Value, ok bool, err error)
}

// copyModule is copy, written in Python over two hooks into the
// embedder's objects: CPython's rules -- atomic values are themselves,
// containers are copied item by item (deepcopy keeping a memo so that
// an object reached twice is copied once, and the originals alive until
// the call ends), __copy__/__deepcopy__ are honoured, and an instance
// is made with cls.__new__ and given its __dict__ (copied) or
// __setstate__. An embedded object the embedder does not copy (no
// Copier, or ok false) is refused as not modelled.
func copyModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("copy")
	native := func(name string, deep bool) {
		in.fn(m, name, "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			var x, memo Value
			if err := in.UnpackArgs(name, args, kw, "x", &x, "memo", &memo, "/"); err != nil {
				return nil, err
			}
			c, ok := in.Embedder.(Copier)
			if !ok {
				return newRef(NotImplemented), nil
			}
			var v Value
			var done bool
			var err error
			if deep {
				memo, isDict := memo.(*Dict)
				if !isDict {
					return nil, in.typeError("memo must be a dict")
				}
				v, done, err = c.DeepCopy(in, x, memo)
			} else {
				v, done, err = c.ShallowCopy(in, x)
			}
			if err != nil || done {
				return v, err
			}
			return newRef(NotImplemented), nil
		})
	}
	in.fn(m, "_value", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var x Value
		if err := in.UnpackArgs("_value", args, kw, "x", &x, "/"); err != nil {
			return nil, err
		}
		if o, ok := x.(*Instance); ok && o.base != nil {
			return newRef(o.base), nil
		}
		return None, nil
	})
	native("_embedded_copy", false)
	native("_embedded_deepcopy", true)
	fr := in.ModuleFrame("<copy>", m.Dict)
	defer in.Release(fr)
	return m, in.ExecSource(fr, "<copy>", copySource)
}

// copySource is the copy module's Python part (copyModule).
//
//go:embed lib/copy.py
var copySource string
