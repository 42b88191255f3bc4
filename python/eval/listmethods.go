package eval

import "slices"

// listMethodTable are list's methods, by name.
var listMethodTable = []struct {
	name string
	fn   GoFunc
}{
	{"append", listAppend},
	{"clear", listClear},
	{"copy", listCopy},
	{"count", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		return in.seqCount("list", self.(*List).items, args, kw)
	}},
	{"extend", listExtend},
	{"index", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		return in.seqIndexOf("list", self.(*List).items, args, kw)
	}},
	{"insert", listInsert},
	{"pop", listPop},
	{"remove", listRemove},
	{"reverse", listReverse},
	{"sort", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		return None, in.sortList(self.(*List), args, kw)
	}},
}

func init() {
	for _, m := range listMethodTable {
		method(ListType, m.name, m.fn)
	}
	method(TupleType, "count", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		return in.seqCount("tuple", self.(*Tuple).items, args, kw)
	})
	method(TupleType, "index", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		return in.seqIndexOf("tuple", self.(*Tuple).items, args, kw)
	})
}

func listAppend(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var v Value
	if err := in.UnpackArgs("list.append", args, kw, "object", &v, "/"); err != nil {
		return nil, err
	}
	self.(*List).Append(v)
	return None, nil
}

func listExtend(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var iterable Value
	if err := in.UnpackArgs("list.extend", args, kw, "iterable", &iterable, "/"); err != nil {
		return nil, err
	}
	items, err := in.collect(iterable)
	if err != nil {
		return nil, err
	}
	s := self.(*List)
	s.items = append(s.items, items...)
	return None, nil
}

func listInsert(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var i int64
	var v Value
	if err := in.UnpackArgs("list.insert", args, kw, "index", &i, "object", &v, "/"); err != nil {
		return nil, err
	}
	s := self.(*List)
	n := int64(len(s.items))
	if i < 0 {
		i = max(i+n, 0)
	}
	i = min(i, n)
	s.items = append(s.items, nil)
	copy(s.items[i+1:], s.items[i:])
	s.items[i] = newRef(v)
	return None, nil
}

func listPop(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	i := int64(-1)
	if err := in.UnpackArgs("list.pop", args, kw, "index?", &i, "/"); err != nil {
		return nil, err
	}
	s := self.(*List)
	n := int64(len(s.items))
	if n == 0 {
		return nil, in.Raise(IndexErrorType, "pop from empty list")
	}
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return nil, in.Raise(IndexErrorType, "pop index out of range")
	}
	v := s.items[i]
	s.items = append(s.items[:i], s.items[i+1:]...)
	return v, nil
}

func listRemove(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var v Value
	if err := in.UnpackArgs("list.remove", args, kw, "value", &v, "/"); err != nil {
		return nil, err
	}
	s := self.(*List)
	for i, x := range s.items {
		eq, err := in.Equal(x, v)
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
}

func listClear(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	if err := in.UnpackArgs("list.clear", args, kw); err != nil {
		return nil, err
	}
	self.(*List).Clear(in)
	return None, nil
}

func listCopy(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	if err := in.UnpackArgs("list.copy", args, kw); err != nil {
		return nil, err
	}
	items, _ := in.collect(self)
	return in.NewList(items), nil
}

func listReverse(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	if err := in.UnpackArgs("list.reverse", args, kw); err != nil {
		return nil, err
	}
	slices.Reverse(self.(*List).items)
	return None, nil
}

// seqCount is list.count or tuple.count (typ names the type).
func (in *Interp) seqCount(typ string, items []Value, args []Value, kw []KeywordArg) (Value, error) {
	var v Value
	if err := in.UnpackArgs(typ+".count", args, kw, "value", &v, "/"); err != nil {
		return nil, err
	}
	return in.countEqual(items, v)
}

// seqIndexOf is list.index or tuple.index: the first place in
// items[start:stop] of an item equal to value.
func (in *Interp) seqIndexOf(typ string, items []Value, args []Value, kw []KeywordArg) (Value, error) {
	var v, startArg, stopArg Value
	if err := in.UnpackArgs(typ+".index", args, kw, "value", &v, "start?", &startArg, "stop?", &stopArg, "/"); err != nil {
		return nil, err
	}
	start, stop, err := in.indexBounds(int64(len(items)), startArg, stopArg)
	if err != nil {
		return nil, err
	}
	for i := start; i < stop; i++ {
		eq, err := in.Equal(items[i], v)
		if err != nil {
			return nil, err
		}
		if eq {
			return i, nil
		}
	}
	if typ == "tuple" {
		return nil, in.Raise(ValueErrorType, "tuple.index(x): x not in tuple")
	}
	return nil, in.Raise(ValueErrorType, "%s is not in list", in.ReprOf(v))
}

// indexBounds is where an index method (list.index, deque.index)
// looks among n items: start and stop, nil when absent, clamped as a
// slice clamps them.
func (in *Interp) indexBounds(n int64, startArg, stopArg Value) (start, stop int64, err error) {
	bound := func(a Value, def int64) (int64, error) {
		if a == nil {
			return def, nil
		}
		i, err := in.Index(a)
		if Matches(err, TypeErrorType) {
			in.Drop(err)
			err = in.typeError("slice indices must be integers or have an __index__ method")
		}
		if err != nil {
			return 0, err
		}
		if i < 0 {
			i = max(i+n, 0)
		}
		return min(i, n), nil
	}
	if start, err = bound(startArg, 0); err != nil {
		return 0, 0, err
	}
	stop, err = bound(stopArg, n)
	return start, stop, err
}

// sortList is list.sort(key=, reverse=): a stable sort by <.
func (in *Interp) sortList(l *List, args []Value, kw []KeywordArg) error {
	var key Value = None
	var reverse int64
	if err := in.UnpackArgs("list.sort", args, kw, "*", "key?", &key, "reverse?", &reverse); err != nil {
		return err
	}
	keys := make([]Value, len(l.items))
	for i, v := range l.items {
		if key != None {
			k, err := in.call(key, []Value{v}, nil)
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
	rev := reverse != 0
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
