// Package eval runs Python: a tree-walking evaluator over python/syntax's
// tree with CPython's object model where memory is concerned. Every
// object that can hold another has a reference count kept as CPython
// keeps it, so an object (and a tensor's storage under it) dies exactly
// when CPython would free it: a name rebound or deleted, a container
// cleared, a function's frame finished, a temporary done with. Reference
// cycles wait for CPython's collector: gc.collect(), or the automatic
// collections gcgen.go runs as CPython 3.12 starts them.
//
// Values are Go values: None, bool, int (int64, or *big.Int past it),
// float64, string (str) are plain Go values without a count; everything
// else is an Object, whose Header holds its count. The torch module and
// its types are declared by another package through this one's API
// (Class, Builtin, Module).
//
// Where things live: the evaluator proper in expr.go, exec.go, call.go,
// frame.go, ops.go, attr.go and items.go; the built-in functions in
// builtins.go (builtinFuncs, one named function each) and the types'
// constructors in typenew.go; a type's methods in a file of its own
// (strmethods.go, listmethods.go, dictmethods.go, sets.go, deque.go);
// each standard module in a file named for it (sys.go, math.go,
// itertools.go, ...), listed in modules.go; the parts of modules written
// in Python in lib/NAME.py, embedded. A Go function reads its arguments
// with UnpackArgs (unpack.go), which declares its parameters once and
// fails with CPython's own words; testdata/arg_errors.py holds CPython's.
package eval

import (
	"math/big"
)

// Value is a Python value: NoneType, bool, int64, *big.Int, float64,
// string, or an Object.
type Value any

// NoneType is the type of None.
type NoneType struct{}

// None is Python's None.
var None = NoneType{}

// EllipsisType is the type of the Ellipsis literal (...).
type EllipsisType struct{}

// NotImplementedType is the type of NotImplemented, which a binary
// dunder method returns to let the other operand try.
type NotImplementedType struct{}

// NotImplemented is Python's NotImplemented.
var NotImplemented = NotImplementedType{}

// Header is the part of every Object that CPython's PyObject_HEAD is:
// the reference count. Types defined in other packages embed it.
type Header struct {
	refs int32
	// seq orders objects by when they were made (the collector frees
	// a cycle's objects in that order).
	seq uint64
	// dead marks an object already deallocated (a guard: no second free).
	dead bool
	// gen is the collector's generation the object is in (gcgen.go),
	// cost what its allocation counted there.
	gen, cost uint8
}

func (h *Header) header() *Header { return h }

// Refs is the object's reference count.
func (h *Header) Refs() int { return int(h.refs) }

// Object is a Python value with a reference count.
type Object interface {
	header() *Header
	// Type is the object's Python type.
	Type() *Class
	// Traverse calls visit for every value the object holds a
	// reference to (the cycle collector follows them).
	Traverse(visit func(Value))
	// Clear drops every reference the object holds: at deallocation, or
	// to break a reference cycle.
	Clear(in *Interp)
}

// Finalizer is an Object that does something when it dies besides
// dropping its references (a tensor lets go of its storage).
type Finalizer interface {
	Finalize(in *Interp)
}

// Incref adds a reference to v (nothing for a value without a count).
func Incref(v Value) {
	if o, ok := v.(Object); ok {
		o.header().refs++
	}
}

// Decref drops a reference to v; the last one frees it: its references
// are dropped in turn, and a Finalizer's Finalize runs.
func (in *Interp) Decref(v Value) {
	o, ok := v.(Object)
	if !ok {
		return
	}
	h := o.header()
	h.refs--
	if h.refs > 0 || h.dead {
		return
	}
	if h.refs < 0 {
		panic("eval: reference count below zero")
	}
	in.dealloc(o)
}

// dealloc frees an object whose count reached zero. A user class's
// __del__ runs first, as in CPython; it may resurrect the object.
func (in *Interp) dealloc(o Object) {
	h := o.header()
	if inst, ok := o.(*Instance); ok && !inst.finalized {
		if del := inst.cls.lookup("__del__"); del != nil {
			inst.finalized = true
			h.refs++
			if r, err := in.call(del, []Value{inst}, nil); err == nil {
				in.Decref(r)
			} else {
				in.unraisable(err, "Exception ignored in: __del__")
			}
			h.refs--
			if h.refs > 0 {
				return
			}
		}
	}
	h.dead = true
	in.gcFree(h)
	delete(in.live, o)
	delete(in.ids, o)
	if refs := in.weakrefs[o]; len(refs) > 0 {
		in.clearWeakrefs(o, refs)
	}
	if f, ok := o.(Finalizer); ok {
		f.Finalize(in)
	}
	o.Clear(in)
}

// track registers a new object with the cycle collector and gives the
// caller its first reference.
func (in *Interp) track(o Object) {
	h := o.header()
	h.refs = 1
	in.seq++
	h.seq = in.seq
	in.live[o] = struct{}{}
	in.gcAlloc(o)
}

// Track registers a new object made outside this package (a tensor)
// and returns it holding its first reference.
func Track[T Object](in *Interp, o T) T {
	in.track(o)
	return o
}

// newRef returns v with a reference added: for storing a borrowed value.
func newRef(v Value) Value {
	Incref(v)
	return v
}

// decrefAll drops a reference to each of vs, last first (as a tuple or
// a frame clears).
func (in *Interp) decrefAll(vs []Value) {
	for i := len(vs) - 1; i >= 0; i-- {
		in.Decref(vs[i])
	}
}

// bigInt returns v as a *big.Int when it is an int (bool included).
func bigInt(v Value) (*big.Int, bool) {
	switch v := v.(type) {
	case int64:
		return big.NewInt(v), true
	case *big.Int:
		return v, true
	case bool:
		if v {
			return big.NewInt(1), true
		}
		return big.NewInt(0), true
	}
	return nil, false
}

// normInt returns b as an int64 when it fits, else b.
func normInt(b *big.Int) Value {
	if b.IsInt64() {
		return b.Int64()
	}
	return b
}

// bigOf is i as a *big.Int.
func bigOf(i int64) *big.Int { return big.NewInt(i) }

// Immortal marks an object made outside this package that lives for
// the whole session and is never counted (a torch.dtype).
func Immortal(o Object) { o.header().refs = 1 << 30 }
