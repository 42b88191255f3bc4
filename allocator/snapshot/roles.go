package snapshot

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// A pickle says where a value goes only after it is built (APPEND,
// SETITEMS), so the reader guesses from the stack when it makes a
// container: a list under the snapshot dict's "device_traces" key is the
// trace list, a list going into the trace list is one device's trace,
// and a dict going into a device's trace is an event, built straight
// into an Event. The stack leaves a guess open only where the file's
// structure is not a snapshot's; a container that lands elsewhere than
// guessed is converted when it is attached (a plain list of plain dicts
// into a device trace), or is an error (an event outside device_traces).

// traceList is device_traces: one eventList per device index.
type traceList struct{ lists []*eventList }

// eventList is one device's trace, as pointer-free records (a million
// of them cost the garbage collector nothing to scan, and growing them
// copies no pointers) in chunks that never move once full; they become
// Events once, at their final count.
type eventList struct {
	records    chunked[eventRecord]
	tables     *eventTables
	dev        int
	attached   bool
	memoNumber uint32 // its number in the memo's lists, plus one; 0: none yet
}

// eventRecord is an event as read: its strings, stack and other fields are
// numbers in its list's tables.
type eventRecord struct {
	addr, size, stream uint64
	time               int64
	action             uint32 // in tables.names
	frames             uint32 // in tables.stacks; 0: the zero Stack
	extra              uint32 // in tables.extras; 0: none
	missing            uint8
}

// eventTables hold what the records of one file's traces refer to.
type eventTables struct {
	names   []string          // action names: the known ones first
	nameIDs map[string]uint32 // a name's number in names
	recent  [4]uint32         // the numbers of names looked up lately
	next    int               // the entry of recent to replace
	stacks  []Stack
	extras  []*fields
}

func newEventTables() *eventTables {
	t := &eventTables{names: slices.Clone(knownActions), nameIDs: map[string]uint32{}, stacks: []Stack{{}}, extras: []*fields{nil}}
	for i, a := range knownActions {
		t.nameIDs[a] = uint32(i)
	}
	return t
}

// name is the number of an action name, given on its first use. The
// few names a trace alternates between are found among those looked up
// lately, without hashing.
func (t *eventTables) name(s string) uint32 {
	for _, id := range t.recent {
		if t.names[id] == s {
			return id
		}
	}
	id, ok := t.nameIDs[s]
	if !ok {
		id = uint32(len(t.names))
		t.names = append(t.names, s)
		t.nameIDs[s] = id
	}
	t.recent[t.next] = id
	t.next = (t.next + 1) % len(t.recent)
	return id
}

// event is a record as an Event.
func (t *eventTables) event(r eventRecord) Event {
	return Event{Action: t.names[r.action], Addr: r.addr, Size: r.size, Stream: r.stream, Time: r.time,
		Frames: t.stacks[r.frames], extra: t.extras[r.extra], missing: r.missing}
}

// add appends a record.
func (l *eventList) add(r eventRecord) { l.records.add(r) }

// at is record i.
func (l *eventList) at(i uint64) eventRecord { return *l.records.at(i) }

// events makes the list's Events, letting go of each chunk once made.
// Each is written field by field, its zero fields left as made: copying
// whole Events while the collector runs would take its write barrier
// over every word of them.
func (l *eventList) events() []Event {
	out := make([]Event, l.records.n)
	t := l.tables
	i := 0
	for k, c := range l.records.chunks {
		for _, r := range c {
			e := &out[i]
			i++
			e.Action, e.Addr, e.Size, e.Stream, e.Time, e.missing = t.names[r.action], r.addr, r.size, r.stream, r.time, r.missing
			if r.frames != 0 {
				e.Frames = t.stacks[r.frames]
			}
			if r.extra != 0 {
				e.extra = t.extras[r.extra]
			}
		}
		l.records.chunks[k] = nil
	}
	return out
}

// eventBuilder is an event dict being read.
type eventBuilder struct {
	rec      eventRecord
	action   string   // its action, once read
	extra    []item   // its other fields, in order
	fields   *fields  // or, set from eventItems, its other fields (strings) whole
	problems []string // what is wrong with it
	at       int64    // the pickle offset of its dict
	refs     int      // memo entries and stack copies of it
	memo     int64    // its memo index, or -1
	done     *eventList
	doneAt   int
}

// parentsOf are the containers a value made now may go into, most
// likely first: the list at the top (APPEND), the dict below a key at
// the top (SETITEM), the container below the last mark (APPENDS,
// SETITEMS); key is the value's key in a dict.
func (u *unpickler) parentsOf() (parents [3]any, keys [3]any) {
	st := u.stack
	n := len(st)
	m := 0
	if len(u.marks) > 0 {
		m = u.marks[len(u.marks)-1]
	}
	if n-1 >= m && n >= 1 {
		parents[0] = st[n-1].v
	}
	if n-2 >= m && n >= 2 {
		if _, ok := st[n-2].v.(*dict); ok {
			parents[1], keys[1] = st[n-2].v, st[n-1].v
		}
	}
	if len(u.marks) > 0 && m > 0 {
		parents[2] = st[m-1].v
		if (n-m)%2 == 1 {
			keys[2] = st[n-1].v
		}
	}
	return parents, keys
}

// newList makes a list where one is made: the trace list, a device's
// trace, or a plain list.
func (u *unpickler) newList() any {
	parents, keys := u.parentsOf()
	for i, p := range parents {
		switch p := p.(type) {
		case *traceList:
			if i != 1 {
				return &eventList{tables: u.tables}
			}
		case *dict:
			if p == u.top && p != nil && keys[i] == "device_traces" {
				return &traceList{}
			}
		}
	}
	return &list{}
}

// newDict makes a dict where one is made: the snapshot dict (the first,
// made on an empty stack), an event, or a plain dict.
func (u *unpickler) newDict() any {
	if u.top == nil && len(u.stack) == 0 {
		u.top = &dict{}
		return u.top
	}
	parents, _ := u.parentsOf()
	for i, p := range parents {
		if _, ok := p.(*eventList); ok && i != 1 {
			return u.builder()
		}
	}
	return &dict{}
}

// builder is a fresh event builder, reused where one was let go.
func (u *unpickler) builder() *eventBuilder {
	if n := len(u.builders); n > 0 {
		b := u.builders[n-1]
		u.builders = u.builders[:n-1]
		b.at = u.at
		return b
	}
	return &eventBuilder{rec: eventRecord{missing: hasAll}, at: u.at, memo: -1}
}

// addTrace attaches a device's trace to device_traces.
func (u *unpickler) addTrace(tl *traceList, s slot) error {
	dev := len(tl.lists)
	switch l := s.v.(type) {
	case *eventList:
		if l.attached {
			return u.fail("device_traces[%d] repeats another device's trace", dev)
		}
		l.attached, l.dev = true, dev
		tl.lists = append(tl.lists, l)
		return nil
	case *list:
		el := &eventList{attached: true, dev: dev, tables: u.tables}
		for _, v := range l.items {
			if err := u.addEvent(el, slot{v: v}); err != nil {
				return err
			}
		}
		tl.lists = append(tl.lists, el)
		return nil
	}
	return u.fail("device_traces[%d] is a %s, not a list", dev, typeName(s))
}

// addEvent attaches an event to a device's trace.
func (u *unpickler) addEvent(el *eventList, s slot) error {
	if err := u.count(1); err != nil {
		return err
	}
	if s.k == kEventRef {
		el.add(s.v.(*eventList).at(s.n))
		return nil
	}
	switch b := s.v.(type) {
	case *eventBuilder:
		if b.done != nil {
			el.add(b.done.at(uint64(b.doneAt)))
			return nil
		}
		u.finish(b, el)
		return nil
	case *dict:
		nb := u.builder()
		for _, it := range b.items {
			if err := u.setField(nb, it.key, fieldUnread, slotOf(it.value)); err != nil {
				return err
			}
		}
		u.finish(nb, el)
		return nil
	}
	return u.fail("event %d of a device trace is a %s, not a dict", el.records.n, typeName(s))
}

// slotOf is a plain value as a slot.
func slotOf(v any) slot {
	switch v := v.(type) {
	case int64:
		return slot{n: uint64(v), k: kInt}
	case float64:
		return slot{n: math.Float64bits(v), k: kFloat}
	}
	return slot{v: v}
}

// finish adds a built event to its trace and lets its builder go when
// nothing else refers to it (its memo entry then names the event).
func (u *unpickler) finish(b *eventBuilder, el *eventList) {
	i := el.records.n
	rec := b.rec
	rec.action = u.tables.name(b.action)
	if rec.action >= uint32(len(knownActions)) {
		if rec.missing&hasAction != 0 {
			b.problems = append(b.problems, "it has no action")
		} else {
			b.problems = append(b.problems, fmt.Sprintf("unknown action %q (not replayed)", excerpt(b.action)))
		}
	}
	switch t := u.tables; {
	case b.fields != nil: // compared only where it is not the last one's
		switch last := t.extras[len(t.extras)-1]; {
		case last == b.fields:
		case last != nil && sameItems(last.items, b.fields.items):
			if u.lastFields == b.fields {
				u.lastFields = last // the events set from now on share it
			}
		default:
			t.extras = append(t.extras, b.fields)
		}
		rec.extra = uint32(len(t.extras) - 1)
	case len(b.extra) > 0:
		if last := t.extras[len(t.extras)-1]; last == nil || !sameItems(last.items, b.extra) {
			t.extras = append(t.extras, &fields{items: append([]item(nil), b.extra...)})
		}
		rec.extra = uint32(len(t.extras) - 1)
	}
	el.add(rec)
	for _, p := range b.problems {
		u.problems = append(u.problems, Problem{Event: i, Offset: b.at, Msg: p, list: el})
	}
	if b.refs > 1 {
		b.done, b.doneAt = el, i
		return
	}
	if b.memo >= 0 {
		ref := slot{v: el, n: uint64(i), k: kEventRef}
		if uint64(b.memo) < u.memo.len() {
			u.memo.set(uint64(b.memo), ref)
		} else {
			u.memo.far[uint64(b.memo)] = ref
		}
	}
	*b = eventBuilder{rec: eventRecord{missing: hasAll}, extra: b.extra[:0], problems: b.problems[:0], memo: -1}
	u.builders = append(u.builders, b)
}

// sameItems reports whether two events' other fields are the same (a
// container the same one), so that the second can share the first's.
func sameItems(a, b []item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !samePlain(a[i].key, b[i].key) || !samePlain(a[i].value, b[i].value) {
			return false
		}
	}
	return true
}

// samePlain reports whether two plain values are equal scalars or the
// same container.
func samePlain(a, b any) bool {
	switch x := a.(type) {
	case string: // most of them: compared as strings, not as interfaces
		y, ok := b.(string)
		return ok && x == y
	case nil, bool, int64:
		return a == b
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case *list:
		y, ok := b.(*list)
		return ok && x == y
	case *dict:
		y, ok := b.(*dict)
		return ok && x == y
	}
	return false
}

// The fields of an event that are modelled, as bits of Event.missing
// when the event lacks them.
const (
	hasAction uint8 = 1 << iota
	hasAddr
	hasSize
	hasStream
	hasTime
	hasFrames
	hasAll = hasAction | hasAddr | hasSize | hasStream | hasTime | hasFrames
)

// fieldKey is the event field a dict key names: told once per memo entry
// of a key string, so that an event's keys, which the pickle refers to by
// BINGET event after event, are not compared with the field names each
// time.
type fieldKey uint8

const (
	fieldUnread fieldKey = iota // not told yet
	fieldOther                  // not a modelled field
	fieldAction
	fieldAddr
	fieldSize
	fieldStream
	fieldTime
	fieldFrames
)

// fieldOf is the field the key k names.
func fieldOf(k any) fieldKey {
	key, _ := k.(string)
	switch key {
	case "action":
		return fieldAction
	case "addr":
		return fieldAddr
	case "size":
		return fieldSize
	case "stream":
		return fieldStream
	case "time_us":
		return fieldTime
	case "frames":
		return fieldFrames
	}
	return fieldOther
}

// setField sets one field of an event being read: f is the field the key
// k names, or fieldUnread. A modelled field of the wrong kind (a NaN
// address, a negative size) is kept as read among the others, and is a
// problem.
func (u *unpickler) setField(b *eventBuilder, k any, f fieldKey, s slot) error {
	if f == fieldUnread {
		f = fieldOf(k)
	}
	if u.setModelled(b, f, s) {
		return nil
	}
	v, err := u.plain(s)
	if err != nil {
		return err
	}
	if f != fieldOther && f != fieldFrames { // frames of another kind are only kept
		key := k.(string)
		b.problems = append(b.problems, fmt.Sprintf("%s is %s, not %s", key, describe(v), wantOf(key)))
	}
	b.extra = append(b.extra, item{k, v})
	return nil
}

// setModelled sets the modelled field f of an event being read to s, and
// reports whether it did: false when f is not modelled (or not told) or s
// is not of its kind.
func (u *unpickler) setModelled(b *eventBuilder, f fieldKey, s slot) bool {
	r := &b.rec
	var num *uint64
	switch f {
	case fieldAction:
		if a, ok := s.v.(string); ok && s.k == kObj {
			b.action, r.missing = a, r.missing&^hasAction
			return true
		}
		return false
	case fieldAddr:
		num = &r.addr
	case fieldSize:
		num = &r.size
	case fieldStream:
		num = &r.stream
	case fieldTime:
		if s.k == kInt {
			r.time, r.missing = int64(s.n), r.missing&^hasTime
			return true
		}
		return false
	case fieldFrames:
		if l, ok := s.v.(*list); ok && s.k == kObj {
			r.frames, r.missing = u.stacks.shared(l, u.tables), r.missing&^hasFrames
			return true
		}
		return false
	default:
		return false
	}
	if s.k != kInt || int64(s.n) < 0 {
		return false
	}
	*num, r.missing = s.n, r.missing&^fieldBit[f]
	return true
}

// fieldBit is each counted field's bit in eventRecord.missing.
var fieldBit = [...]uint8{fieldAddr: hasAddr, fieldSize: hasSize, fieldStream: hasStream}

func wantOf(key string) string {
	switch key {
	case "action":
		return "a string"
	case "time_us":
		return "an integer"
	}
	return "an integer of at least 0"
}

// describe is a short account of a plain value, for a message.
func describe(v any) string {
	switch v := v.(type) {
	case float64:
		return fmt.Sprintf("the float %g", v)
	case int64:
		return fmt.Sprint(v)
	case string:
		return fmt.Sprintf("the string %q", excerpt(v))
	case nil:
		return "None"
	}
	return "a " + typeName(slot{v: v})
}

// fields are an event's fields that are not modelled, shared by
// consecutive events that have the same.
type fields struct{ items []item }

// asDict is an event as the dict it was read from.
func (ev Event) asDict() *dict {
	d := &dict{}
	for _, f := range []struct {
		bit uint8
		key string
		v   any
	}{{hasAction, "action", ev.Action}, {hasAddr, "addr", int64(ev.Addr)}, {hasSize, "size", int64(ev.Size)}, {hasStream, "stream", int64(ev.Stream)}, {hasTime, "time_us", ev.Time}} {
		if ev.missing&f.bit == 0 {
			d.items = append(d.items, item{f.key, f.v})
		}
	}
	if ev.extra != nil {
		d.items = append(d.items, ev.extra.items...)
	}
	if ev.missing&hasFrames == 0 {
		d.items = append(d.items, item{"frames", ev.Frames.value()})
	}
	return d
}

// appendDoubling appends, doubling the capacity when full: append grows a
// large slice by a quarter, which for a million events allocates five
// times what they take.
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		grown := make([]T, len(s), max(2*cap(s), 256))
		copy(grown, s)
		s = grown
	}
	return append(s, v)
}

// stackTable shares equal stacks: PyTorch pickles each allocation's
// stack as a list of its own (of frame dicts it shares), and a training
// loop records the same few thousand stacks a million times.
type stackTable struct {
	ids    map[*dict]uint32  // frame dict → its number
	stacks map[string]uint32 // the frames' numbers → the first list of them, in tables.stacks
	key    []byte
}

// shared is the number in t.stacks of the first stack read with the same
// frames as l, or of l, added.
func (st *stackTable) shared(l *list, t *eventTables) uint32 {
	if st.ids == nil {
		st.ids, st.stacks = map[*dict]uint32{}, map[string]uint32{}
	}
	add := func() uint32 {
		t.stacks = append(t.stacks, Stack{&stack{l: l}})
		return uint32(len(t.stacks) - 1)
	}
	st.key = st.key[:0]
	for _, v := range l.items {
		d, ok := v.(*dict)
		if !ok {
			return add()
		}
		id, ok := st.ids[d]
		if !ok {
			id = uint32(len(st.ids))
			st.ids[d] = id
		}
		st.key = binary.LittleEndian.AppendUint32(st.key, id)
	}
	if first, ok := st.stacks[string(st.key)]; ok {
		return first
	}
	id := add()
	st.stacks[string(st.key)] = id
	return id
}
