package engine

// ForgetValues makes t's storage's values unknown to the tool from here
// on: what a shuffled DataLoader batch holds (the tool iterates in order,
// which takes the same memory, but the values it would print are not
// PyTorch's random ones).
func (s *Session) ForgetValues(t *Tensor) {
	if !t.number {
		t.st.vals = nil
	}
}
