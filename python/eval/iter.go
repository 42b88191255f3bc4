package eval

import "unicode/utf8"

// iterObj is an iterator over a built-in container: it holds the
// container until it is exhausted or dropped.
type iterObj struct {
	Header
	src  Value
	i    int64
	next func(in *Interp, it *iterObj) (Value, bool, error)
}

func (it *iterObj) Type() *Class { return IteratorType }

func (it *iterObj) Traverse(visit func(Value)) {
	if it.src != nil {
		visit(it.src)
	}
}

func (it *iterObj) Clear(in *Interp) {
	s := it.src
	it.src = nil
	if s != nil {
		in.Decref(s)
	}
}

// newIter makes an iterator holding a reference to src.
func (in *Interp) newIter(src Value, next func(in *Interp, it *iterObj) (Value, bool, error)) *iterObj {
	it := &iterObj{src: newRef(src), next: next}
	in.track(it)
	return it
}

// NewIterator makes an iterator object from a Go function (for types
// declared in other packages): next returns an owned value, or false at
// the end.
func (in *Interp) NewIterator(next func(in *Interp) (Value, bool, error)) Value {
	return in.newIter(None, func(in *Interp, it *iterObj) (Value, bool, error) { return next(in) })
}

// Iter is iter(v): an owned iterator.
func (in *Interp) Iter(v Value) (Value, error) {
	v = plain(v, "__iter__")
	switch s := v.(type) {
	case *List:
		return in.newIter(s, func(in *Interp, it *iterObj) (Value, bool, error) {
			l, _ := it.src.(*List)
			if l == nil || it.i >= int64(len(l.items)) {
				it.Clear(in)
				return nil, false, nil
			}
			it.i++
			return newRef(l.items[it.i-1]), true, nil
		}), nil
	case *Tuple:
		return in.newIter(s, func(in *Interp, it *iterObj) (Value, bool, error) {
			t, _ := it.src.(*Tuple)
			if t == nil || it.i >= int64(len(t.items)) {
				it.Clear(in)
				return nil, false, nil
			}
			it.i++
			return newRef(t.items[it.i-1]), true, nil
		}), nil
	case string:
		return in.newIter(s, func(in *Interp, it *iterObj) (Value, bool, error) {
			str := s[it.i:]
			if str == "" {
				return nil, false, nil
			}
			_, n := utf8.DecodeRuneInString(str)
			it.i += int64(n)
			return str[:n], true, nil
		}), nil
	case *Range: // its src is the range, so that it counts nothing (gcCost)
		return in.newIter(s, func(in *Interp, it *iterObj) (Value, bool, error) {
			if it.i >= s.Len() {
				return nil, false, nil
			}
			it.i++
			return s.Start + (it.i-1)*s.Step, true, nil
		}), nil
	case *Dict:
		return in.dictIter(s, viewKeys), nil
	case *dictView:
		return in.dictIter(s.d, s.kind), nil
	case *Set:
		return in.dictIter(s.d, viewKeys), nil
	case *Generator, *iterObj:
		return newRef(v), nil
	}
	cls := TypeOf(v)
	if f := cls.lookup("__iter__"); f != nil {
		it, err := in.callWithSelf(f, v, nil, nil)
		if err != nil {
			return nil, err
		}
		if TypeOf(it).lookup("__next__") == nil {
			if _, ok := it.(*Generator); !ok {
				if _, ok := it.(*iterObj); !ok {
					in.Decref(it)
					return nil, in.typeError("iter() returned non-iterator of type '%s'", TypeOf(it).Name)
				}
			}
		}
		return it, nil
	}
	if f := cls.lookup("__getitem__"); f != nil {
		return in.newIter(v, func(in *Interp, it *iterObj) (Value, bool, error) {
			r, err := in.callWithSelf(f, it.src, []Value{it.i}, nil)
			if err != nil {
				if Matches(err, IndexErrorType) || Matches(err, StopIterationType) {
					in.Drop(err)
					return nil, false, nil
				}
				return nil, false, err
			}
			it.i++
			return r, true, nil
		}), nil
	}
	return nil, in.typeError("'%s' object is not iterable", cls.Name)
}

func (in *Interp) dictIter(d *Dict, kind viewKind) Value {
	return in.newIter(d, func(in *Interp, it *iterObj) (Value, bool, error) {
		for it.i < int64(len(d.entries)) {
			e := d.entries[it.i]
			it.i++
			if e.del {
				continue
			}
			switch kind {
			case viewValues:
				return newRef(e.val), true, nil
			case viewItems:
				return in.NewTuple([]Value{newRef(e.key), newRef(e.val)}), true, nil
			}
			return newRef(e.key), true, nil
		}
		return nil, false, nil
	})
}

// Next advances an iterator: an owned value, or false at its end.
func (in *Interp) Next(it Value) (Value, bool, error) {
	switch i := it.(type) {
	case *iterObj:
		return i.next(in, i)
	case *Generator:
		v, done, err := in.genSend(i, genMsg{v: None})
		return v, !done && err == nil, err
	}
	f := TypeOf(it).lookup("__next__")
	if f == nil {
		return nil, false, in.typeError("'%s' object is not an iterator", TypeOf(it).Name)
	}
	v, err := in.callWithSelf(f, it, nil, nil)
	if err != nil {
		if Matches(err, StopIterationType) {
			in.Drop(err)
			return nil, false, nil
		}
		return nil, false, err
	}
	return v, true, nil
}

// collect returns the items of an iterable (owned): list(v)'s items.
func (in *Interp) collect(v Value) ([]Value, error) {
	switch s := v.(type) {
	case *List:
		out := make([]Value, len(s.items))
		for i, x := range s.items {
			out[i] = newRef(x)
		}
		return out, nil
	case *Tuple:
		out := make([]Value, len(s.items))
		for i, x := range s.items {
			out[i] = newRef(x)
		}
		return out, nil
	case *Range:
		if err := in.checkLen(s.Len(), 1); err != nil {
			return nil, err
		}
	}
	it, err := in.Iter(v)
	if err != nil {
		return nil, err
	}
	defer in.Decref(it)
	var out []Value
	for {
		x, ok, err := in.Next(it)
		if err != nil {
			in.decrefAll(out)
			return nil, err
		}
		if !ok {
			return out, nil
		}
		out = append(out, x)
		if len(out) > MaxItems {
			in.decrefAll(out)
			return nil, in.checkLen(int64(len(out)), 1)
		}
	}
}

// viewKind is which of a dict's keys(), values() or items() a view is.
type viewKind uint8

const (
	viewKeys viewKind = iota
	viewValues
	viewItems
)

// dictView is dict.keys(), values() or items(): a live view; ordered
// for an OrderedDict's, whose classes (odict_keys...) are CPython's
// subclasses of the dict's.
type dictView struct {
	Header
	d       *Dict
	kind    viewKind
	ordered bool
}

var (
	dictKeysType    = NewClass("dict_keys", "builtins")
	dictValuesType  = NewClass("dict_values", "builtins")
	dictItemsType   = NewClass("dict_items", "builtins")
	odictKeysType   = NewClass("odict_keys", "builtins", dictKeysType)
	odictValuesType = NewClass("odict_values", "builtins", dictValuesType)
	odictItemsType  = NewClass("odict_items", "builtins", dictItemsType)
)

func (v *dictView) Type() *Class {
	if v.ordered {
		return [...]*Class{odictKeysType, odictValuesType, odictItemsType}[v.kind]
	}
	return [...]*Class{dictKeysType, dictValuesType, dictItemsType}[v.kind]
}

func (v *dictView) Traverse(visit func(Value)) { visit(v.d) }

func (v *dictView) Clear(in *Interp) {
	d := v.d
	v.d = nil
	if d != nil {
		in.Decref(d)
	}
}

func (in *Interp) newView(d *Dict, kind viewKind) *dictView {
	v := &dictView{d: newRef(d).(*Dict), kind: kind}
	in.track(v)
	return v
}
