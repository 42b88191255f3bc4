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

// LeaveClosureCycle makes the cycle a call of such a function leaves:
// the cells (the list's, the helper's), the list, the closure tuple and
// the helper; then, after a check of the evaluation loop, read (what the
// function reads: a scheduled collection has run before it), then
// pairs (key, value) tuples, appended one by one with a check before
// each (a scheduled collection runs there, while the call still holds
// the cycle), as the helper's calls do.
//
// With current set, a function object is made first and freed after
// read (the lambda through which PyTorch finds the current device when
// no device is given), so a collection it schedules runs before read.
func (in *Interp) LeaveClosureCycle(pairs int, current bool, read func() error) error {
	listCell := Track(in, &Cell{})
	helperCell := Track(in, &Cell{})
	list := in.NewList(nil)
	listCell.V = list
	closure := in.NewTuple([]Value{newRef(listCell), newRef(helperCell)})
	helper := Track(in, &leftHelper{closure: closure})
	helperCell.V = helper
	in.Decref(listCell)
	defer in.Decref(helperCell) // the call's own reference, until it returns
	if err := in.checkInterrupt(); err != nil {
		return err
	}
	if current {
		lambda := Track(in, &leftHelper{})
		err := in.checkInterrupt()
		if err == nil {
			err = read()
		}
		in.Decref(lambda)
		if err != nil {
			return err
		}
	} else if err := read(); err != nil {
		return err
	}
	for i := range pairs {
		if err := in.checkInterrupt(); err != nil {
			return err
		}
		pair := in.NewTuple([]Value{int64(i), int64(0)})
		list.items = append(list.items, pair)
	}
	return nil
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
// sees (NewHeld).
type heldObject struct{ Header }

func (o *heldObject) Type() *Class         { return ObjectType }
func (o *heldObject) Traverse(func(Value)) {}
func (o *heldObject) Clear(*Interp)        {}

// NewHeld makes n container objects and the list that holds them (the
// list made last, from CPython's free list where it has one), as a
// library's state that lives as long as the caller keeps the list.
func (in *Interp) NewHeld(n int) Value {
	items := make([]Value, n)
	for i := range items {
		items[i] = Track(in, &heldObject{})
	}
	return in.NewList(items)
}
