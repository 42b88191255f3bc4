package eval

import "github.com/gpumemrepl/gpumemrepl/python/syntax"

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

// The constructor and the basic methods: append, appendleft, pop,
// popleft, clear, len, iteration and indexing.
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
}

// The rest of deque's methods: repr, rotate, extend, extendleft,
// reverse, count, remove, index, copy, maxlen and equality.
func init() {
	dq := func(name string, min, max int, fn func(in *Interp, d *deque, args []Value) (Value, error)) {
		method(dequeType, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, min, max); err != nil {
				return nil, err
			}
			return fn(in, self.(*deque), args)
		})
	}
	dq("__repr__", 0, 0, func(in *Interp, d *deque, args []Value) (Value, error) {
		s, err := in.reprItems("deque([", d.items, "]")
		if err != nil {
			return nil, err
		}
		if d.maxlen >= 0 {
			return s + ", maxlen=" + itoa(d.maxlen) + ")", nil
		}
		return s + ")", nil
	})
	dq("rotate", 0, 1, func(in *Interp, d *deque, args []Value) (Value, error) {
		n := int64(1)
		if len(args) == 1 {
			var err error
			if n, err = in.Index(args[0]); err != nil {
				return nil, err
			}
		}
		if k := int64(len(d.items)); k > 0 {
			n = ((n % k) + k) % k
			d.items = append(d.items[k-n:], d.items[:k-n]...)[:k:k]
		}
		return None, nil
	})
	for name, left := range map[string]bool{"extend": false, "extendleft": true} {
		dq(name, 1, 1, func(in *Interp, d *deque, args []Value) (Value, error) {
			items, err := in.collect(args[0])
			if err != nil {
				return nil, err
			}
			for _, v := range items {
				in.dequePush(d, v, left)
			}
			in.decrefAll(items)
			return None, nil
		})
	}
	dq("reverse", 0, 0, func(in *Interp, d *deque, args []Value) (Value, error) {
		for i, j := 0, len(d.items)-1; i < j; i, j = i+1, j-1 {
			d.items[i], d.items[j] = d.items[j], d.items[i]
		}
		return None, nil
	})
	// find is the index of the first item equal to v, or -1
	find := func(in *Interp, d *deque, v Value) (int, error) {
		for i, x := range d.items {
			if eq, err := in.Equal(x, v); err != nil || eq {
				return i, err
			}
		}
		return -1, nil
	}
	dq("count", 1, 1, func(in *Interp, d *deque, args []Value) (Value, error) { return in.countEqual(d.items, args[0]) })
	dq("index", 1, 1, func(in *Interp, d *deque, args []Value) (Value, error) {
		i, err := find(in, d, args[0])
		if err == nil && i < 0 {
			err = in.Raise(ValueErrorType, "%s is not in deque", in.ReprOf(args[0]))
		}
		return int64(i), err
	})
	dq("remove", 1, 1, func(in *Interp, d *deque, args []Value) (Value, error) {
		i, err := find(in, d, args[0])
		if err == nil && i < 0 {
			err = in.Raise(ValueErrorType, "deque.remove(x): x not in deque")
		}
		if err != nil {
			return nil, err
		}
		v := d.items[i]
		d.items = append(d.items[:i], d.items[i+1:]...)
		in.Decref(v)
		return None, nil
	})
	dq("copy", 0, 0, func(in *Interp, d *deque, args []Value) (Value, error) {
		c := &deque{maxlen: d.maxlen}
		in.track(c)
		for _, v := range d.items {
			in.dequePush(c, v, false)
		}
		return c, nil
	})
	dq("__eq__", 1, 1, func(in *Interp, d *deque, args []Value) (Value, error) {
		o, ok := args[0].(*deque)
		if !ok {
			return NotImplemented, nil
		}
		return in.compareSeq(syntax.Eq, d.items, o.items)
	})
	dequeType.SetAttr("maxlen", NewProperty(NewBuiltin("maxlen", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if d := self.(*deque); d.maxlen >= 0 {
			return d.maxlen, nil
		}
		return None, nil
	}), nil))
}
