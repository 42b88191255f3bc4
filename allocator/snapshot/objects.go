package snapshot

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/big"
	"slices"
)

// A pickle of objects, read for a caller that knows some classes by name
// (torch.load's checkpoints): the same reader as a snapshot's, where a
// GLOBAL the caller allows, a REDUCE of it, a BUILD and a persistent
// reference (BINPERSID) are kept as descriptions. Nothing is imported or
// called; a class the caller does not allow is refused by name, as in a
// snapshot.

// Global is a class or function a pickle names (GLOBAL, STACK_GLOBAL).
type Global struct{ Module, Name string }

func (g Global) String() string { return g.Module + "." + g.Name }

// Call is a call the pickle asks for (REDUCE), not made: Fn applied to
// Args, and the state a BUILD gave the result (nil when none).
type Call struct {
	Fn    Global
	Args  Tuple
	State any
}

// PersistentID is a reference the pickle leaves to the file around it
// (BINPERSID): a checkpoint's storage, named by ID.
type PersistentID struct{ ID any }

// Dict is a dict, its items in order; Ordered for a
// collections.OrderedDict, with the State a BUILD gave it (a state
// dict's _metadata).
type Dict struct {
	Items   []Pair
	Ordered bool
	State   any
}

// List is a list.
type List struct{ Items []any }

// maxNesting bounds how deep the values of a pickle of objects nest
// (ReadObjects builds them recursively).
const maxNesting = 1000

// objectRules are what ReadObjects allows beyond plain data.
type objectRules struct {
	allow   func(Global) bool
	ordered map[*dict]any // the OrderedDicts made, with their BUILD state (nil until one)
}

// persistent is BINPERSID's reference, as read.
type persistent struct{ id any }

// call is an allowed REDUCE, as read.
type call struct {
	fn    Global
	args  tuple
	state any
}

// ReadObjects reads a pickle (size bytes of r; -1 when unknown) within
// limits: plain data, and the classes and functions allow accepts, their
// calls (REDUCE: a Call, or for collections.OrderedDict() an ordered
// Dict), BUILD's state and persistent references. It returns the value
// left at STOP as nil, bool, int64, *big.Int, float64, string, []byte,
// Tuple, *List, *Dict, Global, *Call or *PersistentID; a value the
// pickle shares is one value (the same pointer) wherever it is used.
// Bytes after the STOP are an error.
func ReadObjects(r io.Reader, size int64, limits Limits, allow func(Global) bool) (any, error) {
	in, err := newInput(r, size, limits.MaxBytes)
	if err != nil {
		return nil, limitError(err, limits)
	}
	u := &unpickler{in: in, limits: limits, tables: newEventTables(), top: &dict{},
		objects: &objectRules{allow: allow, ordered: map[*dict]any{}}}
	v, err := u.run()
	if err != nil {
		return nil, err
	}
	if _, err := in.byte(); err == nil {
		return nil, &pickleError{in.pos() - 1, "bytes after the pickle's STOP"}
	}
	return u.objects.export(v, map[any]any{}, 0)
}

// global reads GLOBAL's or STACK_GLOBAL's name and pushes it, when the
// rules allow it.
func (u *unpickler) global(op byte) error {
	var g Global
	if op == 'c' {
		var err error
		if g.Module, err = u.line(); err != nil {
			return err
		}
		if g.Name, err = u.line(); err != nil {
			return err
		}
	} else {
		name, err := u.pop()
		if err != nil {
			return err
		}
		module, err := u.pop()
		if err != nil {
			return err
		}
		var ok1, ok2 bool
		g.Module, ok1 = module.v.(string)
		g.Name, ok2 = name.v.(string)
		if !ok1 || !ok2 {
			return u.fail("STACK_GLOBAL of a %s and a %s, not two strings", typeName(module), typeName(name))
		}
	}
	if !u.objects.allow(g) {
		return u.fail("refused: the pickle names %s.%s, which is not among the classes read", excerpt(g.Module), excerpt(g.Name))
	}
	return u.pushObj(g)
}

// objectOp runs REDUCE, BUILD or BINPERSID.
func (u *unpickler) objectOp(op byte) error {
	switch op {
	case 'R':
		return u.reduce()
	case 'b':
		return u.build()
	}
	return u.persistentID()
}

// reduce is REDUCE: an allowed callable and its arguments, kept as a
// call (collections.OrderedDict() is the ordered dict itself).
func (u *unpickler) reduce() error {
	args, err := u.pop()
	if err != nil {
		return err
	}
	fn, err := u.pop()
	if err != nil {
		return err
	}
	g, ok := fn.v.(Global)
	if !ok {
		return u.fail("REDUCE of a %s, not a class or function", typeName(fn))
	}
	t, ok := args.v.(tuple)
	if !ok {
		return u.fail("REDUCE of %s with a %s, not a tuple of arguments", g, typeName(args))
	}
	if err := u.count(1); err != nil {
		return err
	}
	if g == (Global{"collections", "OrderedDict"}) && len(t) == 0 {
		d := &dict{}
		u.objects.ordered[d] = nil
		return u.pushObj(d)
	}
	return u.pushObj(&call{fn: g, args: t})
}

// build is BUILD: the state popped is given to the call or ordered dict
// under it.
func (u *unpickler) build() error {
	state, err := u.pop()
	if err != nil {
		return err
	}
	if len(u.stack) == 0 {
		return u.fail("BUILD without an object")
	}
	st, err := u.plain(state)
	if err != nil {
		return err
	}
	switch o := u.stack[len(u.stack)-1].v.(type) {
	case *call:
		o.state = st
		return nil
	case *dict:
		if _, ok := u.objects.ordered[o]; ok {
			u.objects.ordered[o] = st
			return nil
		}
	}
	return u.fail("BUILD on a %s", typeName(u.stack[len(u.stack)-1]))
}

// persistentID is BINPERSID: the reference popped, kept for the caller.
func (u *unpickler) persistentID() error {
	id, err := u.pop()
	if err != nil {
		return err
	}
	v, err := u.plain(id)
	if err != nil {
		return err
	}
	if err := u.count(1); err != nil {
		return err
	}
	return u.pushObj(&persistent{id: v})
}

// errTooDeep is a pickle of objects nested past maxNesting.
var errTooDeep = fmt.Errorf("the pickle's values nest more than %d deep", maxNesting)

// export is v as ReadObjects returns it; done maps each shared value
// already made to what it became.
func (r *objectRules) export(v any, done map[any]any, depth int) (any, error) {
	if depth > maxNesting {
		return nil, errTooDeep
	}
	switch x := v.(type) {
	case nil, bool, int64, float64, string, Global:
		return v, nil
	case pyBytes:
		return []byte(x), nil
	case *bigInt:
		return x.value(), nil
	case tuple:
		out := make(Tuple, len(x))
		for i, e := range x {
			var err error
			if out[i], err = r.export(e, done, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	if o, ok := done[v]; ok {
		return o, nil
	}
	switch x := v.(type) {
	case *list:
		out := &List{Items: make([]any, len(x.items))}
		done[v] = out
		for i, e := range x.items {
			var err error
			if out.Items[i], err = r.export(e, done, depth+1); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *dict:
		state, ordered := r.ordered[x]
		out := &Dict{Items: make([]Pair, len(x.items)), Ordered: ordered}
		done[v] = out
		for i, it := range x.items {
			k, err := r.export(it.key, done, depth+1)
			if err != nil {
				return nil, err
			}
			val, err := r.export(it.value, done, depth+1)
			if err != nil {
				return nil, err
			}
			out.Items[i] = Pair{k, val}
		}
		var err error
		out.State, err = r.export(state, done, depth+1)
		return out, err
	case *call:
		out := &Call{Fn: x.fn}
		done[v] = out
		args, err := r.export(x.args, done, depth+1)
		if err != nil {
			return nil, err
		}
		out.Args = args.(Tuple)
		out.State, err = r.export(x.state, done, depth+1)
		return out, err
	case *persistent:
		id, err := r.export(x.id, done, depth+1)
		out := &PersistentID{ID: id}
		done[v] = out
		return out, err
	}
	return nil, errors.New("a value of no kind a pickle of objects holds") // not reached: the reader makes none
}

// Str is a string written as CPython writes a string object of its own
// (memoized, and fetched where the same Str is written again), not
// fetched where an equal string was written before: torch.save's
// storage keys and CUDA locations are new objects each time.
type Str struct{ S string }

// WriteObjects writes v as a protocol 2 pickle, opcode for opcode as
// CPython's pickler writes the same objects: every str, tuple, list,
// dict, class and call memoized, a value met again fetched (a string by
// value, a *Str, list, dict or call by identity), containers in batches
// of 1000. v holds what ReadObjects returns, and *Str.
func WriteObjects(w io.Writer, v any) error {
	e := newEncoder(w)
	e.proto2 = true
	e.b(0x80, 2) // PROTO 2
	e.value(v, 0)
	e.b('.')
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

// object writes one of ReadObjects' kinds; false for another kind.
func (e *encoder) object(v any, depth int) bool {
	switch x := v.(type) {
	case Tuple:
		e.tuple(tuple(x), depth)
	case *Str:
		if i, ok := e.memo[x]; ok {
			e.get(i)
			return true
		}
		e.text(x.S)
		e.memo[x] = e.memoize()
	case Global:
		if i, ok := e.memo[x]; ok {
			e.get(i)
			return true
		}
		e.b('c')
		e.b([]byte(x.Module + "\n" + x.Name + "\n")...)
		e.memo[x] = e.memoize()
	case *PersistentID:
		e.value(x.ID, depth+1)
		e.b('Q') // BINPERSID
	case *List:
		e.shared(x, depth, func() {
			e.emptyList()
			e.memo[x] = e.memoize()
			e.batches(len(x.Items), func(i int) { e.value(x.Items[i], depth+1) })
		})
	case *Dict:
		e.shared(x, depth, func() {
			if x.Ordered {
				e.value(Global{"collections", "OrderedDict"}, depth+1)
				e.b(')', 'R') // EMPTY_TUPLE, REDUCE
			} else {
				e.emptyDict()
			}
			e.memo[x] = e.memoize()
			items := make([]item, len(x.Items))
			for i, p := range x.Items {
				items[i] = item{p.Key, p.Value}
			}
			e.setItems(items, depth)
			e.build(x.State, depth)
		})
	case *Call:
		e.shared(x, depth, func() {
			e.value(x.Fn, depth+1)
			e.tuple(tuple(x.Args), depth)
			e.b('R') // REDUCE
			e.memo[x] = e.memoize()
			e.build(x.State, depth)
		})
	default:
		return false
	}
	return true
}

// shared writes a container or call once (write); met again, it is
// fetched from the memo.
func (e *encoder) shared(v any, depth int, write func()) {
	if i, ok := e.memo[v]; ok {
		e.get(i)
		return
	}
	if e.writing[v] {
		if e.err == nil {
			e.err = fmt.Errorf("pickle: a list or dict contains itself")
		}
		return
	}
	e.writing[v] = true
	defer delete(e.writing, v)
	write()
}

// build writes BUILD of state, when there is one.
func (e *encoder) build(state any, depth int) {
	if state != nil {
		e.value(state, depth+1)
		e.b('b')
	}
}

// bigLE is n in the fewest little-endian two's complement bytes, as
// CPython's pickler writes a LONG1 (or LONG4).
func bigLE(n *big.Int) []byte {
	size := n.BitLen()/8 + 1
	m := new(big.Int).Set(n)
	if n.Sign() < 0 {
		m.Add(m, new(big.Int).Lsh(big.NewInt(1), uint(8*size)))
	}
	be := m.FillBytes(make([]byte, size))
	slices.Reverse(be)
	if n.Sign() < 0 && size > 1 && be[size-1] == 0xff && be[size-2]&0x80 != 0 {
		be = be[:size-1]
	}
	return be
}

// shortestLE is v in the fewest little-endian two's complement bytes,
// as CPython's pickler writes a LONG1.
func shortestLE(v int64) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(v))
	for len(b) > 1 {
		last, prev := b[len(b)-1], b[len(b)-2]
		if last == 0 && prev&0x80 == 0 || last == 0xff && prev&0x80 != 0 {
			b = b[:len(b)-1]
			continue
		}
		break
	}
	return b
}
