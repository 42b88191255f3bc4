package eval

import _ "embed"

// itertoolsModule is itertools: count and islice in Go, the rest in
// Python (itertoolsSource).
func itertoolsModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("itertools")
	in.fn(m, "count", "count(start=0, step=1)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		a, err := in.ArgSpec("count", args, kw, 0, "start", "step")
		if err != nil {
			return nil, err
		}
		var start, step int64 = 0, 1
		if a[0] != nil {
			if start, err = in.Index(a[0]); err != nil {
				return nil, err
			}
		}
		if a[1] != nil {
			if step, err = in.Index(a[1]); err != nil {
				return nil, err
			}
		}
		return in.newIter(None, func(in *Interp, it *iterObj) (Value, bool, error) {
			it.i++
			return start + (it.i-1)*step, true, nil
		}), nil
	})
	in.fn(m, "islice", "islice(iterable, stop) or islice(iterable, start, stop[, step])", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("islice", args, kw, 2, 4); err != nil {
			return nil, err
		}
		bounds := make([]int64, 0, 3)
		for _, a := range args[1:] {
			if a == None {
				bounds = append(bounds, -1)
				continue
			}
			n, err := in.Index(a)
			if err != nil {
				return nil, err
			}
			bounds = append(bounds, n)
		}
		start, stop, step := int64(0), bounds[0], int64(1)
		if len(bounds) > 1 {
			start, stop = bounds[0], bounds[1]
		}
		if len(bounds) > 2 {
			step = bounds[2]
		}
		src, err := in.Iter(args[0])
		if err != nil {
			return nil, err
		}
		next := start
		it := in.newIter(src, func(in *Interp, it *iterObj) (Value, bool, error) {
			for it.src != nil && (stop < 0 || it.i < stop) {
				v, ok, err := in.Next(it.src)
				if err != nil || !ok {
					return nil, false, err
				}
				it.i++
				if it.i-1 == next {
					next += step
					return v, true, nil
				}
				in.Decref(v)
			}
			return nil, false, nil
		})
		in.Decref(src)
		return it, nil
	})
	return in.execModule(m, itertoolsSource)
}

// itertoolsSource is the rest of itertools (count and islice are Go,
// above), written in Python as generators that take their inputs
// when CPython's objects do: product, permutations and combinations
// read their iterables whole first; the others go item by item.
//
//go:embed lib/itertools.py
var itertoolsSource string
