package eval

// ArgSpec checks the arguments of a Go function of the embedder (torchpy's
// PyTorch functions): at most len(names) of them, positionally or by
// keyword, the first required of them needed. It returns them in names
// order, nil where absent (borrowed). Its words are Argument Clinic's
// for a count and a def's for an unknown keyword; PyTorch's own argument
// parser words its errors otherwise, which is not modelled. The
// evaluator's own functions use UnpackArgs.
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
