package eval

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"
)

// Dict is a Python dict: insertion-ordered, keys hashed as Python
// hashes them (1, 1.0 and True are one key).
type Dict struct {
	Header
	entries []dictEntry // in insertion order; deleted ones have del set
	index   map[hashKey]int
	// byHash are the positions of the keys matched by __eq__ (their
	// class's own __hash__), by hash; nil until the first such key
	byHash map[int64][]int
	n      int
	static bool // a built-in class's namespace: never counted or freed
	// version changes with every store and removal (PEP 509's
	// ma_version_tag), so that what was read from the dict can be kept
	// while it stays the same.
	version uint64
}

type dictEntry struct {
	key, val Value
	k        hashKey
	del      bool
}

// hashKey is a key's identity for the index: equal Python keys give
// equal hashKeys.
type hashKey struct {
	kind uint8
	i    int64
	s    string
	p    Object
}

const (
	keyNone uint8 = iota
	keyInt
	keyFloat
	keyStr
	keyTuple
	keyObject
	keyBig
	keyOther
	keyFrozen
)

// Type is dict.
func (d *Dict) Type() *Class { return DictType }

// Traverse visits keys and values.
func (d *Dict) Traverse(visit func(Value)) {
	for _, e := range d.entries {
		if !e.del {
			visit(e.key)
			visit(e.val)
		}
	}
}

// Clear empties the dict, dropping its references in insertion order.
func (d *Dict) Clear(in *Interp) {
	es := d.entries
	d.version++
	d.entries, d.index, d.byHash, d.n = nil, map[hashKey]int{}, nil, 0
	for _, e := range es {
		if !e.del {
			in.Decref(e.key)
			in.Decref(e.val)
		}
	}
}

// NewDict makes an empty dict (owned by the caller).
func (in *Interp) NewDict() *Dict {
	d := &Dict{index: map[hashKey]int{}}
	in.track(d)
	return d
}

func newStaticDict() *Dict {
	d := &Dict{index: map[hashKey]int{}, static: true}
	d.refs = 1 << 30
	return d
}

// Version is the dict's version: the same as long as no key is stored
// or removed.
func (d *Dict) Version() uint64 { return d.version }

// Len is the number of entries.
func (d *Dict) Len() int { return d.n }

// keyOf is v's hashKey, or a TypeError for an unhashable value.
func (in *Interp) keyOf(v Value) (hashKey, error) {
	switch v := v.(type) {
	case NoneType:
		return hashKey{kind: keyNone}, nil
	case bool:
		if v {
			return hashKey{kind: keyInt, i: 1}, nil
		}
		return hashKey{kind: keyInt}, nil
	case int64:
		return hashKey{kind: keyInt, i: v}, nil
	case *big.Int:
		return hashKey{kind: keyBig, s: v.String()}, nil
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<63 {
			return hashKey{kind: keyInt, i: int64(v)}, nil
		}
		return hashKey{kind: keyFloat, i: int64(math.Float64bits(v))}, nil
	case string:
		return hashKey{kind: keyStr, s: v}, nil
	case *Tuple:
		var b strings.Builder
		lanes := make([]int64, len(v.items))
		eqMember := false
		for j, x := range v.items {
			k, err := in.keyOf(x)
			if err != nil {
				return hashKey{}, err
			}
			fmt.Fprintf(&b, "%d:%d:%q:%p;", k.kind, k.i, k.s, k.p)
			lanes[j] = k.i
			eqMember = eqMember || byEq(k)
		}
		if eqMember {
			// a member hashed by its class: the tuple is found by __eq__
			return hashKey{kind: keyOther, i: tupleHash(lanes), p: v}, nil
		}
		return hashKey{kind: keyTuple, s: b.String(), i: tupleHash(lanes)}, nil
	case *Set:
		if v.frozen {
			return in.frozenKey(v), nil
		}
		return hashKey{}, in.typeError("unhashable type: '%s'", TypeOf(v).Name)
	case *List, *Dict:
		return hashKey{}, in.typeError("unhashable type: '%s'", TypeOf(v).Name)
	case Object:
		if p := plain(v, "__hash__", "__eq__"); p != v {
			return in.keyOf(p)
		}
		if inst, ok := v.(*Instance); ok {
			if h := inst.cls.lookup("__hash__"); h == None {
				return hashKey{}, in.typeError("unhashable type: '%s'", inst.cls.Name)
			} else if _, isFn := h.(*Function); isFn {
				r, err := in.call(h, []Value{v}, nil)
				if err != nil {
					return hashKey{}, err
				}
				i, ok := r.(int64)
				in.Decref(r)
				if !ok {
					return hashKey{}, in.typeError("__hash__ method should return an integer")
				}
				return hashKey{kind: keyOther, i: i, p: v}, nil
			}
		}
		return hashKey{kind: keyObject, p: v}, nil
	}
	return hashKey{kind: keyOther, s: fmt.Sprintf("%T:%v", v, v)}, nil
}

// tupleHash is CPython's hash of a tuple whose members hash to lanes
// (its xxHash-based mix), so hash((1, 2)) prints what python3 prints.
func tupleHash(lanes []int64) int64 {
	const p1, p2, p5 = 11400714785074694791, 14029467366897019727, 2870177450012600261
	acc := uint64(p5)
	for _, l := range lanes {
		acc += uint64(l) * p2
		acc = acc<<31 | acc>>33
		acc *= p1
	}
	acc += uint64(len(lanes)) ^ (p5 ^ 3527539)
	if int64(acc) == -1 {
		return 1546275796
	}
	return int64(acc)
}

// lookup is the position of the entry for k. A key whose class defines
// __hash__ (or a tuple holding one) is matched as CPython matches it:
// the same object, or an entry of the same hash that __eq__ says is
// equal. An __eq__ that raises counts as not equal.
func (d *Dict) lookup(in *Interp, k hashKey) (int, bool) {
	if i, ok := d.index[k]; ok || !byEq(k) {
		return i, ok
	}
	for _, i := range d.byHash[k.i] {
		if eq, err := in.Equal(d.entries[i].key, k.p); err == nil && eq {
			return i, true
		}
	}
	return 0, false
}

// byEq reports whether k is matched by __eq__ among the keys of its hash.
func byEq(k hashKey) bool { return k.kind == keyOther && k.p != nil }

// place records that the entry at i has key k.
func (d *Dict) place(k hashKey, i int) {
	d.index[k] = i
	if byEq(k) {
		if d.byHash == nil {
			d.byHash = map[int64][]int{}
		}
		d.byHash[k.i] = append(d.byHash[k.i], i)
	}
}

// Get returns the value for key (borrowed).
func (in *Interp) dictGet(d *Dict, key Value) (Value, bool, error) {
	k, err := in.keyOf(key)
	if err != nil {
		return nil, false, err
	}
	i, ok := d.lookup(in, k)
	if !ok {
		return nil, false, nil
	}
	return d.entries[i].val, true, nil
}

// dictSet stores key: val, taking new references to both; the value it
// replaces is dropped after.
func (in *Interp) dictSet(d *Dict, key, val Value) error {
	k, err := in.keyOf(key)
	if err != nil {
		return err
	}
	d.put(in, k, key, val)
	return nil
}

func (d *Dict) put(in *Interp, k hashKey, key, val Value) {
	d.version++
	if !d.static {
		Incref(val)
	}
	if i, ok := d.lookup(in, k); ok {
		old := d.entries[i].val
		d.entries[i].val = val
		if !d.static {
			in.Decref(old)
		}
		return
	}
	if !d.static {
		Incref(key)
	}
	d.place(k, len(d.entries))
	d.entries = append(d.entries, dictEntry{key: key, val: val, k: k})
	d.n++
}

// dictDel removes key, reporting whether it was there; its references
// are dropped (key first, as CPython does).
func (in *Interp) dictDel(d *Dict, key Value) (bool, error) {
	k, err := in.keyOf(key)
	if err != nil {
		return false, err
	}
	return d.remove(in, k), nil
}

func (d *Dict) remove(in *Interp, k hashKey) bool {
	i, ok := d.lookup(in, k)
	if !ok {
		return false
	}
	e := d.entries[i]
	d.entries[i] = dictEntry{del: true}
	d.version++
	delete(d.index, e.k)
	if byEq(e.k) {
		if rest := slices.DeleteFunc(d.byHash[e.k.i], func(j int) bool { return j == i }); len(rest) > 0 {
			d.byHash[e.k.i] = rest
		} else {
			delete(d.byHash, e.k.i)
		}
	}
	d.n--
	if d.n == 0 {
		d.entries = d.entries[:0]
	} else if len(d.entries) > 32 && d.n < len(d.entries)/2 {
		d.compact()
	}
	if !d.static {
		in.Decref(e.key)
		in.Decref(e.val)
	}
	return true
}

func (d *Dict) compact() {
	live := d.entries[:0:0]
	for _, e := range d.entries {
		if !e.del {
			live = append(live, e)
		}
	}
	d.entries = live
	d.index = make(map[hashKey]int, len(live))
	d.byHash = nil
	for i, e := range live {
		d.place(e.k, i)
	}
}

// getStr looks up a str key (borrowed); a nil d (the namespace of an
// instance that has none: object(), a class with __slots__) holds
// none.
func (d *Dict) getStr(name string) (Value, bool) {
	if d == nil {
		return nil, false
	}
	i, ok := d.index[hashKey{kind: keyStr, s: name}]
	if !ok {
		return nil, false
	}
	return d.entries[i].val, true
}

// setStr stores a str key in a dict that needs no interpreter (a
// built-in namespace) or takes a reference as any dict does.
func (d *Dict) setStr(name string, v Value) {
	d.put(nil, hashKey{kind: keyStr, s: name}, name, v)
}

// SetStr stores name: v, taking a reference to v.
func (in *Interp) SetStr(d *Dict, name string, v Value) {
	d.put(in, hashKey{kind: keyStr, s: name}, name, v)
}

// delStr removes a str key.
func (in *Interp) delStr(d *Dict, name string) bool {
	return d.remove(in, hashKey{kind: keyStr, s: name})
}

// Items calls f for each entry in order (borrowed); f returning false
// stops.
func (d *Dict) Items(f func(k, v Value) bool) {
	for i := 0; i < len(d.entries); i++ {
		e := d.entries[i]
		if !e.del && !f(e.key, e.val) {
			return
		}
	}
}

// keys returns the live keys in order (borrowed).
func (d *Dict) keys() []Value {
	out := make([]Value, 0, d.n)
	for _, e := range d.entries {
		if !e.del {
			out = append(out, e.key)
		}
	}
	return out
}

// GetStr looks up a str key (a borrowed value).
func (d *Dict) GetStr(name string) (Value, bool) { return d.getStr(name) }

// DelStr removes a str key, dropping its value, and reports whether it
// was there.
func (in *Interp) DelStr(d *Dict, name string) bool { return in.delStr(d, name) }

// PutStr binds name to v in d taking over the caller's reference to v;
// the value it replaced is dropped, called label in events.
func (in *Interp) PutStr(d *Dict, name string, v Value, label string) {
	if old := putNS(d, name, v); old != nil {
		in.Labeled(old, label)
	}
}
