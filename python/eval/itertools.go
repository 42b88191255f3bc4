package eval

import (
	_ "embed"
	"slices"
	"strings"
)

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
	if _, err := in.execModule(m, itertoolsSource); err != nil {
		return m, err
	}
	for _, f := range itertoolsChecked {
		in.checkedPython(m, f.name, f.style, f.params, f.iterables)
	}
	in.checkedVarargs(m, "product", func(in *Interp, kw []KeywordArg) error {
		var repeat int64
		if err := in.UnpackArgs("product", nil, kw, "*", "repeat?", &repeat); err != nil {
			return err
		}
		if repeat < 0 {
			return in.Raise(ValueErrorType, "repeat argument cannot be negative")
		}
		return nil
	})
	in.checkedVarargs(m, "zip_longest", func(in *Interp, kw []KeywordArg) error {
		if len(kw) > 1 || len(kw) == 1 && kw[0].Name != "fillvalue" {
			return in.typeError("zip_longest() got an unexpected keyword argument")
		}
		return nil
	})
	return m, nil
}

// itertoolsChecked are the functions of lib/itertools.py that CPython
// writes in C, with their parameters as CPython 3.11 declares them
// (styleExpected: all positional-only, counted by
// _PyArg_CheckPositional) and the indexes of those it iterates.
var itertoolsChecked = []struct {
	name      string
	style     checkStyle
	params    []string
	iterables []int
}{
	{"accumulate", styleC, []string{"iterable", "func?", "*", "initial?"}, []int{0}},
	{"combinations", styleC, []string{"iterable", "r"}, []int{0}},
	{"combinations_with_replacement", styleC, []string{"iterable", "r"}, []int{0}},
	{"compress", styleC, []string{"data", "selectors"}, []int{0, 1}},
	{"cycle", styleExpected, []string{"iterable", "/"}, []int{0}},
	{"dropwhile", styleExpected, []string{"predicate", "iterable", "/"}, []int{1}},
	{"filterfalse", styleExpected, []string{"predicate", "iterable", "/"}, []int{1}},
	{"groupby", styleC, []string{"iterable", "key?"}, []int{0}},
	{"pairwise", styleExpected, []string{"iterable", "/"}, []int{0}},
	{"permutations", styleC, []string{"iterable", "r?"}, []int{0}},
	{"starmap", styleExpected, []string{"function", "iterable", "/"}, []int{1}},
	{"takewhile", styleExpected, []string{"predicate", "iterable", "/"}, []int{1}},
}

// checkedPython replaces m's Python function name with a Go function
// that checks a call as CPython's C function checks it (params as
// UnpackArgs reads them, in style's words) and takes an iterator of each iterable
// argument (the indexes of params, markers not counted) before the
// Python function runs: a wrong call fails when it is made, in
// CPython's words, where the generator would fail when first advanced,
// in a def's.
func (in *Interp) checkedPython(m *ModuleObj, name string, style checkStyle, params []string, iterables []int) {
	py, _ := m.Dict.getStr(name)
	py = newRef(py)
	var names, shown []string
	for _, p := range params {
		shown = append(shown, strings.TrimSuffix(p, "?"))
		if p != "/" && p != "*" {
			names = append(names, strings.TrimSuffix(p, "?"))
		}
	}
	in.fn(m, name, name+"("+strings.Join(shown, ", ")+")", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.unpackIgnored(name, style, args, kw, params); err != nil {
			return nil, err
		}
		args, kw = slices.Clone(args), slices.Clone(kw)
		for _, i := range iterables {
			var arg *Value
			if i < len(args) {
				arg = &args[i]
			} else if j := slices.IndexFunc(kw, func(k KeywordArg) bool { return k.Name == names[i] }); j >= 0 {
				arg = &kw[j].Value
			} else {
				continue // an optional one, absent
			}
			it, err := in.Iter(*arg)
			if err != nil {
				return nil, err
			}
			defer in.Decref(it)
			*arg = it
		}
		return in.Call(py, args, kw)
	})
}

// checkedVarargs replaces m's Python function name, of *iterables and
// keywords, with a Go function that checks its keywords (check) and
// takes an iterator of each iterable before the Python function runs,
// as CPython's C function does.
func (in *Interp) checkedVarargs(m *ModuleObj, name string, check func(in *Interp, kw []KeywordArg) error) {
	py, _ := m.Dict.getStr(name)
	py = newRef(py)
	in.fn(m, name, name+"(*iterables)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := check(in, kw); err != nil {
			return nil, err
		}
		its := make([]Value, 0, len(args))
		defer func() { in.decrefAll(its) }()
		for _, a := range args {
			it, err := in.Iter(a)
			if err != nil {
				return nil, err
			}
			its = append(its, it)
		}
		return in.Call(py, its, kw)
	})
}

// itertoolsSource is the rest of itertools (count and islice are Go,
// above), written in Python as generators called through Go functions
// that check their arguments and take their iterators first
// (itertoolsChecked); product, permutations and combinations read
// their iterables whole when called, as CPython's objects do, the
// others go item by item.
//
//go:embed lib/itertools.py
var itertoolsSource string
