package eval

// What a Python function of a library leaves for the collector when it
// defines a helper closure that names itself (a recursive helper) and
// returns: the helper's function, its two cells and its closure tuple
// form a cycle that also holds the list the helper filled, garbage
// until a collection finds it. torch.cuda.memory_stats() is such a
// function (memory_allocated() and the other figures call it): every
// call leaves one, its list of one (key, value) pair per statistic,
// which is what moves CPython's counts between a script's statements
// (testdata/experiments/gc/gc_costs.py: 126 per call once CUDA started,
// the pairs, cells, list and closure taken from CPython's free lists
// where they have room, as here).

// leftHelper is the helper function of such a cycle.
type leftHelper struct {
	Header
	closure Value
}

func (f *leftHelper) Type() *Class { return FunctionType }

func (f *leftHelper) Traverse(visit func(Value)) {
	if f.closure != nil {
		visit(f.closure)
	}
}

func (f *leftHelper) Clear(in *Interp) {
	if c := f.closure; c != nil {
		f.closure = nil
		in.Decref(c)
	}
}

// LeaveClosureCycle makes what a call of torch.cuda.memory_stats()
// allocates, in CPython's order, and leaves the cycle: the cells (the
// list's, the helper's), a check (the call's start), the list, the
// closure tuple and the helper; then, with current set (no device
// given), the lambda through which PyTorch finds the current device and
// the os.getenv of an unset variable on its way there (envMiss), freed
// before read; read (torch._C._cuda_memoryStats, a collection scheduled
// before it has run), whose nested dicts (nested: one of stat arrays,
// each of pools) live until the call returns; then the walk of those
// dicts, which holds an items iterator (with the tuple it reuses for
// each item) for each dict it is in and appends pairs (key, value)
// tuples, a check before each call and loop round, as the helper's
// calls do; with returned unset, the OrderedDict the call makes of them
// (memory_allocated() and the other figures read it and drop it).
func (in *Interp) LeaveClosureCycle(pairs int, current, returned bool, read func() error) error {
	listCell := Track(in, &Cell{})
	helperCell := Track(in, &Cell{})
	defer in.Decref(helperCell) // the call's own reference, until it returns
	if err := in.checkInterrupt(); err != nil {
		in.Decref(listCell)
		return err
	}
	list := in.NewList(nil)
	listCell.V = list
	closure := in.NewTuple([]Value{newRef(listCell), newRef(helperCell)})
	helper := Track(in, &leftHelper{closure: closure})
	helperCell.V = helper
	in.Decref(listCell)
	if err := in.checkInterrupt(); err != nil {
		return err
	}
	if current {
		lambda := Track(in, &leftHelper{})
		err := in.checkInterrupt()
		if err == nil {
			err = in.envMiss()
		}
		in.Decref(lambda)
		if err != nil {
			return err
		}
	}
	if pairs == 0 { // CUDA not started: an empty dict, walked
		if err := read(); err != nil {
			return err
		}
		if err := in.walkStats(list, nil, 0); err != nil {
			return err
		}
		return in.orderedDictOf(returned)
	}
	if err := read(); err != nil {
		return err
	}
	// the nested dicts: the top one, a stat array's and its pools', the
	// two stats of oversize allocations and segments
	dicts := make([]*Dict, 0, 1+statArrays*(1+statPools)+statOversize)
	for range cap(dicts) {
		dicts = append(dicts, in.NewDict())
	}
	defer func() {
		for _, d := range dicts {
			in.Decref(d)
		}
	}()
	if err := in.checkInterrupt(); err != nil {
		return err
	}
	if err := in.walkStats(list, dicts, pairs); err != nil {
		return err
	}
	return in.orderedDictOf(returned)
}

// orderedDictOf is memory_stats()'s collections.OrderedDict(result): the
// type call's argument tuple, made and freed as it returns, and the
// OrderedDict, which memory_allocated() and the other figures read and
// drop (unless returned: memory_stats() itself gives it back).
func (in *Interp) orderedDictOf(returned bool) error {
	args := in.NewTuple([]Value{None})
	if returned {
		in.Decref(args)
		return nil
	}
	od := Track(in, &heldObject{})
	in.Decref(args)
	err := in.checkInterrupt()
	in.Decref(od)
	return err
}

// The shape of torch._C._cuda_memoryStats()'s nested dict: six numbers,
// nine stat arrays (all, small_pool, large_pool: four numbers each),
// then the two oversize stats (four numbers each).
const (
	statScalars  = 6
	statArrays   = 9
	statPools    = 3
	statLeaves   = 4
	statOversize = 2
)

// walkStats walks the nested dict as memory_stats()'s helper does, one
// call per item: an items iterator per dict (the view made and dropped
// first), the pairs appended to list, checks at each call and round.
// With no dicts (CUDA not started) it walks one empty dict.
func (in *Interp) walkStats(list *List, dicts []*Dict, pairs int) error {
	n := 0
	// enter is one dict's walk: its iterator, then visit, then the
	// iterator freed
	enter := func(visit func() error) error {
		if err := in.checkInterrupt(); err != nil { // the helper's call
			return err
		}
		view := Track(in, &heldObject{})
		it := Track(in, &heldObject{})
		result := in.NewTuple([]Value{None, None})
		in.Decref(view)
		err := visit()
		in.Decref(result)
		in.Decref(it)
		return err
	}
	leaf := func() error {
		if err := in.checkInterrupt(); err != nil { // the helper's call
			return err
		}
		list.items = append(list.items, in.NewTuple([]Value{int64(n), int64(0)}))
		n++
		return in.checkInterrupt() // the loop's next round
	}
	walk := func(leaves int) error {
		for range leaves {
			if err := leaf(); err != nil {
				return err
			}
		}
		return nil
	}
	if dicts == nil || pairs != statScalars+statArrays*statPools*statLeaves+statOversize*statLeaves {
		return enter(func() error { return walk(pairs) })
	}
	return enter(func() error {
		if err := walk(statScalars); err != nil {
			return err
		}
		for range statArrays {
			err := enter(func() error {
				for range statPools {
					if err := enter(func() error { return walk(statLeaves) }); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		for range statOversize {
			if err := enter(func() error { return walk(statLeaves) }); err != nil {
				return err
			}
		}
		return nil
	})
}

// envMiss is what os.getenv of a variable that is not set allocates in
// CPython 3.12 (torch.cuda.is_available() reads one on the way to the
// current device): the KeyError of the dict lookup (its args, a
// 1-tuple of the key, made first), the traceback and frame object of
// _Environ.__getitem__ as it unwinds, the KeyError it raises in its
// place (args and instance, a check after that call), its traceback,
// and in Mapping.get the traceback and frame object of get, which
// catches it; all freed by the time get returns, the tuples back to
// CPython's free list (after a full collection emptied it, the first
// miss counts two more). What is made while the exception unwinds
// schedules no collection, as CPython's allocation does not while an
// error is set.
func (in *Interp) envMiss() error {
	var made []Value
	alloc := func(unwinding bool) {
		in.gc.unwinding = unwinding
		made = append(made, Track(in, &heldObject{}))
		in.gc.unwinding = false
	}
	args := func() { made = append(made, in.NewTuple([]Value{None})) }
	args()
	alloc(false) // KeyError of the lookup
	alloc(true)  // its traceback
	alloc(true)  // __getitem__'s frame object
	args()
	alloc(false) // KeyError(key)
	err := in.checkInterrupt()
	alloc(true) // its traceback
	alloc(true) // get's traceback
	alloc(true) // get's frame object
	for _, o := range made {
		in.Decref(o)
	}
	return err
}

// GCCount is gc.get_count(): the collector's three counts.
func (in *Interp) GCCount() [3]int { return in.gc.count }

// CollectorOff runs f with the collector disabled (as gc.disable() and
// gc.enable() around it, leaving it as it was), so that what f
// allocates counts but schedules no collection.
func (in *Interp) CollectorOff(f func() error) error {
	was := in.gcDisabled
	in.gcDisabled = true
	defer func() { in.gcDisabled = was }()
	return f()
}

// heldObject is an object a library makes and keeps that a script never
// sees (NewHeld), or, holding items, the object of a cycle it leaves
// (LeaveCycle).
type heldObject struct {
	Header
	items []Value
}

func (o *heldObject) Type() *Class { return ObjectType }

func (o *heldObject) Traverse(visit func(Value)) {
	for _, v := range o.items {
		visit(v)
	}
}

func (o *heldObject) Clear(in *Interp) {
	items := o.items
	o.items = nil
	in.decrefAll(items)
}

// Made is what a library's Python makes beside what a script sees:
// container objects of types no free list serves, and dicts and tuples
// (by how many items), which come from CPython's free lists where they
// have them and go back there when freed.
type Made struct {
	Objects, Dicts int
	Tuples         map[int]int
}

// build makes m: its objects, then its dicts, then its tuples, shortest
// first.
func (in *Interp) build(m Made) []Value {
	var out []Value
	for range m.Objects {
		out = append(out, Track(in, &heldObject{}))
	}
	for range m.Dicts {
		out = append(out, in.NewDict())
	}
	for n := 1; n < tupleFreeSizes; n++ {
		for range m.Tuples[n] {
			out = append(out, in.noneTuple(n))
		}
	}
	return out
}

// NewHeld makes m and the list that holds them (the list made last,
// from CPython's free list where it has one), as a library's state that
// lives as long as the caller keeps the list.
func (in *Interp) NewHeld(m Made) Value {
	return in.NewList(in.build(m))
}

// LeaveCycle makes m, one of its objects referring to itself and to
// the rest, and drops them: garbage until a collection frees them, the
// dicts and tuples back to their free lists. m has at least one object.
func (in *Interp) LeaveCycle(m Made) {
	m.Objects--
	o := Track(in, &heldObject{})
	o.items = append(in.build(m), newRef(o))
	in.Decref(o)
}

// ListsFreed counts n lists a library made and freed: back on
// CPython's free list of lists, as far as it has room.
func (in *Interp) ListsFreed(n int) {
	in.gc.freeLists = min(listFreeMax, in.gc.freeLists+n)
}

// ExecStatement runs run, one top-level statement, as the builtin exec()
// runs a compiled statement under scripts/record_gc.py: CPython 3.12's
// PyEval_EvalCode makes a function object for the code (a container,
// which schedules a collection when it takes generation 0 past its
// threshold), the code's first instruction (RESUME) runs a scheduled
// collection before the statement's own, and the function goes as exec
// returns, then the check after exec's call runs a collection the
// statement's last allocations scheduled, before the recorder reads
// gc.get_count(). A collection the recorder's reads left due (they run
// with the collector off) so runs as the next statement starts.
func (in *Interp) ExecStatement(run func() error) error {
	fn := Track(in, &heldObject{})
	err := in.checkInterrupt()
	if err == nil {
		err = run()
	}
	in.Decref(fn)
	if err == nil {
		// exec() is a builtin: the check after its call runs a collection
		// the statement's last allocations scheduled, before the recorder
		// reads the counts
		err = in.checkInterrupt()
	}
	return err
}

// RecorderRead does what scripts/record_gc.py does after each statement
// around reads (its reads of the devices, which it makes with the
// collector disabled): c = gc.get_count() before and after them, each a
// 3-tuple from CPython's free list where it has one, freed at del c;
// the first, with the collector still on, is followed by the evaluation
// loop's check (its next call, gc.isenabled()).
func (in *Interp) RecorderRead(reads func() error) error {
	count := func() error {
		t := in.NewTuple([]Value{int64(0), int64(0), int64(0)})
		err := in.checkInterrupt()
		in.Decref(t)
		return err
	}
	if err := count(); err != nil {
		return err
	}
	if err := reads(); err != nil {
		return err
	}
	return in.CollectorOff(count)
}

// CountAsOwn counts o as CPython counts an object of a type no free list
// serves (an OrderedDict, a set): one allocation, whatever CPython's
// free lists hold, where the evaluator made it as a dict or list.
func (in *Interp) CountAsOwn(o Object) {
	if in.gc.quiet > 0 {
		return
	}
	in.uncount(o)
	o.header().cost = costPlain
	in.gcCount()
}

// MaterializeDict counts o's __dict__ as the dict CPython 3.12 makes
// when an instance's attributes, kept inline until then, are asked for
// as a dict (obj.__dict__, vars(obj)): from the dict free list where it
// has one, once.
func (in *Interp) MaterializeDict(o *Instance) {
	if o.Dict == nil || o.dictCounted || o.dictOwner != nil {
		return
	}
	o.dictCounted = true
	if in.gc.quiet > 0 || o.Dict.header().cost != costNone {
		return
	}
	in.gcAlloc(o.Dict)
}

// NewInternal makes one container object of a library's own that a
// script never sees (a typing alias, a generator, a zip): one allocation
// in CPython's count, freed when the caller drops it.
func (in *Interp) NewInternal() Value { return Track(in, &heldObject{}) }

// LeaveGarbage makes one container object that refers to itself and
// drops it: it counts until a collection frees it.
func (in *Interp) LeaveGarbage() {
	c := Track(in, &Cell{})
	c.V = newRef(c)
	in.Decref(c)
}

// Check is the evaluation loop's check at a Python function's start or
// a loop's next round: it runs a collection an allocation scheduled.
func (in *Interp) Check() error { return in.checkInterrupt() }
