package eval

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// The set algebra: set and frozenset operators and methods, and the
// operators of dict_keys and dict_items views, which take any iterable
// and give a set.

// setOperand is v as a set for an operator: a set or frozenset (or an
// instance of a subclass of one), else nil.
func setOperand(v Value) *Set {
	s, _ := plain(v, "__and__", "__or__", "__sub__", "__xor__").(*Set)
	return s
}

// isSetView reports whether v is a dict_keys or dict_items view: the
// views with set operators.
func isSetView(v Value) bool {
	dv, ok := v.(*dictView)
	return ok && dv.kind != viewValues
}

// setFrom is a new set of the items of v (an iterable).
func (in *Interp) setFrom(v Value) (*Set, error) {
	s := in.newSet()
	if err := in.forEach(v, func(x Value) error { return in.setAdd(s, x) }); err != nil {
		in.Decref(s)
		return nil, err
	}
	return s, nil
}

// setCopy is a new set (frozen as asked) with the members of s.
func (in *Interp) setCopy(s *Set, frozen bool) *Set {
	c := in.newSet()
	c.frozen = frozen
	for _, e := range s.d.entries {
		if !e.del {
			c.d.put(in, e.k, e.key, None)
		}
	}
	return c
}

// setUpdateOp applies op (|, &, -, ^) to dst in place with the members
// of src, an iterable: set's update, intersection_update,
// difference_update and symmetric_difference_update.
func (in *Interp) setUpdateOp(dst *Set, op syntax.BinOpKind, src Value) error {
	switch op {
	case syntax.BitOr:
		return in.forEach(src, func(x Value) error { return in.setAdd(dst, x) })
	case syntax.Sub:
		return in.forEach(src, func(x Value) error {
			_, err := in.dictDel(dst.d, x)
			return err
		})
	case syntax.BitXor:
		other, err := in.setFrom(src)
		if err != nil {
			return err
		}
		defer in.Decref(other)
		for _, e := range other.d.entries {
			if e.del {
				continue
			}
			if !dst.d.remove(in, e.k) {
				dst.d.put(in, e.k, e.key, None)
			}
		}
		return nil
	}
	// &: keep the members also in src
	other, err := in.setFrom(src)
	if err != nil {
		return err
	}
	defer in.Decref(other)
	var gone []hashKey
	for _, e := range dst.d.entries {
		if _, ok := other.d.lookup(in, e.k); !e.del && !ok {
			gone = append(gone, e.k)
		}
	}
	for _, k := range gone {
		dst.d.remove(in, k)
	}
	return nil
}

// setUpdateAll applies op to dst with each of srcs in turn.
func (in *Interp) setUpdateAll(dst *Set, op syntax.BinOpKind, srcs []Value) error {
	for _, src := range srcs {
		if err := in.setUpdateOp(dst, op, src); err != nil {
			return err
		}
	}
	return nil
}

// setBinOp is a op b for sets, frozensets and dict views: ok is false
// when neither operand is one or the operator is not a set operator.
func (in *Interp) setBinOp(op syntax.BinOpKind, a, b Value, inplace bool) (Value, bool, error) {
	if op != syntax.BitAnd && op != syntax.BitOr && op != syntax.Sub && op != syntax.BitXor {
		return nil, false, nil
	}
	sa, sb := setOperand(a), setOperand(b)
	if sa != nil && sb != nil {
		if inplace && !sa.frozen {
			if err := in.setUpdateOp(sa, op, sb); err != nil {
				return nil, true, err
			}
			return newRef(a), true, nil
		}
		r := in.setCopy(sa, sa.frozen)
		if err := in.setUpdateOp(r, op, sb); err != nil {
			in.Decref(r)
			return nil, true, err
		}
		return r, true, nil
	}
	if !isSetView(a) && !isSetView(b) {
		return nil, false, nil
	}
	if op == syntax.BitAnd {
		return in.viewIntersect(a, b)
	}
	// a view's operators take any iterable on either side
	first, second := a, b
	if !isSetView(a) && op != syntax.Sub {
		first, second = b, a
	}
	// the other operand is iterated as CPython does: one that is not
	// iterable is its TypeError
	r, err := in.setFrom(first)
	if err != nil {
		return nil, true, err
	}
	if err := in.setUpdateOp(r, op, second); err != nil {
		in.Decref(r)
		return nil, true, err
	}
	return r, true, nil
}

// frozenKey is a frozenset's hash key: its members' keys in one order.
func (in *Interp) frozenKey(s *Set) hashKey {
	parts := make([]string, 0, s.d.n)
	for _, e := range s.d.entries {
		if !e.del {
			parts = append(parts, fmt.Sprintf("%d:%d:%q:%p;", e.k.kind, e.k.i, e.k.s, e.k.p))
		}
	}
	sort.Strings(parts)
	return hashKey{kind: keyFrozen, s: strings.Join(parts, "")}
}

func init() {
	for _, c := range []*Class{SetType, FrozenSetType} {
		// op is a method giving a new set: of any number of iterables, or
		// (symmetric_difference) of one
		op := func(name string, bop syntax.BinOpKind, one bool) {
			qual := c.Name + "." + name
			method(c, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
				var err error
				if one {
					var other Value
					err = in.UnpackArgs(qual, args, kw, "other", &other, "/")
				} else {
					err = in.noKw(qual, kw)
				}
				if err != nil {
					return nil, err
				}
				s := self.(*Set)
				r := in.setCopy(s, s.frozen)
				if err := in.setUpdateAll(r, bop, args); err != nil {
					in.Decref(r)
					return nil, err
				}
				return r, nil
			})
		}
		op("union", syntax.BitOr, false)
		op("intersection", syntax.BitAnd, false)
		op("difference", syntax.Sub, false)
		op("symmetric_difference", syntax.BitXor, true)
		rel := func(name string, f func(in *Interp, s, other *Set) (bool, error)) {
			qual := c.Name + "." + name
			method(c, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
				var o Value
				if err := in.UnpackArgs(qual, args, kw, "other", &o, "/"); err != nil {
					return nil, err
				}
				other, err := in.setFrom(o)
				if err != nil {
					return nil, err
				}
				defer in.Decref(other)
				return f(in, self.(*Set), other)
			})
		}
		rel("issubset", func(in *Interp, s, other *Set) (bool, error) { return in.setWithin(s, other) })
		rel("issuperset", func(in *Interp, s, other *Set) (bool, error) { return in.setWithin(other, s) })
		rel("isdisjoint", func(in *Interp, s, other *Set) (bool, error) { return in.setsDisjoint(s, other) })
		copyName := c.Name + ".copy"
		method(c, "copy", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.UnpackArgs(copyName, args, kw); err != nil {
				return nil, err
			}
			s := self.(*Set)
			return in.setCopy(s, s.frozen), nil
		})
	}
	update := func(name string, bop syntax.BinOpKind) {
		method(SetType, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			var err error
			if bop == syntax.BitXor {
				var other Value
				err = in.UnpackArgs("set."+name, args, kw, "other", &other, "/")
			} else {
				err = in.noKw("set."+name, kw)
			}
			if err != nil {
				return nil, err
			}
			return None, in.setUpdateAll(self.(*Set), bop, args)
		})
	}
	update("intersection_update", syntax.BitAnd)
	update("difference_update", syntax.Sub)
	update("symmetric_difference_update", syntax.BitXor)
	method(dictKeysType, "isdisjoint", viewIsDisjoint)
	method(dictItemsType, "isdisjoint", viewIsDisjoint)
}

// viewIsDisjoint is dict_keys.isdisjoint(other) and dict_items'.
func viewIsDisjoint(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var o Value
	if err := in.UnpackArgs(TypeOf(self).Name+".isdisjoint", args, kw, "other", &o, "/"); err != nil {
		return nil, err
	}
	s, err := in.setFrom(self)
	if err != nil {
		return nil, err
	}
	defer in.Decref(s)
	other, err := in.setFrom(o)
	if err != nil {
		return nil, err
	}
	defer in.Decref(other)
	return in.setsDisjoint(s, other)
}

// setWithin reports whether every member of s is in other.
func (in *Interp) setWithin(s, other *Set) (bool, error) {
	for _, e := range s.d.entries {
		if e.del {
			continue
		}
		if _, ok := other.d.lookup(in, e.k); !ok {
			return false, nil
		}
	}
	return true, nil
}

// setsDisjoint reports whether s and other have no member in common.
func (in *Interp) setsDisjoint(s, other *Set) (bool, error) {
	for _, e := range s.d.entries {
		if e.del {
			continue
		}
		if _, ok := other.d.lookup(in, e.k); ok {
			return false, nil
		}
	}
	return true, nil
}

// compareViews is a op b where one is a dict_keys or dict_items view and
// the other a view or a set: compared as sets.
func (in *Interp) compareViews(op syntax.CmpOpKind, a, b Value) (Value, bool, error) {
	sa, err := in.setFrom(a)
	if err != nil {
		return nil, true, err
	}
	defer in.Decref(sa)
	sb, err := in.setFrom(b)
	if err != nil {
		return nil, true, err
	}
	defer in.Decref(sb)
	return in.compareMaps(op, sa, sb)
}

// viewIntersect is a & b where one is a dict_keys or dict_items view:
// the items of the other (the smaller, of two views) that the view
// contains, as CPython's _PyDictView_Intersect takes them (an items
// view tests a pair without hashing it).
func (in *Interp) viewIntersect(a, b Value) (Value, bool, error) {
	view, other := a, b
	if !isSetView(view) {
		view, other = b, a
	}
	if isSetView(other) && other.(*dictView).d.n > view.(*dictView).d.n {
		view, other = other, view
	}
	r := in.newSet()
	err := in.forEach(other, func(x Value) error {
		ok, err := in.Contains(view, x)
		if err != nil || !ok {
			return err
		}
		return in.setAdd(r, x)
	})
	if err != nil {
		in.Decref(r)
		return nil, true, err
	}
	return r, true, nil
}

// set's methods that change it: add, discard, remove, update, clear,
// pop.
func init() {
	method(SetType, "add", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		var v Value
		if err := in.UnpackArgs("set.add", args, kw, "object", &v, "/"); err != nil {
			return nil, err
		}
		return None, in.setAdd(self.(*Set), v)
	})
	method(SetType, "discard", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		var v Value
		if err := in.UnpackArgs("set.discard", args, kw, "object", &v, "/"); err != nil {
			return nil, err
		}
		_, err := in.dictDel(self.(*Set).d, v)
		return None, err
	})
	method(SetType, "remove", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		var v Value
		if err := in.UnpackArgs("set.remove", args, kw, "object", &v, "/"); err != nil {
			return nil, err
		}
		ok, err := in.dictDel(self.(*Set).d, v)
		if err == nil && !ok {
			err = in.raiseInst(in.NewException(KeyErrorType, v))
		}
		return None, err
	})
	method(SetType, "update", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.noKw("set.update", kw); err != nil {
			return nil, err
		}
		for _, a := range args {
			if err := in.forEach(a, func(v Value) error { return in.setAdd(self.(*Set), v) }); err != nil {
				return nil, err
			}
		}
		return None, nil
	})
	method(SetType, "clear", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("set.clear", args, kw); err != nil {
			return nil, err
		}
		self.(*Set).d.Clear(in)
		return None, nil
	})
	method(SetType, "pop", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("set.pop", args, kw); err != nil {
			return nil, err
		}
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
	varArgs(SetType, "union", "intersection", "difference", "update", "intersection_update", "difference_update")
	varArgs(FrozenSetType, "union", "intersection", "difference")
}
