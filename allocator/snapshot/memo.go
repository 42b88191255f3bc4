package snapshot

// memo is the pickle's memo. Protocol 4 memoizes every event dict, so a
// million-event history puts a million entries; they are kept in a
// compact array of entries without pointers (16 bytes each, which the
// garbage collector need not scan), and the few objects they refer to in
// objs, by index. An event already built is referred to by its list's
// number and its index there. Entries put far past the end (a BINPUT to
// any index a hostile file names) go in a map.
type memo struct {
	entries []memoEntry
	objs    []any    // what kObj entries refer to
	free    []uint32 // indices of objs no entry refers to any more
	lists   []*eventList
	far     map[uint64]slot
}

// memoEntry is a slot as the memo keeps it: ref is an index into objs
// (kObj) or lists (kEventRef); scalar reports a number or an object
// that is None, a boolean or a string.
type memoEntry struct {
	n      uint64
	ref    uint32
	k      slotKind
	scalar bool
}

// len is the number of entries before the first that was never put in
// order.
func (m *memo) len() uint64 { return uint64(len(m.entries)) }

// at is entry i; false when it was never put.
func (m *memo) at(i uint64) (slot, bool) {
	if i >= m.len() {
		s, ok := m.far[i]
		return s, ok
	}
	return m.slotOf(m.entries[i]), true
}

// scalarAt is entry i when it was put and is a scalar.
func (m *memo) scalarAt(i uint64) (slot, bool) {
	if i >= m.len() || !m.entries[i].scalar {
		return slot{}, false
	}
	return m.slotOf(m.entries[i]), true
}

// slotOf is an entry as a slot.
func (m *memo) slotOf(e memoEntry) slot {
	s := slot{n: e.n, k: e.k}
	switch e.k {
	case kObj:
		s.v = m.objs[e.ref]
	case kEventRef:
		s.v = m.lists[e.ref]
	}
	return s
}

// set makes entry i, which is below len or at it, s.
func (m *memo) set(i uint64, s slot) {
	e := m.entry(s)
	if i == m.len() {
		m.entries = appendDoubling(m.entries, e)
		return
	}
	m.release(m.entries[i])
	m.entries[i] = e
}

// release lets go of the object an entry being replaced refers to.
func (m *memo) release(e memoEntry) {
	if e.k == kObj {
		m.objs[e.ref] = nil
		m.free = append(m.free, e.ref)
	}
}

// entry is s as an entry, its object (or event list) numbered.
func (m *memo) entry(s slot) memoEntry {
	e := memoEntry{n: s.n, k: s.k, scalar: s.k == kInt || s.k == kFloat}
	switch s.k {
	case kObj:
		switch s.v.(type) {
		case nil, bool, string:
			e.scalar = true
		}
		if n := len(m.free); n > 0 {
			e.ref = m.free[n-1]
			m.free = m.free[:n-1]
			m.objs[e.ref] = s.v
		} else {
			e.ref = uint32(len(m.objs))
			m.objs = append(m.objs, s.v)
		}
	case kEventRef:
		e.ref = m.listNumber(s.v.(*eventList))
	}
	return e
}

// listNumber is l's number in lists, given on its first use.
func (m *memo) listNumber(l *eventList) uint32 {
	if l.memoNumber == 0 {
		m.lists = append(m.lists, l)
		l.memoNumber = uint32(len(m.lists))
	}
	return l.memoNumber - 1
}

// setFar makes entry i, past len, s; false when the map already holds
// limit entries.
func (m *memo) setFar(i uint64, s slot, limit int) bool {
	if m.far == nil {
		m.far = map[uint64]slot{}
	}
	if len(m.far) >= limit {
		return false
	}
	m.far[i] = s
	return true
}
