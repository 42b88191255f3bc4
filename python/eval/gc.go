package eval

import (
	"math/big"
	"sort"
)

// gcCollect is gc.collect(gen): a collection of generation gen and the
// younger ones (see collectGen), gc.callbacks told; nothing while a
// collection runs. It returns how many objects it freed.
func (in *Interp) gcCollect(gen int) int {
	if in.gc.collecting {
		return 0
	}
	return in.collectWithCallbacks(gen)
}

// collectGen collects generation gen and the younger ones: objects
// there that only reference cycles keep alive are found as CPython's
// collector finds them (references from outside the candidate set, the
// older generations included, make an object reachable) and freed:
// __del__ methods first, then each object's references are cleared in
// the order the objects were made. The survivors move to the next
// generation. It returns how many it freed.
func (in *Interp) collectGen(gen int) int {
	g := &in.gc
	if gen < 2 {
		g.count[gen+1]++
	}
	for i := 0; i <= gen; i++ {
		g.count[i] = 0
	}
	g.stats[gen].collections++
	cands := in.generation(gen)
	refs := make(map[Object]int32, len(cands))
	for _, o := range cands {
		refs[o] = o.header().refs
	}
	for _, o := range cands {
		o.Traverse(func(v Value) {
			if c, ok := v.(Object); ok {
				if _, tracked := refs[c]; tracked {
					refs[c]--
				}
			}
		})
	}
	reachable := make(map[Object]bool, len(cands))
	var stack []Object
	for o, n := range refs {
		if n > 0 {
			reachable[o] = true
			stack = append(stack, o)
		}
	}
	for len(stack) > 0 {
		o := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		o.Traverse(func(v Value) {
			if c, ok := v.(Object); ok {
				if _, tracked := refs[c]; tracked && !reachable[c] {
					reachable[c] = true
					stack = append(stack, c)
				}
			}
		})
	}
	older := uint8(gen)
	if gen < 2 {
		older++
	}
	survivors := 0
	for o := range reachable {
		o.header().gen = older
		survivors++
	}
	switch gen {
	case 1:
		g.longPending += survivors
	case 2:
		g.longPending = 0
		g.longTotal = survivors
		// a full collection ends by emptying CPython's free lists
		defer func() {
			g.freeLists, g.freeDicts = 0, 0
			g.freeTuples = [tupleFreeSizes]int{}
		}()
	}
	var garbage []Object
	for o := range refs {
		if !reachable[o] {
			garbage = append(garbage, o)
		}
	}
	if len(garbage) == 0 {
		return 0
	}
	sort.Slice(garbage, func(i, j int) bool { return garbage[i].header().seq < garbage[j].header().seq })
	for _, o := range garbage {
		Incref(o)
	}
	for _, o := range garbage {
		if inst, ok := o.(*Instance); ok && !inst.finalized {
			if del := inst.cls.lookup("__del__"); del != nil {
				inst.finalized = true
				if r, err := in.call(del, []Value{inst}, nil); err == nil {
					in.Decref(r)
				} else {
					in.unraisable(err, "Exception ignored in: __del__")
				}
			}
		}
	}
	dicts := instanceDicts(garbage)
	if !in.resurrected(garbage) {
		for _, o := range garbage {
			o.Clear(in)
		}
	}
	n := 0
	for _, o := range garbage {
		if _, isDict := dicts[o]; o.header().refs == 1 && !isDict {
			n++
		}
		in.Decref(o)
		if !o.header().dead {
			o.header().gen = older // resurrected
		}
	}
	g.stats[gen].collected += n
	return n
}

// resurrected reports whether a __del__ made an object of the garbage
// reachable again: a reference from outside the set (beyond the
// collector's own). CPython then frees none of them.
func (in *Interp) resurrected(garbage []Object) bool {
	inside := make(map[Object]int32, len(garbage))
	for _, o := range garbage {
		inside[o] = 0
	}
	for _, o := range garbage {
		o.Traverse(func(v Value) {
			if c, ok := v.(Object); ok {
				if _, in := inside[c]; in {
					inside[c]++
				}
			}
		})
	}
	for o, n := range inside {
		if o.header().refs-1 > n {
			return true
		}
	}
	return false
}

// instanceDicts are the __dict__s of the garbage's instances: CPython
// 3.11 keeps an instance's attributes inline, not as an object of their
// own, so gc.collect() does not count them.
func instanceDicts(garbage []Object) map[Object]bool {
	out := map[Object]bool{}
	for _, g := range garbage {
		if inst, ok := g.(*Instance); ok && inst.Dict != nil {
			out[inst.Dict] = true
		}
	}
	return out
}

// GetObjects is gc.get_objects(gen): a new list of the objects the
// collector tracks in generation gen (every one for -1), by generation
// and oldest first, as CPython lists them.
func (in *Interp) GetObjects(gen int) *List {
	objs := in.listed(gen)
	items := make([]Value, len(objs))
	for i, o := range objs {
		Incref(o)
		items[i] = o
	}
	return in.NewList(items)
}

// gcModule is gc: collect, get_objects, the collector switched off and
// on, and what gcMore adds (gcgen.go).
func gcModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("gc")
	in.fn(m, "collect", "collect(generation=2): free unreachable reference cycles, return how many objects", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		gen := int64(2)
		if err := in.UnpackArgs("collect", args, kw, "generation?", &gen); err != nil {
			return nil, err
		}
		if gen < 0 || gen > 2 {
			return nil, in.Raise(ValueErrorType, "invalid generation")
		}
		return int64(in.gcCollect(int(gen))), nil
	})
	in.fn(m, "get_objects", "get_objects(generation=None): a list of every object the collector tracks", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var gen Value = None
		if err := in.UnpackArgs("get_objects", args, kw, "generation?", &gen); err != nil {
			return nil, err
		}
		n := int64(-1)
		if gen != None {
			switch plain(gen, "__index__").(type) {
			case int64, bool, *big.Int:
			default:
				if TypeOf(gen).lookup("__index__") == nil {
					return nil, in.typeError("argument should be integer or None, not '%s'", TypeOf(gen).Name)
				}
			}
			var err error
			if n, err = in.Index(gen); err != nil {
				return nil, err
			}
			if n < 0 {
				return nil, in.Raise(ValueErrorType, "generation parameter cannot be negative")
			}
			if n >= 3 {
				return nil, in.Raise(ValueErrorType, "generation parameter must be less than the number of available generations (3)")
			}
		}
		return in.GetObjects(int(n)), nil
	})
	for _, f := range []struct {
		name string
		fn   func(in *Interp) Value
	}{
		{"disable", func(in *Interp) Value { in.gcDisabled = true; return None }},
		{"enable", func(in *Interp) Value { in.gcDisabled = false; return None }},
		{"isenabled", func(in *Interp) Value { return !in.gcDisabled }},
	} {
		in.fn(m, f.name, "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.UnpackArgs("gc."+f.name, args, kw); err != nil {
				return nil, err
			}
			return f.fn(in), nil
		})
	}
	in.gcMore(m)
	return m, nil
}
