package snapshot

import (
	"encoding/binary"
	"fmt"
	"math"
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

// eventList is one device's trace.
type eventList struct {
	events     []Event
	dev        int
	attached   bool
	memoNumber uint32 // its number in the memo's lists, plus one; 0: none yet
}

// eventBuilder is an event dict being read.
type eventBuilder struct {
	ev       Event
	extra    []item   // its other fields, in order
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
				return &eventList{}
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
	return &eventBuilder{ev: Event{missing: hasAll}, at: u.at, memo: -1}
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
		el := &eventList{attached: true, dev: dev}
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
		el.events = append(el.events, s.v.(*eventList).events[s.n])
		return nil
	}
	switch b := s.v.(type) {
	case *eventBuilder:
		if b.done != nil {
			el.events = append(el.events, b.done.events[b.doneAt])
			return nil
		}
		u.finish(b, el)
		return nil
	case *dict:
		nb := u.builder()
		for _, it := range b.items {
			if err := u.setField(nb, it.key, slotOf(it.value)); err != nil {
				return err
			}
		}
		u.finish(nb, el)
		return nil
	}
	return u.fail("event %d of a device trace is a %s, not a dict", len(el.events), typeName(s))
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
	i := len(el.events)
	ev := b.ev
	if !actionKnown(ev.Action) {
		if ev.missing&hasAction != 0 {
			b.problems = append(b.problems, "it has no action")
		} else {
			b.problems = append(b.problems, fmt.Sprintf("unknown action %q (not replayed)", excerpt(ev.Action)))
		}
	}
	if len(b.extra) > 0 {
		if u.extra == nil || !sameItems(u.extra.items, b.extra) {
			u.extra = &fields{items: append([]item(nil), b.extra...)}
		}
		ev.extra = u.extra
	}
	el.events = appendDoubling(el.events, ev)
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
	*b = eventBuilder{ev: Event{missing: hasAll}, extra: b.extra[:0], problems: b.problems[:0], memo: -1}
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
	case nil, bool, int64, string:
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

// setField sets one field of an event being read. A modelled field of
// the wrong kind (a NaN address, a negative size) is kept as read among
// the others, and is a problem.
func (u *unpickler) setField(b *eventBuilder, k any, s slot) error {
	key, _ := k.(string)
	var num *uint64
	var bit uint8
	switch key {
	case "action":
		if a, ok := s.v.(string); ok && s.k == kObj {
			b.ev.Action, b.ev.missing = action(a), b.ev.missing&^hasAction
			return nil
		}
	case "addr":
		num, bit = &b.ev.Addr, hasAddr
	case "size":
		num, bit = &b.ev.Size, hasSize
	case "stream":
		num, bit = &b.ev.Stream, hasStream
	case "time_us":
		if s.k == kInt {
			b.ev.Time, b.ev.missing = int64(s.n), b.ev.missing&^hasTime
			return nil
		}
	case "frames":
		if l, ok := s.v.(*list); ok && s.k == kObj {
			b.ev.Frames, b.ev.missing = u.stacks.shared(l), b.ev.missing&^hasFrames
			return nil
		}
	}
	if num != nil && s.k == kInt && int64(s.n) >= 0 {
		*num, b.ev.missing = s.n, b.ev.missing&^bit
		return nil
	}
	v, err := u.plain(s)
	if err != nil {
		return err
	}
	if key == "action" || num != nil || key == "time_us" {
		b.problems = append(b.problems, fmt.Sprintf("%s is %s, not %s", key, describe(v), wantOf(key)))
	}
	b.extra = append(b.extra, item{k, v})
	return nil
}

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
	ids    map[*dict]uint32 // frame dict → its number
	stacks map[string]*list // the frames' numbers → the first list of them
	key    []byte
}

// shared is the first stack read with the same frames as l, or l.
func (t *stackTable) shared(l *list) Stack {
	if t.ids == nil {
		t.ids, t.stacks = map[*dict]uint32{}, map[string]*list{}
	}
	t.key = t.key[:0]
	for _, v := range l.items {
		d, ok := v.(*dict)
		if !ok {
			return Stack{l}
		}
		id, ok := t.ids[d]
		if !ok {
			id = uint32(len(t.ids))
			t.ids[d] = id
		}
		t.key = binary.LittleEndian.AppendUint32(t.key, id)
	}
	if first, ok := t.stacks[string(t.key)]; ok {
		return Stack{first}
	}
	t.stacks[string(t.key)] = l
	return Stack{l}
}
