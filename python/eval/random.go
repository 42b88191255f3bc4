package eval

// randomModule is random: numbers the tool does not compute, and the
// choices (choice, shuffle, sample) refused, as they decide which
// objects live.
func randomModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("random")
	in.fn(m, "seed", "seed(a=None): values are not computed, so this changes nothing", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		return None, nil
	})
	for _, name := range []string{"random", "uniform", "randint", "gauss", "randrange", "normalvariate"} {
		in.fn(m, name, name+"(...): not computed", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			return Unknown{What: "random." + name + "()"}, nil
		})
	}
	for _, name := range []string{"choice", "shuffle", "sample"} {
		in.fn(m, name, name+"(...): not modelled", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			return nil, in.Raise(NotImplementedErrType, "this tool does not compute random.%s, whose result decides which objects live", name)
		})
	}
	return m, nil
}
