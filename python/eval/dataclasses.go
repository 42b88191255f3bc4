package eval

import _ "embed"

// dataclassesModule is dataclasses, run from its Python source.
func dataclassesModule(in *Interp) (*ModuleObj, error) {
	return in.pythonModule("dataclasses", dataclassesSource)
}

// dataclassesSource is dataclasses, written in Python over the class
// machinery: @dataclass reads the class's __annotations__ in order (a
// base's fields first), keeps each default as the class attribute (a
// field() with a default_factory leaves none), and adds __init__,
// __repr__, __eq__ (and __hash__ = None unless frozen), the ordering
// methods with order=True, and frozen assignment checks. A default is
// one object shared by every instance that takes it, as in CPython; a
// default_factory runs once per instance; a default whose type is
// unhashable (a list, a list subclass, a dataclass with eq) is
// CPython's ValueError. KW_ONLY and InitVar pseudo-fields; __repr__
// prints ... for an instance already being printed (reprlib's
// recursive_repr). asdict and astuple deep-copy
// plain data only: CPython deep-copies every other value (a tensor's
// copy allocates), which is not modelled.
//
//go:embed lib/dataclasses.py
var dataclassesSource string
