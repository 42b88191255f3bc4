package eval

// typingAlias is the class of typing's names (List, Optional...):
// subscripting one gives it back, as annotations need nothing more.
var typingAlias = NewClass("_SpecialForm", "typing")

// typing.List[int] and the like give the alias back; its repr is
// CPython's.
func init() {
	method(typingAlias, "__getitem__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		return newRef(self), nil
	})
	method(typingAlias, "__repr__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		name, _ := self.(*Instance).Dict.GetStr("_name")
		return "typing." + in.StrOf(name), nil
	})
}

// typingModule is typing: its names, for annotations only.
func typingModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("typing")
	for _, name := range []string{"Any", "Optional", "Union", "Callable", "Iterable", "Iterator", "Sequence", "Mapping", "Type", "Generator", "ClassVar", "Final", "Literal"} {
		o := &Instance{cls: typingAlias, Dict: in.NewDict()}
		in.track(o)
		in.SetStr(o.Dict, "_name", name)
		m.Set(in, name, o)
		in.Decref(o)
	}
	for name, c := range map[string]*Class{"List": ListType, "Dict": DictType, "Tuple": TupleType, "Set": SetType} {
		m.Set(in, name, c)
	}
	return m, nil
}
