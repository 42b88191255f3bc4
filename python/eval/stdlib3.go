package eval

import "strings"

// deque is collections.deque: a list that may drop its oldest items
// (maxlen).
type deque struct {
	Header
	items  []Value
	maxlen int64 // -1: unbounded
}

var dequeType = NewClass("deque", "collections")

func (d *deque) Type() *Class { return dequeType }

func (d *deque) Traverse(visit func(Value)) {
	for _, v := range d.items {
		visit(v)
	}
}

func (d *deque) Clear(in *Interp) {
	items := d.items
	d.items = nil
	for _, v := range items {
		in.Decref(v)
	}
}

// push adds v at the right (or left); an item pushed out by maxlen is
// dropped after.
func (in *Interp) dequePush(d *deque, v Value, left bool) {
	Incref(v)
	if left {
		d.items = append([]Value{v}, d.items...)
	} else {
		d.items = append(d.items, v)
	}
	if d.maxlen >= 0 && int64(len(d.items)) > d.maxlen {
		var out Value
		if left {
			out, d.items = d.items[len(d.items)-1], d.items[:len(d.items)-1]
		} else {
			out, d.items = d.items[0], d.items[1:]
		}
		in.Decref(out)
	}
}

// codeObj is a function's __code__: the names CPython's code object
// lists.
type codeObj struct {
	Header
	c    *code
	argc int64
}

var codeType = NewClass("code", "builtins")

func (c *codeObj) Type() *Class               { return codeType }
func (c *codeObj) Traverse(visit func(Value)) {}
func (c *codeObj) Clear(in *Interp)           {}

// lruCache is functools.lru_cache's wrapper: it keeps each result it
// returns (a reference) until maxsize newer ones push it out.
type lruCache struct {
	Header
	fn           Value
	cache        *Dict
	maxsize      int64 // -1: unbounded
	hits, misses int64
}

var lruType = NewClass("_lru_cache_wrapper", "functools")

// cacheInfoType is functools' CacheInfo, the named tuple cache_info()
// returns: (hits, misses, maxsize, currsize).
var cacheInfoType = NewClass("CacheInfo", "functools", TupleType)

var cacheInfoFields = []string{"hits", "misses", "maxsize", "currsize"}

func (l *lruCache) Type() *Class { return lruType }
func (l *lruCache) Traverse(visit func(Value)) {
	visit(l.fn)
	visit(l.cache)
}
func (l *lruCache) Clear(in *Interp) {
	f, c := l.fn, l.cache
	l.fn, l.cache = None, nil
	in.Decref(f)
	if c != nil {
		in.Decref(c)
	}
}

// cachedProperty is functools.cached_property: computed on first
// access and stored in the instance's __dict__.
type cachedProperty struct {
	Header
	fn   Value
	name string
}

var cachedPropertyType = NewClass("cached_property", "functools")

func (p *cachedProperty) Type() *Class               { return cachedPropertyType }
func (p *cachedProperty) Traverse(visit func(Value)) { visit(p.fn) }
func (p *cachedProperty) Clear(in *Interp) {
	f := p.fn
	p.fn = None
	in.Decref(f)
}

func strItems(in *Interp, names []string) *Tuple {
	items := make([]Value, len(names))
	for i, n := range names {
		items[i] = n
	}
	return in.NewTuple(items)
}

func init() {
	dequeType.New = func(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
		a, err := in.ArgSpec("deque", args, kw, 0, "iterable", "maxlen")
		if err != nil {
			return nil, err
		}
		d := &deque{maxlen: -1}
		if a[1] != nil && a[1] != None {
			if d.maxlen, err = in.Index(a[1]); err != nil {
				return nil, err
			}
			if d.maxlen < 0 {
				return nil, in.Raise(ValueErrorType, "maxlen must be non-negative")
			}
		}
		in.track(d)
		if a[0] != nil {
			if err := in.forEach(a[0], func(v Value) error { in.dequePush(d, v, false); return nil }); err != nil {
				in.Decref(d)
				return nil, err
			}
		}
		return d, nil
	}
	dq := func(name string, fn func(in *Interp, d *deque, args []Value) (Value, error)) {
		method(dequeType, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			return fn(in, self.(*deque), args)
		})
	}
	for name, left := range map[string]bool{"append": false, "appendleft": true} {
		dq(name, func(in *Interp, d *deque, args []Value) (Value, error) {
			if len(args) != 1 {
				return nil, in.typeError("%s() takes exactly one argument (%d given)", name, len(args))
			}
			in.dequePush(d, args[0], left)
			return None, nil
		})
	}
	for name, left := range map[string]bool{"pop": false, "popleft": true} {
		dq(name, func(in *Interp, d *deque, args []Value) (Value, error) {
			if len(d.items) == 0 {
				return nil, in.Raise(IndexErrorType, "pop from an empty deque")
			}
			var v Value
			if left {
				v, d.items = d.items[0], d.items[1:]
			} else {
				v, d.items = d.items[len(d.items)-1], d.items[:len(d.items)-1]
			}
			return v, nil
		})
	}
	dq("clear", func(in *Interp, d *deque, args []Value) (Value, error) {
		d.Clear(in)
		return None, nil
	})
	dq("__len__", func(in *Interp, d *deque, args []Value) (Value, error) { return int64(len(d.items)), nil })
	dq("__iter__", func(in *Interp, d *deque, args []Value) (Value, error) {
		items := make([]Value, len(d.items))
		for i, v := range d.items {
			items[i] = newRef(v)
		}
		l := in.NewList(items)
		it, err := in.Iter(l)
		in.Decref(l)
		return it, err
	})
	dq("__getitem__", func(in *Interp, d *deque, args []Value) (Value, error) {
		if len(args) != 1 {
			return nil, in.typeError("__getitem__ expected 1 argument, got %d", len(args))
		}
		i, err := in.seqIndex(args[0], int64(len(d.items)), "deque")
		if err != nil {
			return nil, err
		}
		return newRef(d.items[i]), nil
	})
	codeProp := func(name string, get func(in *Interp, c *codeObj) Value) {
		codeType.SetAttr(name, NewProperty(NewBuiltin(name, "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			return get(in, self.(*codeObj)), nil
		}), nil))
	}
	codeProp("co_name", func(in *Interp, c *codeObj) Value { return c.c.name })
	codeProp("co_freevars", func(in *Interp, c *codeObj) Value { return strItems(in, c.c.scope.Free) })
	codeProp("co_cellvars", func(in *Interp, c *codeObj) Value { return strItems(in, c.c.scope.Cells) })
	codeProp("co_varnames", func(in *Interp, c *codeObj) Value {
		var names []string
		for _, n := range c.c.scope.Locals {
			if !c.c.cells[n] || int64(len(names)) < c.argc {
				names = append(names, n)
			}
		}
		return strItems(in, names)
	})
	codeProp("co_argcount", func(in *Interp, c *codeObj) Value { return c.argc })
	method(lruType, "__call__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		l := self.(*lruCache)
		if len(kw) > 0 {
			return nil, in.Raise(NotImplementedErrType, "this tool's lru_cache takes positional arguments only")
		}
		items := make([]Value, len(args))
		for i, a := range args {
			items[i] = newRef(a)
		}
		key := in.NewTuple(items)
		defer in.Decref(key)
		if v, ok, err := in.dictGet(l.cache, key); err != nil || ok {
			if ok {
				l.hits++
				// most recently used goes last
				Incref(v)
				if _, err := in.dictDel(l.cache, key); err != nil {
					in.Decref(v)
					return nil, err
				}
				err = in.dictSet(l.cache, key, v)
				return v, err
			}
			return nil, err
		}
		l.misses++
		r, err := in.call(l.fn, args, nil)
		if err != nil {
			return nil, err
		}
		if l.maxsize != 0 {
			if err := in.dictSet(l.cache, key, r); err != nil {
				in.Decref(r)
				return nil, err
			}
			for l.maxsize > 0 && int64(l.cache.n) > l.maxsize {
				for _, e := range l.cache.entries {
					if !e.del {
						l.cache.remove(in, e.k)
						break
					}
				}
			}
		}
		return r, nil
	})
	method(lruType, "cache_clear", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		l := self.(*lruCache)
		l.cache.Clear(in)
		l.hits, l.misses = 0, 0
		return None, nil
	})
	method(lruType, "cache_info", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		l := self.(*lruCache)
		var maxsize Value = l.maxsize
		if l.maxsize < 0 {
			maxsize = None
		}
		return in.NewTupleOf(cacheInfoType, []Value{l.hits, l.misses, maxsize, int64(l.cache.n)}), nil
	})
	for i, name := range cacheInfoFields {
		cacheInfoType.SetAttr(name, NewProperty(NewBuiltin(name, "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			v := self.(*Tuple).items[i]
			Incref(v)
			return v, nil
		}), nil))
	}
	method(cacheInfoType, "__repr__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		parts := make([]string, len(cacheInfoFields))
		for i, name := range cacheInfoFields {
			parts[i] = name + "=" + in.ReprOf(self.(*Tuple).items[i])
		}
		return "CacheInfo(" + strings.Join(parts, ", ") + ")", nil
	})
	method(cachedPropertyType, "__set_name__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) == 2 {
			self.(*cachedProperty).name, _ = args[1].(string)
		}
		return None, nil
	})
	method(SetType, "pop", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		d := self.(*Set).d
		for _, e := range d.entries {
			if !e.del {
				k := newRef(e.key)
				d.remove(in, e.k)
				return k, nil
			}
		}
		return nil, in.Raise(KeyErrorType, "pop from an empty set")
	})
	DictType.SetAttr("fromkeys", &wrapper{class: true, fn: NewBuiltin("fromkeys", "dict.fromkeys(iterable, value=None)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) < 2 || len(args) > 3 {
			return nil, in.typeError("fromkeys expected at least 1 argument, got %d", max(len(args)-1, 0))
		}
		var v Value = None
		if len(args) == 3 {
			v = args[2]
		}
		d := in.NewDict()
		if err := in.forEach(args[1], func(k Value) error { return in.dictSet(d, k, v) }); err != nil {
			in.Decref(d)
			return nil, err
		}
		return d, nil
	})})
}

// functionCode is f.__code__.
func (in *Interp) functionCode(f *Function) Value {
	argc := int64(len(f.params.Posonlyargs) + len(f.params.Args))
	c := &codeObj{c: f.code, argc: argc}
	in.track(c)
	return c
}

func (*Interp) randomModule(in *Interp) (*ModuleObj, error) {
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

func (*Interp) tracebackModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("traceback")
	in.fn(m, "extract_tb", "extract_tb(tb): the traceback's entries", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) != 1 {
			return nil, in.typeError("extract_tb() takes one traceback")
		}
		var items []Value
		if tb, ok := args[0].(*tracebackObj); ok {
			for i := len(tb.frames) - 1; i >= 0; i-- {
				items = append(items, tb.frames[i].name)
			}
		}
		return in.NewList(items), nil
	})
	in.fn(m, "clear_frames", "clear_frames(tb): clear the locals of the traceback's frames", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) != 1 {
			return nil, in.typeError("clear_frames() takes one traceback")
		}
		if tb, ok := args[0].(*tracebackObj); ok {
			for _, f := range tb.frames {
				if f != in.frame && f.gen == nil && !f.toplevel {
					locals := f.locals
					f.locals = make([]Value, len(locals))
					for _, v := range locals {
						if v != nil {
							in.Decref(v)
						}
					}
				}
			}
		}
		return None, nil
	})
	in.fn(m, "format_exc", "format_exc(): the exception being handled, as a traceback", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if n := len(in.handling); n > 0 {
			return in.formatException(in.handling[n-1], true), nil
		}
		return "NoneType: None\n", nil
	})
	in.fn(m, "format_exception", "format_exception(exc) or (type, value, tb): the exception's traceback, as a list of strings", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("format_exception", args, kw, 1, 3); err != nil {
			return nil, err
		}
		v := args[0]
		if len(args) > 1 {
			v = args[1]
		}
		e, ok := v.(*Instance)
		if !ok || !isException(e.cls) {
			return nil, in.typeError("format_exception() expects an exception")
		}
		return in.NewList([]Value{in.formatException(e, true)}), nil
	})
	in.fn(m, "print_exc", "print_exc(): print the exception being handled", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if n := len(in.handling); n > 0 {
			_, _ = in.Stderr.Write([]byte(in.formatException(in.handling[n-1], true)))
		}
		return None, nil
	})
	return m, nil
}
