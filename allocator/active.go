package allocator

// activeSet holds every handed-out block by its address: an open-addressing
// table with linear probing (address 0 marks an empty slot; no device
// hands it out). It is what PyTorch's active_blocks set is, without the
// cost of a general-purpose map on every malloc and free. It is kept at
// most a quarter full: at half, whether the slot after a removed entry is
// taken was a coin toss, mispredicted about half the time.
type activeSet struct {
	keys []uint64
	vals []*Block
	n    int
}

func (s *activeSet) slot(p uint64) uint64 {
	return ((p >> 9) * 0x9E3779B97F4A7C15) >> 32 & uint64(len(s.keys)-1)
}

func (s *activeSet) put(p uint64, b *Block) {
	if 4*(s.n+1) > len(s.keys) {
		s.grow()
	}
	mask := uint64(len(s.keys) - 1)
	i := s.slot(p)
	for s.keys[i] != 0 && s.keys[i] != p {
		i = (i + 1) & mask
	}
	if s.keys[i] == 0 {
		s.n++
	}
	s.keys[i], s.vals[i] = p, b
}

// take removes p and returns its block, shifting later entries of its
// probe run back so that no lookup stops early.
func (s *activeSet) take(p uint64) (*Block, bool) {
	if s.n == 0 {
		return nil, false
	}
	mask := uint64(len(s.keys) - 1)
	i := s.slot(p)
	for s.keys[i] != p {
		if s.keys[i] == 0 {
			return nil, false
		}
		i = (i + 1) & mask
	}
	b := s.vals[i]
	s.n--
	for j := (i + 1) & mask; s.keys[j] != 0; j = (j + 1) & mask {
		home := s.slot(s.keys[j])
		// move j into the hole at i unless its home lies in (i, j]
		if (j > i && (home <= i || home > j)) || (j < i && home <= i && home > j) {
			s.keys[i], s.vals[i] = s.keys[j], s.vals[j]
			i = j
		}
	}
	s.keys[i], s.vals[i] = 0, nil
	return b, true
}

func (s *activeSet) grow() {
	oldK, oldV := s.keys, s.vals
	size := max(64, 2*len(oldK))
	s.keys, s.vals, s.n = make([]uint64, size), make([]*Block, size), 0
	for i, k := range oldK {
		if k != 0 {
			s.put(k, oldV[i])
		}
	}
}

// each calls f for every handed-out block.
func (s *activeSet) each(f func(*Block)) {
	for i, k := range s.keys {
		if k != 0 {
			f(s.vals[i])
		}
	}
}
