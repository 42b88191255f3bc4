package engine

import "slices"

// The values the tool knows of a tensor.

// ForgetValues makes t's storage's values unknown to the tool from here
// on: what a shuffled DataLoader batch holds (the tool iterates in order,
// which takes the same memory, but the values it would print are not
// PyTorch's random ones).
func (s *Session) ForgetValues(t *Tensor) {
	if !t.number {
		t.st.vals = nil
	}
}

// Values are t's elements in order when the tool knows them (a
// constant, a range, a copy of one, a view of one, read through its
// strides as print reads it: a transposed mask's); ok false otherwise.
func (t *Tensor) Values() (vals []float64, ok bool) {
	n := t.Numel()
	if n == 0 && !t.number {
		return []float64{}, true
	}
	if t.number || t.st.vals == nil || isComplex(t.DType) || !t.IsContiguous() && n > maxKnownValues {
		return nil, false
	}
	if !t.IsContiguous() {
		return printedValues(t, false)
	}
	vals = make([]float64, n)
	for i := range n {
		vals[i] = t.st.vals.at(t.offset + i)
	}
	return vals, true
}

// WriteZeroInto is t[key] = 0 (t the part the key indexes): an in-place
// write, after which the tool knows t's elements are zero, and any
// element of the storage it knew to be zero before that is still: where
// the storage's other values are not known, knownZeros takes them for
// nonzero.
func (s *Session) WriteZeroInto(t *Tensor) {
	st := t.st
	was, n := st.zeros, st.bytes/max(t.DType.Size, 1)
	if st.vals != nil && n > maxKnownValues {
		s.written(t)
		return
	}
	if vals := st.vals; vals != nil {
		was = nil
		for i := range n {
			if vals.at(i) == 0 {
				was = append(was, i)
			}
		}
	}
	s.written(t)
	at := elementOffsets(t)
	if at == nil || len(was)+len(at) > maxKnownValues {
		return
	}
	zeros := slices.Concat(was, at)
	slices.Sort(zeros)
	st.zeros = slices.Compact(zeros)
}

// elementOffsets are the storage offsets of t's elements, in order (nil
// past maxKnownValues of them).
func elementOffsets(t *Tensor) []uint64 {
	if t.Numel() > maxKnownValues {
		return nil
	}
	strides := t.Strides()
	out := make([]uint64, 0, t.Numel())
	at := make([]int64, len(t.Shape))
	for range t.Numel() {
		off := int64(t.offset)
		for j, i := range at {
			off += i * strides[j]
		}
		out = append(out, uint64(off))
		nextIndex(at, t.Shape)
	}
	return out
}

// knownZeros are which of t's elements, in order, the tool knows are
// zero, where it knows one is: by its values, or by the zeros written
// into it (WriteZeroInto; its other elements taken for nonzero); nil
// where it knows none.
func knownZeros(t *Tensor) []bool {
	var zero []bool
	if vals, ok := t.Values(); ok {
		zero = make([]bool, len(vals))
		for i, v := range vals {
			zero[i] = v == 0
		}
	} else if t.st.zeros != nil {
		at := elementOffsets(t)
		zero = make([]bool, len(at))
		for i, off := range at {
			_, zero[i] = slices.BinarySearch(t.st.zeros, off)
		}
	}
	if !slices.Contains(zero, true) {
		return nil
	}
	return zero
}
