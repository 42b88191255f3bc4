package eval

// partialType is functools.partial; genCMType is what a
// @contextlib.contextmanager function returns; nullCMType is
// contextlib.nullcontext.
var (
	partialType = NewClass("partial", "functools")
	genCMType   = NewClass("_GeneratorContextManager", "contextlib")
	nullCMType  = NewClass("nullcontext", "contextlib")
)

func init() {
	for _, c := range []*Class{partialType, genCMType, nullCMType} {
		c.Native = false
	}
	method(partialType, "__call__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		d := self.(*Instance).Dict
		fn, _ := d.getStr("func")
		pre, _ := d.getStr("args")
		kwd, _ := d.getStr("keywords")
		all := append(append([]Value(nil), pre.(*Tuple).items...), args...)
		var kws []KeywordArg
		kwd.(*Dict).Items(func(k, v Value) bool {
			if Kwarg(kw, k.(string)) == nil {
				kws = append(kws, KeywordArg{Name: k.(string), Value: v})
			}
			return true
		})
		return in.call(fn, all, append(kws, kw...))
	})
	method(genCMType, "__enter__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		g, _ := self.(*Instance).Dict.getStr("gen")
		v, ok, err := in.Next(g)
		if err == nil && !ok {
			return nil, in.Raise(RuntimeErrorType, "generator didn't yield")
		}
		return v, err
	})
	method(genCMType, "__exit__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		gv, _ := self.(*Instance).Dict.getStr("gen")
		g := gv.(*Generator)
		if len(args) == 3 && args[1] != None {
			exc := args[1].(*Instance)
			_, done, err := in.genSend(g, genMsg{err: &Exception{Inst: newRef(exc).(*Instance)}})
			if err != nil {
				if e, ok := err.(*Exception); ok && e.Inst == exc {
					in.Drop(err)
					return false, nil
				}
				return nil, err
			}
			if !done {
				return nil, in.Raise(RuntimeErrorType, "generator didn't stop after throw()")
			}
			return true, nil
		}
		v, done, err := in.genSend(g, genMsg{v: None})
		if err != nil {
			return nil, err
		}
		if !done {
			in.Decref(v)
			return nil, in.Raise(RuntimeErrorType, "generator didn't stop")
		}
		return false, nil
	})
	method(nullCMType, "__enter__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		v, _ := self.(*Instance).Dict.getStr("enter_result")
		return newRef(v), nil
	})
	method(nullCMType, "__exit__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		return false, nil
	})
}

// newInstanceWith makes an instance of a Go-declared class with
// attributes (borrowed values).
func (in *Interp) newInstanceWith(cls *Class, attrs ...any) *Instance {
	o := in.newInstance(cls)
	for i := 0; i+1 < len(attrs); i += 2 {
		in.SetStr(o.Dict, attrs[i].(string), attrs[i+1])
	}
	return o
}

func (*Interp) functoolsModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("functools")
	in.fn(m, "partial", "partial(func, *args, **keywords)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) == 0 {
			return nil, in.typeError("type 'partial' takes at least one argument")
		}
		pre := make([]Value, 0, len(args)-1)
		for _, a := range args[1:] {
			pre = append(pre, newRef(a))
		}
		t := in.NewTuple(pre)
		d := in.NewDict()
		for _, k := range kw {
			in.SetStr(d, k.Name, k.Value)
		}
		o := in.newInstanceWith(partialType, "func", args[0], "args", t, "keywords", d)
		in.Decref(t)
		in.Decref(d)
		return o, nil
	})
	in.fn(m, "reduce", "reduce(function, iterable[, initial])", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("reduce", args, kw, 2, 3); err != nil {
			return nil, err
		}
		var acc Value
		if len(args) == 3 {
			acc = newRef(args[2])
		}
		err := in.forEach(args[1], func(v Value) error {
			if acc == nil {
				acc = newRef(v)
				return nil
			}
			r, err := in.call(args[0], []Value{acc, v}, nil)
			in.Decref(acc)
			acc = r
			return err
		})
		if err != nil {
			return nil, err
		}
		if acc == nil {
			return nil, in.typeError("reduce() of empty iterable with no initial value")
		}
		return acc, nil
	})
	in.fn(m, "lru_cache", "lru_cache(maxsize=128): a decorator keeping results", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		maxsize := int64(128)
		mk := func(fn Value) Value {
			l := &lruCache{fn: newRef(fn), cache: in.NewDict(), maxsize: maxsize}
			in.track(l)
			return l
		}
		if len(args) == 1 {
			switch a := args[0].(type) {
			case *Function, *Builtin, *Method:
				return mk(a), nil
			case NoneType:
				maxsize = -1
			default:
				n, err := in.Index(a)
				if err != nil {
					return nil, err
				}
				maxsize = n
			}
		}
		if v := Kwarg(kw, "maxsize"); v != nil {
			if v == None {
				maxsize = -1
			} else {
				n, err := in.Index(v)
				if err != nil {
					return nil, err
				}
				maxsize = n
			}
		}
		deco := &Builtin{Name: "decorating_function", Fn: func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if len(args) != 1 {
				return nil, in.typeError("decorator takes one function")
			}
			return mk(args[0]), nil
		}}
		in.track(deco)
		return deco, nil
	})
	in.fn(m, "cache", "cache(fn): an unbounded lru_cache", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) != 1 {
			return nil, in.typeError("cache() takes one function")
		}
		l := &lruCache{fn: newRef(args[0]), cache: in.NewDict(), maxsize: -1}
		in.track(l)
		return l, nil
	})
	in.fn(m, "cached_property", "cached_property(fn)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) != 1 {
			return nil, in.typeError("cached_property() takes one function")
		}
		p := &cachedProperty{fn: newRef(args[0])}
		if f, ok := args[0].(*Function); ok {
			p.name = f.Name
		}
		in.track(p)
		return p, nil
	})
	update := func(in *Interp, wrapper, wrapped Value) error {
		// update_wrapper: the wrapped function's names and docstring,
		// its __dict__, and __wrapped__
		for _, name := range []string{"__module__", "__name__", "__qualname__", "__doc__"} {
			v, err := in.GetAttr(wrapped, name)
			if err != nil {
				if !Matches(err, AttributeErrorType) {
					return err
				}
				in.Drop(err)
				continue
			}
			err = in.SetAttr(wrapper, name, v)
			in.Decref(v)
			if err != nil {
				return err
			}
		}
		if f, ok := wrapped.(*Function); ok && f.dict != nil {
			var err error
			f.dict.Items(func(k, v Value) bool {
				if s, ok := k.(string); ok {
					err = in.SetAttr(wrapper, s, v)
				}
				return err == nil
			})
			if err != nil {
				return err
			}
		}
		return in.SetAttr(wrapper, "__wrapped__", wrapped)
	}
	in.fn(m, "update_wrapper", "update_wrapper(wrapper, wrapped)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("update_wrapper", args, kw, 2, 2); err != nil {
			return nil, err
		}
		return newRef(args[0]), update(in, args[0], args[1])
	})
	in.fn(m, "wraps", "wraps(wrapped): a decorator that gives its function the wrapped one's names and docstring", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("wraps", args, kw, 1, 1); err != nil {
			return nil, err
		}
		wrapped := newRef(args[0])
		d := &Builtin{Name: "wraps", Self: wrapped, Fn: func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs("wraps", args, kw, 1, 1); err != nil {
				return nil, err
			}
			return newRef(args[0]), update(in, args[0], self)
		}}
		in.track(d)
		return d, nil
	})
	return m, nil
}

func (*Interp) contextlibModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("contextlib")
	in.fn(m, "contextmanager", "contextmanager(func)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("contextmanager", args, kw, 1, 1); err != nil {
			return nil, err
		}
		fn := args[0]
		b := &Builtin{Name: "helper", Self: newRef(fn), Fn: func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			g, err := in.call(self, args, kw)
			if err != nil {
				return nil, err
			}
			o := in.newInstanceWith(genCMType, "gen", g)
			in.Decref(g)
			return o, nil
		}}
		in.track(b)
		return b, nil
	})
	in.fn(m, "nullcontext", "nullcontext(enter_result=None)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var v Value = None
		if len(args) > 0 {
			v = args[0]
		}
		return in.newInstanceWith(nullCMType, "enter_result", v), nil
	})
	return in.execModule(m, contextlibSource)
}

// contextlibSource is the rest of contextlib, in Python: suppress,
// closing, redirect_stdout and redirect_stderr.
const contextlibSource = `
class suppress:
    def __init__(self, *exceptions):
        self._exceptions = exceptions

    def __enter__(self):
        pass

    def __exit__(self, exctype, excinst, exctb):
        return exctype is not None and issubclass(exctype, self._exceptions)


class closing:
    def __init__(self, thing):
        self.thing = thing

    def __enter__(self):
        return self.thing

    def __exit__(self, *exc_info):
        self.thing.close()


class redirect_stdout:
    _stream = 'stdout'

    def __init__(self, new_target):
        self._new_target = new_target
        self._old_targets = []

    def __enter__(self):
        import sys
        self._old_targets.append(getattr(sys, self._stream))
        setattr(sys, self._stream, self._new_target)
        return self._new_target

    def __exit__(self, exctype, excinst, exctb):
        import sys
        setattr(sys, self._stream, self._old_targets.pop())


class redirect_stderr(redirect_stdout):
    _stream = 'stderr'
`

func (*Interp) itertoolsModule(in *Interp) (*ModuleObj, error) {
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
