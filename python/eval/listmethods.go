package eval

import "slices"

// list's methods, and tuple's index and count
// (list's, over the tuple's items).
func init() {
	l := ListType
	method(l, "append", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("list.append", args, kw, 1, 1); err != nil {
			return nil, err
		}
		self.(*List).Append(args[0])
		return None, nil
	})
	method(l, "extend", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("list.extend", args, kw, 1, 1); err != nil {
			return nil, err
		}
		items, err := in.collect(args[0])
		if err != nil {
			return nil, err
		}
		s := self.(*List)
		s.items = append(s.items, items...)
		return None, nil
	})
	method(l, "insert", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("insert", args, kw, 2, 2); err != nil {
			return nil, err
		}
		s := self.(*List)
		i, err := in.Index(args[0])
		if err != nil {
			return nil, err
		}
		n := int64(len(s.items))
		if i < 0 {
			i = max(i+n, 0)
		}
		i = min(i, n)
		s.items = append(s.items, nil)
		copy(s.items[i+1:], s.items[i:])
		s.items[i] = newRef(args[1])
		return None, nil
	})
	method(l, "pop", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("pop", args, kw, 0, 1); err != nil {
			return nil, err
		}
		s := self.(*List)
		if len(s.items) == 0 {
			return nil, in.Raise(IndexErrorType, "pop from empty list")
		}
		i := int64(len(s.items) - 1)
		if len(args) == 1 {
			var err error
			if i, err = in.seqIndex(args[0], int64(len(s.items)), "pop"); err != nil {
				if Matches(err, IndexErrorType) {
					in.Drop(err)
					return nil, in.Raise(IndexErrorType, "pop index out of range")
				}
				return nil, err
			}
		}
		v := s.items[i]
		s.items = append(s.items[:i], s.items[i+1:]...)
		return v, nil
	})
	method(l, "remove", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("list.remove", args, kw, 1, 1); err != nil {
			return nil, err
		}
		s := self.(*List)
		for i, x := range s.items {
			eq, err := in.Equal(x, args[0])
			if err != nil {
				return nil, err
			}
			if eq {
				s.items = append(s.items[:i], s.items[i+1:]...)
				in.Decref(x)
				return None, nil
			}
		}
		return nil, in.Raise(ValueErrorType, "list.remove(x): x not in list")
	})
	method(l, "index", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("index", args, kw, 1, 1); err != nil {
			return nil, err
		}
		for i, x := range self.(*List).items {
			eq, err := in.Equal(x, args[0])
			if err != nil {
				return nil, err
			}
			if eq {
				return int64(i), nil
			}
		}
		return nil, in.Raise(ValueErrorType, "%s is not in list", in.ReprOf(args[0]))
	})
	method(l, "count", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("count", args, kw, 1, 1); err != nil {
			return nil, err
		}
		return in.countEqual(self.(*List).items, args[0])
	})
	method(l, "clear", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("clear", args, kw, 0, 0); err != nil {
			return nil, err
		}
		self.(*List).Clear(in)
		return None, nil
	})
	method(l, "copy", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		items, _ := in.collect(self)
		return in.NewList(items), nil
	})
	method(l, "reverse", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		items := self.(*List).items
		for i, j := 0, len(items)-1; i < j; i, j = i+1, j-1 {
			items[i], items[j] = items[j], items[i]
		}
		return None, nil
	})
	method(l, "sort", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) > 0 {
			return nil, in.typeError("sort() takes no positional arguments")
		}
		return None, in.sortList(self.(*List), kw)
	})
	for _, name := range []string{"index", "count"} {
		fn, _ := l.Dict.getStr(name)
		b := fn.(*Builtin)
		method(TupleType, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			t := self.(*Tuple)
			tmp := &List{items: t.items}
			return b.Fn(in, tmp, args, kw)
		})
	}
}

// sortList is list.sort(key=, reverse=): a stable sort by <.
func (in *Interp) sortList(l *List, kw []KeywordArg) error {
	a, err := in.ArgSpec("sort", nil, kw, 0, "key", "reverse")
	if err != nil {
		return err
	}
	keys := make([]Value, len(l.items))
	for i, v := range l.items {
		if a[0] != nil && a[0] != None {
			k, err := in.call(a[0], []Value{v}, nil)
			if err != nil {
				in.decrefAll(keys[:i])
				return err
			}
			keys[i] = k
		} else {
			keys[i] = newRef(v)
		}
	}
	defer in.decrefAll(keys)
	rev := false
	if a[1] != nil {
		if rev, err = in.Truth(a[1]); err != nil {
			return err
		}
	}
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	var cmpErr error
	less := func(x, y Value) bool {
		if cmpErr != nil {
			return false
		}
		r, err := in.Compare(ltOp, x, y)
		if err != nil {
			cmpErr = err
			return false
		}
		t, err := in.Truth(r)
		in.Decref(r)
		if err != nil {
			cmpErr = err
		}
		return t
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		x, y := keys[i], keys[j]
		if rev {
			x, y = y, x
		}
		if less(x, y) {
			return -1
		}
		if less(y, x) {
			return 1
		}
		return 0
	})
	if cmpErr != nil {
		return cmpErr
	}
	out := make([]Value, len(idx))
	for i, j := range idx {
		out[i] = l.items[j]
	}
	l.items = out
	return nil
}

// countEqual is how many of items equal v (list.count, deque.count).
func (in *Interp) countEqual(items []Value, v Value) (Value, error) {
	n := int64(0)
	for _, x := range items {
		eq, err := in.Equal(x, v)
		if err != nil {
			return nil, err
		}
		if eq {
			n++
		}
	}
	return n, nil
}
