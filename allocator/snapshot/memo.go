package snapshot

// memo is the pickle's memo. Protocol 4 memoizes every event dict, so a
// million-event history puts a million entries; they are kept in compact
// chunks of entries without pointers (16 bytes each, which the garbage
// collector need not scan, and which growing does not copy), and the few
// objects they refer to in objs, by index. An event already built is referred to by its list's
// number and its index there. Entries put far past the end (a BINPUT to
// any index a hostile file names) go in a map.
type memo struct {
	entries chunked[memoEntry]
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
	field  fieldKey // a string's event field, told once rather than at every BINGET of it
}

// len is the number of entries before the first that was never put in
// order.
func (m *memo) len() uint64 { return uint64(m.entries.n) }

// at is entry i; false when it was never put.
func (m *memo) at(i uint64) (slot, bool) {
	if i >= m.len() {
		s, ok := m.far[i]
		return s, ok
	}
	return m.slotOf(*m.entries.at(i)), true
}

// scalar is entry i when it was put and is a scalar.
func (m *memo) scalar(i uint64) (memoEntry, bool) {
	if i < m.len() {
		if e := &m.entries.chunks[i/chunkLen][i%chunkLen]; e.scalar {
			return *e, true
		}
	}
	return memoEntry{}, false
}

// slotOf is an entry as a slot.
func (m *memo) slotOf(e memoEntry) slot {
	s := slot{n: e.n, k: e.k, f: e.field}
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
		m.entries.add(e)
		return
	}
	old := m.entries.at(i)
	m.release(*old)
	*old = e
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
		case string:
			e.scalar, e.field = true, fieldOf(s.v)
		case nil, bool:
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

// chunked is a sequence of values kept in chunks that never move once
// full: growing it copies nothing but its first chunk, which grows to
// chunkLen by doubling, so that a short one takes little.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

// chunkLen is the number of values in a full chunk.
const chunkLen = 1 << 14

// add appends v.
func (c *chunked[T]) add(v T) {
	k := len(c.chunks) - 1
	switch {
	case k < 0:
		c.chunks = append(c.chunks, make([]T, 0, 16))
		k++
	case len(c.chunks[k]) == chunkLen:
		c.chunks = append(c.chunks, make([]T, 0, chunkLen))
		k++
	case len(c.chunks[k]) == cap(c.chunks[k]):
		c.chunks[k] = append(make([]T, 0, 2*cap(c.chunks[k])), c.chunks[k]...)
	}
	c.chunks[k] = append(c.chunks[k], v)
	c.n++
}

// at is value i, which must be below n.
func (c *chunked[T]) at(i uint64) *T { return &c.chunks[i/chunkLen][i%chunkLen] }
