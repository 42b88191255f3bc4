package eval

import (
	"math/big"
	"unicode/utf8"
)

// Index is v as an index (int, bool, or an object with __index__).
func (in *Interp) Index(v Value) (int64, error) {
	v = plain(v, "__index__")
	switch x := v.(type) {
	case int64:
		return x, nil
	case bool:
		if x {
			return 1, nil
		}
		return 0, nil
	case *big.Int:
		return 0, in.Raise(IndexErrorType, "cannot fit 'int' into an index-sized integer")
	}
	if f := TypeOf(v).lookup("__index__"); f != nil {
		r, err := in.callWithSelf(f, v, nil, nil)
		if err != nil {
			return 0, err
		}
		defer in.Decref(r)
		if i, ok := plain(r).(int64); ok {
			return i, nil
		}
		if _, ok := plain(r).(*big.Int); ok {
			return 0, in.Raise(IndexErrorType, "cannot fit 'int' into an index-sized integer")
		}
		return 0, in.typeError("__index__ returned non-int (type %s)", TypeOf(r).Name)
	}
	return 0, in.typeError("'%s' object cannot be interpreted as an integer", TypeOf(v).Name)
}

// sliceIndices is slice.indices(n): CPython's clamping of a slice to a
// sequence of length n, and the number of items it selects.
func (in *Interp) sliceIndices(s *SliceObj, n int64) (start, stop, step, count int64, err error) {
	step = 1
	if s.Step != None {
		if step, err = in.Index(s.Step); err != nil {
			return
		}
		if step == 0 {
			err = in.Raise(ValueErrorType, "slice step cannot be zero")
			return
		}
	}
	bound := func(v Value, def int64) (int64, error) {
		if v == None {
			return def, nil
		}
		i, err := in.Index(v)
		if err != nil {
			return 0, err
		}
		if i < 0 {
			i += n
			if i < 0 {
				if step < 0 {
					return -1, nil
				}
				return 0, nil
			}
		}
		if i >= n {
			if step < 0 {
				return n - 1, nil
			}
			return n, nil
		}
		return i, nil
	}
	if step > 0 {
		start, err = bound(s.Start, 0)
		if err == nil {
			stop, err = bound(s.Stop, n)
		}
	} else {
		start, err = bound(s.Start, n-1)
		if err == nil {
			stop, err = bound(s.Stop, -1)
		}
	}
	if err != nil {
		return
	}
	switch {
	case step > 0 && start < stop:
		count = (stop - start + step - 1) / step
	case step < 0 && stop < start:
		count = (start - stop - step - 1) / -step
	}
	return
}

// seqIndex normalises a sequence index, or raises IndexError.
func (in *Interp) seqIndex(key Value, n int64, what string) (int64, error) {
	i, err := in.Index(key)
	if err != nil {
		if Matches(err, TypeErrorType) {
			in.Drop(err)
			return 0, in.typeError("%s indices must be integers or slices, not %s", what, TypeOf(key).Name)
		}
		return 0, err
	}
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return 0, in.Raise(IndexErrorType, "%s index out of range", what)
	}
	return i, nil
}

func (in *Interp) sliceOf(items []Value, s *SliceObj) ([]Value, error) {
	start, _, step, count, err := in.sliceIndices(s, int64(len(items)))
	if err != nil {
		return nil, err
	}
	out := make([]Value, 0, count)
	for i := range count {
		out = append(out, newRef(items[start+i*step]))
	}
	return out, nil
}

// GetItem is obj[key] (borrowed operands, owned result).
func (in *Interp) GetItem(obj, key Value) (Value, error) {
	if o, ok := obj.(*Instance); ok && o.base != nil && o.override("__getitem__") == nil {
		return in.baseGetItem(o, key)
	}
	switch o := obj.(type) {
	case *List:
		if s, ok := key.(*SliceObj); ok {
			items, err := in.sliceOf(o.items, s)
			if err != nil {
				return nil, err
			}
			return in.NewList(items), nil
		}
		i, err := in.seqIndex(key, int64(len(o.items)), "list")
		if err != nil {
			return nil, err
		}
		return newRef(o.items[i]), nil
	case *Tuple:
		if s, ok := key.(*SliceObj); ok {
			items, err := in.sliceOf(o.items, s)
			if err != nil {
				return nil, err
			}
			if o.cls != nil && o.cls.StructSeq { // a structseq's slice is a plain tuple
				return in.NewTuple(items), nil
			}
			return in.NewTupleOf(o.cls, items), nil
		}
		i, err := in.seqIndex(key, int64(len(o.items)), "tuple")
		if err != nil {
			return nil, err
		}
		return newRef(o.items[i]), nil
	case string:
		runes, ascii := in.charsOf(o)
		n := int64(len(runes))
		if ascii {
			n = int64(len(o))
		}
		if s, ok := key.(*SliceObj); ok {
			start, _, step, count, err := in.sliceIndices(s, n)
			if err != nil {
				return nil, err
			}
			if ascii && step == 1 {
				return o[start : start+count], nil
			}
			out := make([]rune, 0, count)
			for i := range count {
				if ascii {
					out = append(out, rune(o[start+i*step]))
				} else {
					out = append(out, runes[start+i*step])
				}
			}
			return string(out), nil
		}
		i, err := in.seqIndex(key, n, "string")
		if err != nil {
			return nil, err
		}
		if ascii {
			return o[i : i+1], nil
		}
		return string(runes[i]), nil
	case *Range:
		if s, ok := key.(*SliceObj); ok {
			start, _, step, count, err := in.sliceIndices(s, o.Len())
			if err != nil {
				return nil, err
			}
			first := o.Start + start*o.Step
			return &Range{Start: first, Stop: first + count*step*o.Step, Step: step * o.Step}, nil
		}
		i, err := in.seqIndex(key, o.Len(), "range object")
		if err != nil {
			return nil, err
		}
		return o.Start + i*o.Step, nil
	case *Dict:
		v, ok, err := in.dictGet(o, key)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, in.raiseInst(in.NewException(KeyErrorType, key))
		}
		return newRef(v), nil
	case *Class:
		if f := o.lookup("__class_getitem__"); f != nil {
			return in.call(f, []Value{o, key}, nil)
		}
		if o.Native {
			return newRef(o), nil
		}
	}
	if f := TypeOf(obj).lookup("__getitem__"); f != nil {
		return in.callWithSelf(f, obj, []Value{key}, nil)
	}
	return nil, in.typeError("'%s' object is not subscriptable", TypeOf(obj).Name)
}

// SetItem is obj[key] = v (all borrowed).
func (in *Interp) SetItem(obj, key, v Value) error {
	obj = plain(obj, "__setitem__")
	switch o := obj.(type) {
	case *List:
		if s, ok := key.(*SliceObj); ok {
			return in.setListSlice(o, s, v)
		}
		i, err := in.seqIndex(key, int64(len(o.items)), "list assignment")
		if err != nil {
			return err
		}
		old := o.items[i]
		o.items[i] = newRef(v)
		in.Decref(old)
		return nil
	case *Dict:
		return in.dictSet(o, key, v)
	}
	if f := TypeOf(obj).lookup("__setitem__"); f != nil {
		r, err := in.callWithSelf(f, obj, []Value{key, v}, nil)
		if err == nil {
			in.Decref(r)
		}
		return err
	}
	return in.typeError("'%s' object does not support item assignment", TypeOf(obj).Name)
}

func (in *Interp) setListSlice(l *List, s *SliceObj, v Value) error {
	items, err := in.collect(v)
	if err != nil {
		return err
	}
	start, stop, step, count, err := in.sliceIndices(s, int64(len(l.items)))
	if err != nil {
		in.decrefAll(items)
		return err
	}
	if step != 1 {
		if int64(len(items)) != count {
			in.decrefAll(items)
			return in.Raise(ValueErrorType, "attempt to assign sequence of size %d to extended slice of size %d", len(items), count)
		}
		var old []Value
		for i := range count {
			j := start + i*step
			old = append(old, l.items[j])
			l.items[j] = items[i]
		}
		in.decrefAll(old)
		return nil
	}
	stop = max(stop, start)
	old := append([]Value(nil), l.items[start:stop]...)
	rest := append(items, l.items[stop:]...)
	l.items = append(l.items[:start], rest...)
	in.decrefAll(old)
	return nil
}

// DelItem is del obj[key].
func (in *Interp) DelItem(obj, key Value) error {
	obj = plain(obj, "__delitem__")
	switch o := obj.(type) {
	case *List:
		if s, ok := key.(*SliceObj); ok {
			start, _, step, count, err := in.sliceIndices(s, int64(len(o.items)))
			if err != nil {
				return err
			}
			drop := map[int64]bool{}
			for i := range count {
				drop[start+i*step] = true
			}
			var keep, old []Value
			for i, x := range o.items {
				if drop[int64(i)] {
					old = append(old, x)
				} else {
					keep = append(keep, x)
				}
			}
			o.items = keep
			in.decrefAll(old)
			return nil
		}
		i, err := in.seqIndex(key, int64(len(o.items)), "list assignment")
		if err != nil {
			return err
		}
		old := o.items[i]
		o.items = append(o.items[:i], o.items[i+1:]...)
		in.Decref(old)
		return nil
	case *Dict:
		ok, err := in.dictDel(o, key)
		if err == nil && !ok {
			err = in.raiseInst(in.NewException(KeyErrorType, key))
		}
		return err
	}
	if f := TypeOf(obj).lookup("__delitem__"); f != nil {
		r, err := in.callWithSelf(f, obj, []Value{key}, nil)
		if err == nil {
			in.Decref(r)
		}
		return err
	}
	return in.typeError("'%s' object doesn't support item deletion", TypeOf(obj).Name)
}

// Len is len(v).
func (in *Interp) Len(v Value) (int64, error) {
	v = plain(v, "__len__")
	switch x := v.(type) {
	case string:
		return int64(utf8.RuneCountInString(x)), nil
	case Bytes:
		return int64(len(x)), nil
	case *List:
		return int64(len(x.items)), nil
	case *Tuple:
		return int64(len(x.items)), nil
	case *Dict:
		return int64(x.n), nil
	case *Set:
		return int64(x.d.n), nil
	case *dictView:
		return int64(x.d.n), nil
	case *Range:
		return x.Len(), nil
	}
	if f := TypeOf(v).lookup("__len__"); f != nil {
		r, err := in.callWithSelf(f, v, nil, nil)
		if err != nil {
			return 0, err
		}
		defer in.Decref(r)
		n, err := in.Index(r)
		if err == nil && n < 0 {
			err = in.Raise(ValueErrorType, "__len__() should return >= 0")
		}
		return n, err
	}
	return 0, in.typeError("object of type '%s' has no len()", TypeOf(v).Name)
}
