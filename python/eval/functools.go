package eval

import (
	"math"
	"math/big"
	"strings"
)

// partialType is functools.partial.
var partialType = NewClass("partial", "functools")

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
	// named is set once __set_name__ has named it
	named bool
}

var cachedPropertyType = NewClass("cached_property", "functools")

func (p *cachedProperty) Type() *Class { return cachedPropertyType }

func (p *cachedProperty) Traverse(visit func(Value)) { visit(p.fn) }

func (p *cachedProperty) Clear(in *Interp) {
	f := p.fn
	p.fn = None
	in.Decref(f)
}

// The methods of partial, of lru_cache's wrapper and its CacheInfo, and
// cached_property's __set_name__.
func init() {
	partialType.Native = false
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
	method(lruType, "__call__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		l := self.(*lruCache)
		if len(kw) > 0 {
			return nil, in.Refuse(NotImplementedErrType, "this tool's lru_cache takes positional arguments only")
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
		if err := in.UnpackArgs("_lru_cache_wrapper.cache_clear", args, kw); err != nil {
			return nil, err
		}
		l := self.(*lruCache)
		l.cache.Clear(in)
		l.hits, l.misses = 0, 0
		return None, nil
	})
	method(lruType, "cache_info", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("_lru_cache_wrapper.cache_info", args, kw); err != nil {
			return nil, err
		}
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
		var owner, name Value
		if err := in.unpackMethodDef("cached_property.__set_name__", args, kw, "owner", &owner, "name", &name); err != nil {
			return nil, err
		}
		p := self.(*cachedProperty)
		n, _ := name.(string)
		if p.named && n != p.name {
			return nil, in.typeError("Cannot assign the same cached_property to two different names (%s and %s).", in.ReprOf(p.name), in.ReprOf(name))
		}
		p.name, p.named = n, true
		return None, nil
	})
}

// functoolsModule is functools: partial, reduce, lru_cache, cache,
// cached_property, update_wrapper and wraps.
func functoolsModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("functools")
	in.fn(m, "partial", "partial(func, *args, **keywords)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) == 0 {
			return nil, in.typeError("type 'partial' takes at least one argument")
		}
		if !in.callable(args[0]) {
			return nil, in.typeError("the first argument must be callable")
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
		var fn, iterable, acc Value
		if err := in.UnpackArgs("reduce", args, kw, "function", &fn, "iterable", &iterable, "initial?", &acc, "/"); err != nil {
			return nil, err
		}
		if acc != nil {
			acc = newRef(acc)
		}
		err := in.forEach(iterable, func(v Value) error {
			if acc == nil {
				acc = newRef(v)
				return nil
			}
			r, err := in.call(fn, []Value{acc, v}, nil)
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
		// typed (1 and 1.0 kept apart) is not modelled: they share an entry
		var size, typed Value = int64(128), false
		if err := in.UnpackDefArgs("lru_cache", args, kw, "maxsize?", &size, "typed?", &typed); err != nil {
			return nil, err
		}
		maxsize := int64(-1)
		mk := func(fn Value) (Value, error) {
			return in.newLRUCache(fn, maxsize)
		}
		switch a := plain(size).(type) {
		case int64:
			maxsize = max(a, 0) // CPython caches nothing for a negative size
		case bool:
			maxsize = 0
			if a {
				maxsize = 1
			}
		case *big.Int: // past int64: as good as unbounded
			maxsize = 0
			if a.Sign() > 0 {
				maxsize = math.MaxInt64
			}
		case NoneType:
		default:
			if _, isBool := typed.(bool); isBool && in.callable(size) {
				maxsize = 128
				return mk(size) // @lru_cache without parentheses
			}
			return nil, in.typeError("Expected first argument to be an integer, a callable, or None")
		}
		deco := &Builtin{Name: "decorating_function", Fn: func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			var fn Value
			if err := in.UnpackDefArgs("lru_cache.<locals>.decorating_function", args, kw, "user_function", &fn); err != nil {
				return nil, err
			}
			return mk(fn)
		}}
		in.track(deco)
		return deco, nil
	})
	in.fn(m, "cache", "cache(fn): an unbounded lru_cache", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var fn Value
		if err := in.UnpackDefArgs("cache", args, kw, "user_function", &fn); err != nil {
			return nil, err
		}
		return in.newLRUCache(fn, -1)
	})
	in.fn(m, "cached_property", "cached_property(fn)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var fn Value
		if err := in.unpackMethodDef("cached_property.__init__", args, kw, "func", &fn); err != nil {
			return nil, err
		}
		p := &cachedProperty{fn: newRef(fn)}
		if f, ok := fn.(*Function); ok {
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
		var wrapper, wrapped Value
		if err := in.UnpackDefArgs("update_wrapper", args, kw, "wrapper", &wrapper, "wrapped", &wrapped); err != nil {
			return nil, err
		}
		return newRef(wrapper), update(in, wrapper, wrapped)
	})
	in.fn(m, "wraps", "wraps(wrapped): a decorator that gives its function the wrapped one's names and docstring", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var wrapped Value
		if err := in.UnpackDefArgs("wraps", args, kw, "wrapped", &wrapped); err != nil {
			return nil, err
		}
		d := &Builtin{Name: "wraps", Self: newRef(wrapped), Fn: func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			var wrapper Value
			if err := in.UnpackDefArgs("update_wrapper", args, kw, "wrapper", &wrapper); err != nil {
				return nil, err
			}
			return newRef(wrapper), update(in, wrapper, self)
		}}
		in.track(d)
		return d, nil
	})
	return m, nil
}

// newLRUCache is lru_cache's wrapper of fn, keeping maxsize results (-1:
// all), or CPython's TypeError when fn cannot be called.
func (in *Interp) newLRUCache(fn Value, maxsize int64) (Value, error) {
	if !in.callable(fn) {
		return nil, in.typeError("the first argument must be callable")
	}
	l := &lruCache{fn: newRef(fn), cache: in.NewDict(), maxsize: maxsize}
	in.track(l)
	return l, nil
}
