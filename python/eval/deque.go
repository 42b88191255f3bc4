package eval

import (
	"slices"

	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

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

// dequeMethods are deque's methods: those of no argument (one is nil),
// and of one (a METH_O method, whose argument is one's).
var dequeMethods = []struct {
	name string
	one  bool
	fn   func(in *Interp, d *deque, one Value) (Value, error)
}{
	{"append", true, func(in *Interp, d *deque, v Value) (Value, error) { in.dequePush(d, v, false); return None, nil }},
	{"appendleft", true, func(in *Interp, d *deque, v Value) (Value, error) { in.dequePush(d, v, true); return None, nil }},
	{"clear", false, func(in *Interp, d *deque, _ Value) (Value, error) { d.Clear(in); return None, nil }},
	{"copy", false, dequeCopy},
	{"count", true, func(in *Interp, d *deque, v Value) (Value, error) { return in.countEqual(d.items, v) }},
	{"extend", true, func(in *Interp, d *deque, v Value) (Value, error) { return None, in.dequeExtend(d, v, false) }},
	{"extendleft", true, func(in *Interp, d *deque, v Value) (Value, error) { return None, in.dequeExtend(d, v, true) }},
	{"pop", false, func(in *Interp, d *deque, _ Value) (Value, error) { return in.dequePop(d, false) }},
	{"popleft", false, func(in *Interp, d *deque, _ Value) (Value, error) { return in.dequePop(d, true) }},
	{"remove", true, dequeRemove},
	{"reverse", false, func(in *Interp, d *deque, _ Value) (Value, error) { slices.Reverse(d.items); return None, nil }},
}

// dequeSlots are deque's slots called by name (d.__len__()).
var dequeSlots = []struct {
	name string
	args int
	fn   func(in *Interp, d *deque, args []Value) (Value, error)
}{
	{"__eq__", 1, func(in *Interp, d *deque, args []Value) (Value, error) {
		o, ok := args[0].(*deque)
		if !ok {
			return NotImplemented, nil
		}
		return in.compareSeq(syntax.Eq, d.items, o.items)
	}},
	{"__getitem__", 1, func(in *Interp, d *deque, args []Value) (Value, error) {
		i, err := in.seqIndex(args[0], int64(len(d.items)), "deque")
		if err != nil {
			return nil, err
		}
		return newRef(d.items[i]), nil
	}},
	{"__iter__", 0, func(in *Interp, d *deque, args []Value) (Value, error) {
		items := make([]Value, len(d.items))
		for i, v := range d.items {
			items[i] = newRef(v)
		}
		l := in.NewList(items)
		it, err := in.Iter(l)
		in.Decref(l)
		return it, err
	}},
	{"__len__", 0, func(in *Interp, d *deque, args []Value) (Value, error) { return int64(len(d.items)), nil }},
	{"__repr__", 0, func(in *Interp, d *deque, args []Value) (Value, error) {
		s, err := in.reprItems("deque([", d.items, "]")
		if err != nil {
			return nil, err
		}
		if d.maxlen >= 0 {
			return s + ", maxlen=" + itoa(d.maxlen) + ")", nil
		}
		return s + ")", nil
	}},
}

func init() {
	dequeType.New = newDeque
	for _, m := range dequeMethods {
		qual := "deque." + m.name
		method(dequeType, m.name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			var one Value
			var err error
			if m.one {
				err = in.UnpackArgs(qual, args, kw, "x", &one, "/")
			} else {
				err = in.UnpackArgs(qual, args, kw)
			}
			if err != nil {
				return nil, err
			}
			return m.fn(in, self.(*deque), one)
		})
	}
	for _, m := range dequeSlots {
		method(dequeType, m.name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.slotArgs(m.name, args, kw, m.args); err != nil {
				return nil, err
			}
			return m.fn(in, self.(*deque), args)
		})
	}
	method(dequeType, "rotate", dequeRotate)
	method(dequeType, "index", dequeIndex)
	dequeType.SetAttr("maxlen", NewProperty(NewBuiltin("maxlen", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if d := self.(*deque); d.maxlen >= 0 {
			return d.maxlen, nil
		}
		return None, nil
	}), nil))
}

// newDeque is deque(iterable=(), maxlen=None).
func newDeque(in *Interp, _ *Class, args []Value, kw []KeywordArg) (Value, error) {
	var iterable, maxlen Value
	if err := in.UnpackArgs("deque", args, kw, "iterable?", &iterable, "maxlen?", &maxlen); err != nil {
		return nil, err
	}
	d := &deque{maxlen: -1}
	if maxlen != nil && maxlen != None {
		var err error
		if d.maxlen, err = in.Index(maxlen); err != nil {
			return nil, err
		}
		if d.maxlen < 0 {
			return nil, in.Raise(ValueErrorType, "maxlen must be non-negative")
		}
	}
	in.track(d)
	if iterable != nil {
		if err := in.forEach(iterable, func(v Value) error { in.dequePush(d, v, false); return nil }); err != nil {
			in.Decref(d)
			return nil, err
		}
	}
	return d, nil
}

// dequePop is pop or popleft (left).
func (in *Interp) dequePop(d *deque, left bool) (Value, error) {
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
}

// dequeExtend is extend or extendleft (left).
func (in *Interp) dequeExtend(d *deque, iterable Value, left bool) error {
	items, err := in.collect(iterable)
	if err != nil {
		return err
	}
	for _, v := range items {
		in.dequePush(d, v, left)
	}
	in.decrefAll(items)
	return nil
}

func dequeCopy(in *Interp, d *deque, _ Value) (Value, error) {
	c := &deque{maxlen: d.maxlen}
	in.track(c)
	for _, v := range d.items {
		in.dequePush(c, v, false)
	}
	return c, nil
}

// dequeFind is the index of d's first item equal to v, or -1.
func (in *Interp) dequeFind(d *deque, v Value) (int, error) {
	for i, x := range d.items {
		if eq, err := in.Equal(x, v); err != nil || eq {
			return i, err
		}
	}
	return -1, nil
}

func dequeRemove(in *Interp, d *deque, v Value) (Value, error) {
	i, err := in.dequeFind(d, v)
	if err == nil && i < 0 {
		err = in.Raise(ValueErrorType, "deque.remove(x): x not in deque")
	}
	if err != nil {
		return nil, err
	}
	x := d.items[i]
	d.items = append(d.items[:i], d.items[i+1:]...)
	in.Decref(x)
	return None, nil
}

// dequeRotate is deque.rotate(n=1), whose count CPython checks under
// its qualified name.
func dequeRotate(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	n := int64(1)
	if err := in.unpackExpected("deque.rotate", args, kw, "n?", &n, "/"); err != nil {
		return nil, err
	}
	d := self.(*deque)
	if k := int64(len(d.items)); k > 0 {
		n = ((n % k) + k) % k
		d.items = append(d.items[k-n:], d.items[:k-n]...)[:k:k]
	}
	return None, nil
}

// dequeIndex is deque.index(x[, start[, stop]]), counted as CPython's
// _PyArg_ParseStack counts it.
func dequeIndex(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var v, startArg, stopArg Value
	if err := in.unpackTuple("deque.index", args, kw, "x", &v, "start?", &startArg, "stop?", &stopArg, "/"); err != nil {
		return nil, err
	}
	d := self.(*deque)
	start, stop, err := in.indexBounds(int64(len(d.items)), startArg, stopArg)
	if err != nil {
		return nil, err
	}
	for i := start; i < stop && i < int64(len(d.items)); i++ {
		eq, err := in.Equal(d.items[i], v)
		if err != nil {
			return nil, err
		}
		if eq {
			return i, nil
		}
	}
	return nil, in.Raise(ValueErrorType, "%s is not in deque", in.ReprOf(v))
}
