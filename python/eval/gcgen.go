package eval

import (
	"fmt"
	"sort"
	"strings"
)

// CPython 3.12's generational collector, as far as it decides when
// objects in reference cycles die: three generations, the count of
// container objects allocated less those freed since generation 0 was
// last collected, thresholds (700, 10, 10), and a collection scheduled
// when an allocation takes generation 0's count past its threshold and
// run at the next check of the evaluation loop (a call, a loop's next
// round: where checkInterrupt runs). A collection of generation g
// resets the counts of g and younger, adds one to g+1's, and moves what
// survives into g+1; generation 2 is collected only when its count
// passes its threshold and the objects that reached it since its last
// collection are more than a quarter of those that survived that one.
//
// What counts is what CPython allocates as a container (a GC object):
// lists, dicts, tuples, sets, instances, functions, cells, bound
// methods, generators, most iterators, classes, tensors. Lists, dicts
// and tuples of up to 20 items come from free lists of CPython's
// own and go back there when freed, which changes neither count while
// the list has room (80 lists, 80 dicts, 2000 tuples of each size).
// What the evaluator makes and CPython does not (a frame for every
// call, a range iterator, an instance's attribute dict until __dict__
// is asked for) counts nothing.

// gcGens is the collector's state.
type gcGens struct {
	count     [3]int
	threshold [3]int
	// longTotal is how many objects survived the last collection of
	// generation 2; longPending how many reached it since.
	longTotal, longPending int
	scheduled              bool
	collecting             bool
	// unwinding is set while an allocation is made as an exception
	// unwinds: CPython schedules no collection then
	unwinding bool
	// free is how many lists, dicts and tuples (by size) CPython's free
	// lists hold.
	freeLists, freeDicts int
	freeTuples           [tupleFreeSizes]int
	stats                [3]gcStat
	callbacks            *List
	// quiet is set while a module CPython has made by then is made
	// (Unmetered): what it allocates counts nothing.
	quiet int
}

// gcStat is one generation's gc.get_stats() entry.
type gcStat struct{ collections, collected int }

// CPython 3.12's free list capacities.
const (
	listFreeMax    = 80
	dictFreeMax    = 80
	tupleFreeMax   = 2000
	tupleFreeSizes = 21 // tuples of 1..20 items (PyTuple_MAXSAVESIZE)
)

// What an object costs generation 0's count (Header.cost).
const (
	costNone  uint8 = iota // not a container in CPython, or not counted
	costPlain              // counted, freed with PyObject_GC_Del
	costList               // from and back to the list free list
	costDict               // from and back to the dict free list
	costTuple              // costTuple+n: a tuple of n items (n < 20)
	costClass       = 30   // a class: costClass+n for the n objects CPython makes with it (classUnits)
	// fromFree marks an allocation a free list served (uncount gives it back)
	fromFree uint8 = 0x80
)

// classUnits is what CPython counts for a class statement's type: the
// type object, the weak reference its bases keep in their lists of
// subclasses and, when only built-in types are its bases (which have
// neither), the getset descriptors of its __dict__ and __weakref__
// (type_new adds them only where no base has them). A class whose
// methods name super counts its __class__ cell besides (a Cell).
func classUnits(c *Class) int {
	for _, b := range c.Bases {
		if !b.Native {
			return 2
		}
	}
	return 4
}

// permanent is the generation gc.freeze() moves objects to.
const permanent = 3

// What CPython 3.12.1's counts are after a short script's first
// statement, import gc, and what its free lists hold then
// (sys._debugmallocstats()).
var (
	startCount                     = [3]int{691, 4, 0}
	startFreeLists, startFreeDicts = 9, 14
	startFreeTuples                = [tupleFreeSizes]int{1: 4, 2: 8, 3: 2, 4: 1, 5: 1, 6: 1, 9: 2, 11: 1, 13: 1, 14: 1, 17: 1, 18: 2}
)

// gcStart sets the collector as CPython's is when a script's first
// statement runs: what the evaluator made until now (builtins, modules)
// is in the oldest generation, as CPython's own start-up objects are
// by then, and the counts and free lists are python3.12's.
func (in *Interp) gcStart() {
	for o := range in.live {
		o.header().gen = 2
	}
	g := &in.gc
	g.count = startCount
	g.longTotal, g.longPending = 0, 0
	g.scheduled = false
	g.freeLists, g.freeDicts = startFreeLists, startFreeDicts
	copy(g.freeTuples[:], startFreeTuples[:])
}

// init sets CPython's thresholds (700, 10, 10) and free lists.
func (g *gcGens) init() {
	g.threshold = [3]int{700, 10, 10}
	g.freeLists, g.freeDicts = startFreeLists, startFreeDicts
	copy(g.freeTuples[:], startFreeTuples[:])
}

// freeListStats is what CPython 3.12's sys._debugmallocstats() prints
// of the free lists the model holds, dicts, lists and tuples of 1 to 20
// items, in its format and order, after a line that says the rest of
// its report (pymalloc's arenas, the other free lists) is not here.
func (g *gcGens) freeListStats() string {
	var b strings.Builder
	b.WriteString("# gpumemrepl: CPython's free lists of dicts, lists and tuples as its collector's model holds them (pymalloc's arenas and the other free lists are not modelled)\n")
	line := func(n int, what string, size int) {
		b.WriteString(mallocStatsLine(fmt.Sprintf("%d free %ss * %d bytes each", n, what, size), n*size))
	}
	line(g.freeDicts, "PyDictObject", 48)
	line(g.freeLists, "PyListObject", 40)
	for n := 1; n < tupleFreeSizes; n++ {
		line(g.freeTuples[n], fmt.Sprintf("%d-sized PyTupleObject", n), 24+8*n)
	}
	return b.String()
}

// mallocStatsLine is one line of sys._debugmallocstats(): what, right
// aligned to 48 columns, and the bytes with thousands separators, right
// aligned to 21 after an equals sign (CPython's printone).
func mallocStatsLine(what string, bytes int) string {
	digits := fmt.Sprint(bytes)
	var num strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			num.WriteByte(',')
		}
		num.WriteRune(c)
	}
	return fmt.Sprintf("%48s =%21s\n", what, num.String())
}

// gcCost is what CPython allocates for o, as Header.cost says it.
func gcCost(o Object) uint8 {
	switch o := o.(type) {
	case *Frame, *SliceObj, *codeObj, *ModuleObj:
		return costNone
	case *iterObj:
		if _, ok := o.src.(*Range); ok {
			return costNone
		}
	case *List:
		return costList
	case *Dict:
		return costDict
	case *Class:
		return costClass + uint8(classUnits(o))
	case *Tuple:
		n := len(o.items)
		switch {
		case o.cls != nil:
			return costPlain // a subclass's instance: no free list
		case n == 0:
			return costNone // the empty tuple is one object, never made
		case n < tupleFreeSizes:
			return costTuple + uint8(n)
		}
	}
	return costPlain
}

// gcAlloc counts a new object's allocation as CPython's would count it
// and schedules a collection when generation 0 passes its threshold.
func (in *Interp) gcAlloc(o Object) {
	h := o.header()
	g := &in.gc
	if g.quiet > 0 {
		h.cost = costNone
		return
	}
	h.cost = gcCost(o)
	switch c := h.cost; {
	case c == costNone:
		return
	case c == costList && g.freeLists > 0:
		g.freeLists--
		h.cost |= fromFree
		return
	case c == costDict && g.freeDicts > 0:
		g.freeDicts--
		h.cost |= fromFree
		return
	case c > costTuple && c < costClass && g.freeTuples[c-costTuple] > 0:
		g.freeTuples[c-costTuple]--
		h.cost |= fromFree
		return
	case c > costClass:
		g.count[0] += int(c-costClass) - 1
	}
	in.gcCount()
}

// gcCount counts one allocation in generation 0 and schedules a
// collection when that takes it past its threshold.
func (in *Interp) gcCount() {
	g := &in.gc
	g.count[0]++
	if g.count[0] > g.threshold[0] && g.threshold[0] != 0 && !in.gcDisabled && !g.collecting && !g.unwinding {
		g.scheduled = true
	}
}

// gcFree counts a freed object: back to its free list where that has
// room, else one less in generation 0's count.
func (in *Interp) gcFree(h *Header) {
	g := &in.gc
	switch c := h.cost &^ fromFree; {
	case c == costNone:
		return
	case c > costClass:
		g.count[0] = max(0, g.count[0]-int(c-costClass))
		return
	case c == costList && g.freeLists < listFreeMax:
		g.freeLists++
		return
	case c == costDict && g.freeDicts < dictFreeMax:
		g.freeDicts++
		return
	case c > costTuple && c < costClass && g.freeTuples[c-costTuple] < tupleFreeMax:
		g.freeTuples[c-costTuple]++
		return
	}
	if g.count[0] > 0 {
		g.count[0]--
	}
}

// counted makes o, a list or dict the evaluator took from a free list,
// an allocation CPython counts: one its type's call makes (dict(...),
// whose tp_alloc no free list serves), which still goes back to the free
// list when freed.
func (in *Interp) counted(o Object) {
	h := o.header()
	if h.cost&fromFree == 0 || in.gc.quiet > 0 {
		return
	}
	h.cost &^= fromFree
	switch h.cost {
	case costList:
		in.gc.freeLists++
	case costDict:
		in.gc.freeDicts++
	}
	in.gcCount()
}

// resized is _PyTuple_Resize of a tuple t's items were just set to: the
// object is reallocated in place, so no free list serves it or gets it
// back, but freed it goes to that of its new size.
func (in *Interp) resized(t *Tuple) {
	h := t.header()
	if h.cost&^fromFree == costNone {
		return // made unmetered, or the empty tuple
	}
	h.cost = gcCost(t) | h.cost&fromFree
}

// uncount takes back the count of an object CPython does not allocate
// on its own (an instance's attribute dict, kept inline in 3.12).
func (in *Interp) uncount(o Object) {
	h := o.header()
	g := &in.gc
	switch c := h.cost; {
	case c&fromFree == 0:
		if h.cost != costNone && g.count[0] > 0 {
			g.count[0]--
		}
	case c&^fromFree == costList:
		g.freeLists++
	case c&^fromFree == costDict:
		g.freeDicts++
	default:
		g.freeTuples[c&^fromFree-costTuple]++
	}
	h.cost = costNone
}

// runScheduledGC runs the collection an allocation scheduled, as
// CPython's evaluation loop does at its next check, through
// Hooks.AutoCollect where the front end set it.
func (in *Interp) runScheduledGC() error {
	g := &in.gc
	g.scheduled = false
	if g.collecting {
		return nil
	}
	for gen := 2; gen >= 0; gen-- {
		if g.count[gen] <= g.threshold[gen] {
			continue
		}
		if gen == 2 && g.longPending < g.longTotal/4 {
			continue
		}
		run := func() int { return in.collectWithCallbacks(gen) }
		if in.Hooks.AutoCollect != nil {
			return in.Hooks.AutoCollect(gen, run)
		}
		run()
		return nil
	}
	return nil
}

// collectWithCallbacks is one collection of generation gen with the
// callbacks in gc.callbacks told before and after.
func (in *Interp) collectWithCallbacks(gen int) int {
	g := &in.gc
	g.collecting = true
	defer func() { g.collecting = false }()
	in.gcCallbacks("start", gen, 0)
	n := in.collectGen(gen)
	in.gcCallbacks("stop", gen, n)
	return n
}

// gcCallbacks calls each of gc.callbacks with phase and an info dict.
func (in *Interp) gcCallbacks(phase string, gen, collected int) {
	cbs := in.gc.callbacks
	if cbs == nil || len(cbs.items) == 0 {
		return
	}
	info := in.NewDict()
	in.SetStr(info, "generation", int64(gen))
	in.SetStr(info, "collected", int64(collected))
	in.SetStr(info, "uncollectable", int64(0))
	for i := 0; i < len(cbs.items); i++ {
		cb := newRef(cbs.items[i])
		r, err := in.call(cb, []Value{phase, info}, nil)
		in.Decref(cb)
		if err != nil {
			in.unraisable(err, "Exception ignored in garbage collector")
			continue
		}
		in.Decref(r)
	}
	in.Decref(info)
}

// generation returns the objects of generations 0..gen.
func (in *Interp) generation(gen int) []Object {
	var objs []Object
	for o := range in.live {
		if int(o.header().gen) <= gen {
			objs = append(objs, o)
		}
	}
	return objs
}

// Unmetered wraps a module's maker so that what it allocates counts
// nothing in the collector's generations: a package whose import CPython
// ran whole before (torch's submodules, made by import torch), or whose
// state after import is set by SetGCState.
func (in *Interp) Unmetered(make func(in *Interp) (*ModuleObj, error)) func(in *Interp) (*ModuleObj, error) {
	return func(in *Interp) (*ModuleObj, error) {
		in.gc.quiet++
		defer func() { in.gc.quiet-- }()
		return make(in)
	}
}

// GCState is the collector's state as CPython has it at some moment
// (after import torch, recorded): its counts, the objects in generation
// 2 after its last collection, and its free lists.
type GCState struct {
	Count                [3]int
	LongTotal            int
	FreeLists, FreeDicts int
	FreeTuples           [tupleFreeSizes]int
}

// SetGCState puts the collector in state s: the objects made until now
// are in the oldest generation, as CPython's are by then.
func (in *Interp) SetGCState(s GCState) {
	for o := range in.live {
		if h := o.header(); h.gen != permanent {
			h.gen = 2
		}
	}
	g := &in.gc
	g.count, g.longTotal, g.longPending = s.Count, s.LongTotal, 0
	g.freeLists, g.freeDicts, g.freeTuples = s.FreeLists, s.FreeDicts, s.FreeTuples
	g.scheduled = false
}

// SettleImport leaves what an import ImportCollected stood for leaves
// once the call that ran it returned: left, garbage in a cycle that the
// next collection frees, and the collector's counts and free lists in
// state s, as a recording read them then (the objects' generations as
// they are); nothing with the collector disabled, where ImportCollected
// counted the import's objects.
func (in *Interp) SettleImport(s GCState, left Made) {
	if in.gcDisabled {
		return
	}
	in.LeaveCycle(left)
	g := &in.gc
	g.count = s.Count
	g.freeLists, g.freeDicts, g.freeTuples = s.FreeLists, s.FreeDicts, s.FreeTuples
}

// ImportCollected puts the collector in state s as an import too large
// to model leaves it (torch._dynamo's, which the first optimizer's
// add_param_group runs): its full collections free the garbage there
// was (one here, gc.callbacks told), the generations' collections it ran
// are added to gc.get_stats(), and the objects made until now are in the
// oldest generation, as those that survived its full collections are.
// With the collector disabled the import runs none: the objects it made
// and keeps add to generation 0's count.
func (in *Interp) ImportCollected(s GCState, ran [3]int, made int) {
	g := &in.gc
	if in.gcDisabled {
		g.count[0] += made
		return
	}
	if !g.collecting {
		in.collectWithCallbacks(2)
		ran[2]--
	}
	in.SetGCState(s)
	for i, n := range ran {
		g.stats[i].collections += n
	}
}

// gcMore adds to the gc module what reads and sets the generations.
func (in *Interp) gcMore(m *ModuleObj) {
	g := &in.gc
	g.callbacks = in.NewList(nil)
	m.Set(in, "callbacks", g.callbacks)
	in.Decref(g.callbacks)
	in.fn(m, "get_count", "get_count(): the counts of generations 0, 1 and 2", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("gc.get_count", args, kw); err != nil {
			return nil, err
		}
		return in.NewTuple([]Value{int64(g.count[0]), int64(g.count[1]), int64(g.count[2])}), nil
	})
	in.fn(m, "get_threshold", "get_threshold(): the thresholds of generations 0, 1 and 2", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("gc.get_threshold", args, kw); err != nil {
			return nil, err
		}
		return in.NewTuple([]Value{int64(g.threshold[0]), int64(g.threshold[1]), int64(g.threshold[2])}), nil
	})
	in.fn(m, "set_threshold", "set_threshold(threshold0, [threshold1, [threshold2]])", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.noKw("set_threshold", kw); err != nil {
			return nil, err
		}
		if len(args) < 1 || len(args) > 3 {
			return nil, in.typeError("set_threshold() takes from 1 to 3 positional arguments but %d were given", len(args))
		}
		var t [3]int
		for i, a := range args {
			n, err := in.gcInt(a)
			if err != nil {
				return nil, err
			}
			t[i] = n
		}
		copy(g.threshold[:len(args)], t[:len(args)])
		return None, nil
	})
	in.fn(m, "get_stats", "get_stats(): each generation's collections, collected and uncollectable", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("gc.get_stats", args, kw); err != nil {
			return nil, err
		}
		out := make([]Value, 3)
		for i, s := range g.stats {
			d := in.NewDict()
			in.SetStr(d, "collections", int64(s.collections))
			in.SetStr(d, "collected", int64(s.collected))
			in.SetStr(d, "uncollectable", int64(0))
			out[i] = d
		}
		return in.NewList(out), nil
	})
	in.fn(m, "is_tracked", "is_tracked(obj): whether the collector tracks obj", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var obj Value
		if err := in.UnpackArgs("gc.is_tracked", args, kw, "obj", &obj, "/"); err != nil {
			return nil, err
		}
		return in.isTracked(obj), nil
	})
	in.fn(m, "get_referrers", "get_referrers(*objs): the objects the collector tracks that refer to any of objs", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.noKw("get_referrers", kw); err != nil {
			return nil, err
		}
		var out []Value
		for _, o := range in.listed(-1) {
			found := false
			o.Traverse(func(v Value) {
				for _, a := range args {
					if !found && same(v, a) {
						found = true
					}
				}
			})
			if found {
				out = append(out, newRef(o))
			}
		}
		return in.NewList(out), nil
	})
	in.fn(m, "get_referents", "get_referents(*objs): the objects each of objs refers to", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.noKw("get_referents", kw); err != nil {
			return nil, err
		}
		var out []Value
		for _, a := range args {
			if o, ok := a.(Object); ok && in.isTracked(o) {
				o.Traverse(func(v Value) {
					if _, ok := v.(Object); ok {
						out = append(out, newRef(v))
					}
				})
			}
		}
		return in.NewList(out), nil
	})
	in.fn(m, "freeze", "freeze(): move every tracked object to the permanent generation, never collected", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("gc.freeze", args, kw); err != nil {
			return nil, err
		}
		for o := range in.live {
			o.header().gen = permanent
		}
		// every generation's count restarts (CPython 3.12.3:
		// gc_threshold_set.py's gc.freeze() ends at (0, 0, 0))
		g.count = [3]int{}
		return None, nil
	})
	in.fn(m, "unfreeze", "unfreeze(): move the permanent generation back to the oldest", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("gc.unfreeze", args, kw); err != nil {
			return nil, err
		}
		for o := range in.live {
			if h := o.header(); h.gen == permanent {
				h.gen = 2
			}
		}
		return None, nil
	})
	in.fn(m, "get_freeze_count", "get_freeze_count(): how many objects the permanent generation holds", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("gc.get_freeze_count", args, kw); err != nil {
			return nil, err
		}
		return int64(in.frozenCount()), nil
	})
}

// frozenCount is how many live objects gc.freeze() moved to the
// permanent generation (and CPython lists).
func (in *Interp) frozenCount() int {
	n := 0
	for o := range in.live {
		if o.header().gen == permanent && listedByGC(o) {
			n++
		}
	}
	return n
}

// gcInt is an int argument of set_threshold.
func (in *Interp) gcInt(v Value) (int, error) {
	if _, ok := v.(float64); ok {
		return 0, in.typeError("'float' object cannot be interpreted as an integer")
	}
	n, err := in.Index(v)
	return int(n), err
}

// listedByGC reports whether CPython's collector would list o: the
// evaluator's frames, code and range objects are not containers there.
func listedByGC(o Object) bool {
	switch o.(type) {
	case *Frame, *codeObj:
		return false
	}
	return true
}

// isTracked is gc.is_tracked(v): containers are, atomic values are
// not; a dict is tracked once it holds a value that may be, and a
// tuple is untracked when none of its items may be (as CPython untracks
// them: dicts from the start, tuples at their first collection, which
// the evaluator takes as having happened).
func (in *Interp) isTracked(v Value) bool {
	o, ok := v.(Object)
	if !ok || o.header().dead || !listedByGC(o) {
		return false
	}
	if _, live := in.live[o]; !live {
		return false
	}
	switch o := o.(type) {
	case *Dict:
		tracked := false
		o.Traverse(func(x Value) { tracked = tracked || mayBeTracked(x) })
		return tracked
	case *Tuple:
		if len(o.items) == 0 {
			return false
		}
		tracked := false
		for _, x := range o.items {
			tracked = tracked || mayBeTracked(x)
		}
		return tracked
	case *ModuleObj:
		return true
	}
	return o.header().cost != costNone
}

// mayBeTracked is CPython's _PyObject_GC_MAY_BE_TRACKED: a container
// that is tracked, or a tuple or dict that may become so.
func mayBeTracked(v Value) bool {
	o, ok := v.(Object)
	if !ok {
		return false
	}
	switch o.(type) {
	case *Tuple, *Dict:
		return true
	}
	return o.header().cost != costNone
}

// listed returns the objects gc.get_objects(gen) lists (every
// generation for gen -1), oldest first.
func (in *Interp) listed(gen int) []Object {
	var objs []Object
	for o := range in.live {
		h := o.header()
		if h.gen == permanent || !listedByGC(o) || (gen >= 0 && int(h.gen) != gen) || !in.isTracked(o) {
			continue
		}
		objs = append(objs, o)
	}
	sort.Slice(objs, func(i, j int) bool {
		hi, hj := objs[i].header(), objs[j].header()
		if hi.gen != hj.gen {
			return hi.gen < hj.gen
		}
		return hi.seq < hj.seq
	})
	return objs
}

// countUnwound counts what CPython 3.12 allocates as an exception
// unwinds through fr: a traceback object, and the first time fr's frame
// object (a frame lives outside the collector's objects until something
// asks for it), which counts until fr goes. Both are made while the
// error is set, so neither schedules a collection. It reports whether
// the traceback counted.
func (in *Interp) countUnwound(fr *Frame) bool {
	g := &in.gc
	if g.quiet > 0 {
		return false
	}
	g.count[0]++
	if fr.cost == costNone {
		fr.cost = costPlain
		g.count[0]++
	}
	return true
}

// uncountTraceback takes back the count of a traceback entry's object
// as it is freed.
func (in *Interp) uncountTraceback(e tbEntry) {
	if e.counted && in.gc.count[0] > 0 {
		in.gc.count[0]--
	}
}
