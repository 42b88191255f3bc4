package engine

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
