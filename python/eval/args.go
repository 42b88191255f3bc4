package eval

// ArgSpec checks a Go function's arguments as CPython's argument
// clinic does: at most len(names) of them, positionally or by keyword,
// the first required of them needed. It returns them in names order,
// nil where absent (borrowed).
func (in *Interp) ArgSpec(fn string, args []Value, kw []KeywordArg, required int, names ...string) ([]Value, error) {
	if len(args) > len(names) {
		if len(names) == 0 {
			return nil, in.typeError("%s() takes no arguments (%d given)", fn, len(args))
		}
		return nil, in.typeError("%s() takes at most %d argument%s (%d given)", fn, len(names), plural(len(names)), len(args))
	}
	out := make([]Value, len(names))
	copy(out, args)
	for _, k := range kw {
		found := false
		for i, n := range names {
			if n == k.Name {
				if out[i] != nil {
					return nil, in.typeError("argument for %s() given by name ('%s') and position (%d)", fn, n, i+1)
				}
				out[i] = k.Value
				found = true
			}
		}
		if !found {
			return nil, in.typeError("%s() got an unexpected keyword argument '%s'", fn, k.Name)
		}
	}
	for i := range required {
		if out[i] == nil {
			return nil, in.typeError("%s() missing required argument '%s' (pos %d)", fn, names[i], i+1)
		}
	}
	return out, nil
}

// fixedArgs checks a count of positional arguments, without keywords.
func (in *Interp) fixedArgs(fn string, args []Value, kw []KeywordArg, min, max int) error {
	if err := in.noKw(fn, kw); err != nil {
		return err
	}
	switch {
	case min == max && len(args) != min:
		if min == 0 {
			return in.typeError("%s() takes no arguments (%d given)", fn, len(args))
		}
		if min == 1 {
			return in.typeError("%s() takes exactly one argument (%d given)", fn, len(args))
		}
		return in.typeError("%s expected %d arguments, got %d", fn, min, len(args))
	case len(args) < min:
		return in.typeError("%s expected at least %d argument%s, got %d", fn, min, plural(min), len(args))
	case len(args) > max:
		return in.typeError("%s expected at most %d argument%s, got %d", fn, max, plural(max), len(args))
	}
	return nil
}
