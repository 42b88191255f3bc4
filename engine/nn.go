package engine

// NewParameter makes an initialised float32 parameter of shape on dev,
// as an nn module's constructor does (on the host unless given device=).
func (s *Session) NewParameter(shape []int64, dev Device) (*Tensor, error) {
	t := &Tensor{Shape: shape, DType: Float32, slot: newGradSlot()}
	if err := checkSize(shape, Float32.Size); err != nil {
		return nil, err
	}
	st, err := s.newStorage(dev, t.Bytes(), true)
	if err != nil {
		return nil, err
	}
	t.st = st
	return t, nil
}
