package allocator

// activeSet holds every handed-out block by its address: an open-addressing
// table with linear probing (address 0 marks an empty slot; no device
// hands it out). It is what PyTorch's active_blocks set is, without the
// cost of a general-purpose map on every malloc and free. It is kept at
// most a quarter full: at half, whether the slot after a removed entry is
// taken was a coin toss, mispredicted about half the time.
type activeSet struct {
	slots []activeSlot
	n     int
}

// activeSlot is one slot of an activeSet: an address and its block side
// by side, so that a lookup reads one cache line, not one per array.
type activeSlot struct {
	key uint64
	b   *Block
}

func (s *activeSet) slot(p uint64) uint64 {
	return ((p >> 9) * 0x9E3779B97F4A7C15) >> 32 & uint64(len(s.slots)-1)
}

func (s *activeSet) put(p uint64, b *Block) {
	if 4*(s.n+1) > len(s.slots) {
		s.grow()
	}
	mask := uint64(len(s.slots) - 1)
	i := s.slot(p)
	for s.slots[i].key != 0 && s.slots[i].key != p {
		i = (i + 1) & mask
	}
	if s.slots[i].key == 0 {
		s.n++
	}
	s.slots[i] = activeSlot{p, b}
}

// take removes p and returns its block, shifting later entries of its
// probe run back so that no lookup stops early.
func (s *activeSet) take(p uint64) (*Block, bool) {
	if s.n == 0 {
		return nil, false
	}
	mask := uint64(len(s.slots) - 1)
	i := s.slot(p)
	for s.slots[i].key != p {
		if s.slots[i].key == 0 {
			return nil, false
		}
		i = (i + 1) & mask
	}
	b := s.slots[i].b
	s.n--
	for j := (i + 1) & mask; s.slots[j].key != 0; j = (j + 1) & mask {
		// Move j into the hole at i unless its home lies in (i, j]: the
		// hole is no farther along the wrapped table from its home than
		// j is.
		if home := s.slot(s.slots[j].key); (j-home)&mask >= (j-i)&mask {
			s.slots[i] = s.slots[j]
			i = j
		}
	}
	s.slots[i] = activeSlot{}
	return b, true
}

func (s *activeSet) grow() {
	old := s.slots
	s.slots, s.n = make([]activeSlot, max(64, 2*len(old))), 0
	for _, e := range old {
		if e.key != 0 {
			s.put(e.key, e.b)
		}
	}
}

// each calls f for every handed-out block.
func (s *activeSet) each(f func(*Block)) {
	for _, e := range s.slots {
		if e.key != 0 {
			f(e.b)
		}
	}
}

// get returns the handed-out block at p, leaving it there.
func (s *activeSet) get(p uint64) (*Block, bool) {
	if s.n == 0 {
		return nil, false
	}
	mask := uint64(len(s.slots) - 1)
	for i := s.slot(p); s.slots[i].key != 0; i = (i + 1) & mask {
		if s.slots[i].key == p {
			return s.slots[i].b, true
		}
	}
	return nil, false
}
