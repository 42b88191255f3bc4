package eval

import (
	_ "embed"
	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// inspectModule is inspect's signature (with Signature and Parameter,
// their parameters mapping, str and repr as CPython prints them) and
// the is* predicates; a function's parameters come from its definition,
// a class's from its __init__ less self, and a class of the tool's own
// whose __init__ is Go from its __signature_params__: (name, kind) or
// (name, kind, default) tuples, kinds as inspect numbers them.
func inspectModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("inspect")
	in.fn(m, "_function_params", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		f, ok := args[0].(*Function)
		if !ok {
			return None, nil
		}
		empty := args[1]
		p := f.params
		var items []Value
		add := func(name string, kind int64, def Value) {
			items = append(items, in.NewTuple([]Value{name, kind, newRef(def)}))
		}
		positional := append(append([]*syntax.Arg(nil), p.Posonlyargs...), p.Args...)
		first := len(positional) - len(f.defaults)
		for i, a := range positional {
			kind := int64(1)
			if i < len(p.Posonlyargs) {
				kind = 0
			}
			def := empty
			if i >= first {
				def = f.defaults[i-first]
			}
			add(a.Arg, kind, def)
		}
		if p.Vararg != nil {
			add(p.Vararg.Arg, 2, empty)
		}
		for i, a := range p.Kwonlyargs {
			def := empty
			if i < len(f.kwdefaults) && f.kwdefaults[i] != nil {
				def = f.kwdefaults[i]
			}
			add(a.Arg, 3, def)
		}
		if p.Kwarg != nil {
			add(p.Kwarg.Arg, 4, empty)
		}
		return in.NewList(items), nil
	})
	return in.execModule(m, inspectSource)
}

//go:embed lib/inspect.py
var inspectSource string
