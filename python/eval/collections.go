package eval

import _ "embed"

// collectionsModule is collections: deque (Go, deque.go) and, written
// in Python over the built-in types' subclasses, OrderedDict,
// defaultdict, Counter and namedtuple, with CPython's reprs, missing-key
// behaviour, ordering and errors.
func collectionsModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("collections")
	m.Set(in, "deque", dequeType)
	in.fn(m, "_caller_module", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		// the module namedtuple was called from: its class's __module__
		if f := in.frame; f != nil && f.back != nil {
			if name, ok := f.back.globals.getStr("__name__"); ok {
				return name, nil
			}
		}
		return "__main__", nil
	})
	return in.execModule(m, collectionsSource)
}

//go:embed lib/collections.py
var collectionsSource string
