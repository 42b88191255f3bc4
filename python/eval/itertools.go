package eval

import _ "embed"

// itertoolsModule is itertools: count and islice in Go, the rest in
// Python (itertoolsSource).
func itertoolsModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("itertools")
	in.fn(m, "count", "count(start=0, step=1)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var start, step Value = int64(0), int64(1)
		if err := in.UnpackArgs("count", args, kw, "start?", &start, "step?", &step); err != nil {
			return nil, err
		}
		for _, v := range []Value{start, step} {
			if !isNumber(plain(v)) {
				return nil, in.typeError("a number is required")
			}
		}
		// the next value and the step, held by the iterator
		state := in.NewList([]Value{newRef(start), newRef(step)})
		it := in.newIter(state, func(in *Interp, it *iterObj) (Value, bool, error) {
			st, _ := it.src.(*List)
			if st == nil {
				return nil, false, nil
			}
			v := st.items[0]
			next, err := in.BinOp(addOp, v, st.items[1], false)
			if err != nil {
				return nil, false, err
			}
			st.items[0] = next
			return v, true, nil
		})
		in.Decref(state)
		return it, nil
	})
	in.fn(m, "islice", "islice(iterable, stop) or islice(iterable, start, stop[, step])", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		// islice(iterable, stop) or islice(iterable, start, stop[, step]):
		// the bounds are b[:len(args)-1]
		var iterable Value
		var b [3]Value
		if err := in.UnpackArgs("islice", args, kw, "iterable", &iterable, "start", &b[0], "stop?", &b[1], "step?", &b[2], "/"); err != nil {
			return nil, err
		}
		bounds := make([]int64, 0, 3)
		for _, a := range b[:len(args)-1] {
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
		src, err := in.Iter(iterable)
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
