package eval

import "github.com/gpumemrepl/gpumemrepl/python/syntax"

// compKind is what a comprehension builds.
type compKind uint8

const (
	compList compKind = iota
	compSet
	compDict
	compGen
)

var compNames = [...]string{compList: "<listcomp>", compSet: "<setcomp>", compDict: "<dictcomp>", compGen: "<genexpr>"}

// comprehension runs a comprehension as CPython 3.11 does: a function
// of its own whose one argument is the first iterable's iterator
// (evaluated here, in the enclosing scope). Its loop variables are that
// function's locals, gone when it returns. A generator expression
// returns its generator unstarted.
func (in *Interp) comprehension(fr *Frame, sc *syntax.Scope, gens []*syntax.Comprehension, kind compKind, elt, val syntax.Expr) (Value, error) {
	src, err := in.eval(fr, gens[0].Iter)
	if err != nil {
		return nil, err
	}
	it, err := in.Iter(src)
	in.Decref(src)
	if err != nil {
		return nil, err
	}
	var closure []*Cell
	for _, n := range sc.Free {
		c, err := in.cellOf(fr, n)
		if err != nil {
			in.Decref(it)
			return nil, err
		}
		closure = append(closure, c)
	}
	name := compNames[kind]
	cf := in.newFrame(in.codeFor(name, sc), name, fr.file, fr.globals, closure)
	cf.locals[cf.code.slots[".0"]] = it
	in.makeCells(cf)
	loop := &compLoop{gens: gens, kind: kind, elt: elt, val: val}
	if kind == compGen {
		return in.newGenerator(cf, func(in *Interp) (Value, error) {
			return None, in.compLevel(cf, loop, 0, nil)
		}), nil
	}
	var result Object
	switch kind {
	case compList:
		result = in.NewList(nil)
	case compSet:
		result = in.newSet()
	default:
		result = in.NewDict()
	}
	in.depth++
	prev := in.frame
	in.frame = cf
	err = in.compLevel(cf, loop, 0, result)
	in.frame = prev
	in.depth--
	if err != nil {
		err = in.addTraceback(err, cf)
		in.Decref(cf)
		in.Decref(result)
		return nil, err
	}
	in.Decref(cf)
	return result, nil
}

// inlinedComp reports whether f is a list, set or dict comprehension's
// frame, which CPython 3.12 runs inlined in its function's (PEP 709).
func (f *Frame) inlinedComp() bool {
	switch f.name {
	case compNames[compList], compNames[compSet], compNames[compDict]:
		return true
	}
	return false
}

type compLoop struct {
	gens     []*syntax.Comprehension
	kind     compKind
	elt, val syntax.Expr
}

// compLevel runs the for clause at level i and what is inside it.
func (in *Interp) compLevel(cf *Frame, l *compLoop, i int, result Object) error {
	g := l.gens[i]
	var it Value
	if i == 0 {
		it = newRef(cf.locals[cf.code.slots[".0"]])
	} else {
		src, err := in.eval(cf, g.Iter)
		if err != nil {
			return err
		}
		it, err = in.Iter(src)
		in.Decref(src)
		if err != nil {
			return err
		}
	}
	defer in.Decref(it)
	for {
		if err := in.checkInterrupt(); err != nil {
			return err
		}
		v, ok, err := in.Next(it)
		if err != nil || !ok {
			return err
		}
		if err := in.assign(cf, g.Target, v); err != nil {
			return err
		}
		pass := true
		for _, cond := range g.Ifs {
			t, err := in.truthOf(cf, cond)
			if err != nil {
				return err
			}
			if !t {
				pass = false
				break
			}
		}
		if !pass {
			continue
		}
		if i+1 < len(l.gens) {
			if err := in.compLevel(cf, l, i+1, result); err != nil {
				return err
			}
			continue
		}
		if err := in.compEmit(cf, l, result); err != nil {
			return err
		}
	}
}

// compEmit adds one element to the result, or yields it.
func (in *Interp) compEmit(cf *Frame, l *compLoop, result Object) error {
	v, err := in.eval(cf, l.elt)
	if err != nil {
		return err
	}
	switch r := result.(type) {
	case *List:
		r.items = append(r.items, v)
	case *Set:
		err = in.setAdd(r, v)
		in.Decref(v)
	case *Dict:
		w, verr := in.eval(cf, l.val)
		if verr != nil {
			in.Decref(v)
			return verr
		}
		err = in.dictSet(r, v, w)
		in.Decref(v)
		in.Decref(w)
	default:
		sent, yerr := in.yield(cf, v)
		if yerr != nil {
			return yerr
		}
		in.Decref(sent)
	}
	return err
}
