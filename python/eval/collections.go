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
	in.fn(m, "_odict_view", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		// an OrderedDict's keys(), values() or items() (by name): its
		// dict's view, of CPython's odict_ classes
		var od Value
		var name string
		if err := in.UnpackArgs("_odict_view", args, kw, "od", &od, "name", &name, "/"); err != nil {
			return nil, err
		}
		d, ok := DictOf(od)
		kind, known := map[string]viewKind{"keys": viewKeys, "values": viewValues, "items": viewItems}[name]
		if !ok || !known {
			return nil, in.typeError("_odict_view(%s, %q): not an OrderedDict's view", TypeOf(od).Name, name)
		}
		v := in.newView(d, kind)
		v.ordered = true
		return v, nil
	})
	return in.execModule(m, collectionsSource)
}

//go:embed lib/collections.py
var collectionsSource string
