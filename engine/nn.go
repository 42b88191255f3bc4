package engine

// NewParameter makes an initialised float32 parameter of shape on dev,
// as an nn module's constructor does (on the host unless given device=).
func (s *Session) NewParameter(shape []int64, dev Device) (*Tensor, error) {
	return s.NewParameterOf(shape, Float32, dev)
}

// NewParameterOf is NewParameter of dtype dt (a layer made with dtype=).
func (s *Session) NewParameterOf(shape []int64, dt DType, dev Device) (*Tensor, error) {
	t := &Tensor{Shape: shape, DType: dt, slot: newGradSlot()}
	if err := checkSize(shape, dt.Size); err != nil {
		return nil, err
	}
	st, err := s.newStorage(dev, t.Bytes(), true)
	if err != nil {
		return nil, err
	}
	t.st = st
	st.role = roleParam
	return t, nil
}
