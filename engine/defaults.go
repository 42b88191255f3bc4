package engine

// The defaults a factory and a module's constructor take when not given
// dtype= or device= (torch.set_default_dtype, torch.set_default_device
// and torch.device as a context manager): PyTorch keeps them per
// process, the tool per session.
type defaults struct {
	dtype  DType
	device Device
}

// DefaultDType is torch.get_default_dtype().
func (s *Session) DefaultDType() DType { return s.defaults.dtype }

// SetDefaultDType is torch.set_default_dtype(d): a floating type only.
func (s *Session) SetDefaultDType(d DType) error {
	if !isFloat(d) {
		return Errorf(TypeError, "only floating-point types are supported as the default type")
	}
	s.defaults.dtype = d
	return nil
}

// DefaultDevice is where a factory makes a tensor when not given
// device= (torch.get_default_device()).
func (s *Session) DefaultDevice() Device { return s.defaults.device }

// SetDefaultDevice sets it (torch.set_default_device, or entering and
// leaving a torch.device block) and returns what it was.
func (s *Session) SetDefaultDevice(d Device) Device {
	was := s.defaults.device
	s.defaults.device = d
	return was
}

// defaulted is a factory's spec with the session's defaults where the
// call gave none: the device, and the dtype where the factory's own is
// the default floating type; a factory of an input (the *_like and
// new_* forms) takes the input's instead.
func (s *Session) defaulted(params []Param, sp TensorSpec) TensorSpec {
	if len(params) > 0 && params[0].Name == input.Name {
		return sp
	}
	if sp.DType == Float32 {
		sp.DType = s.defaults.dtype
	}
	sp.Device = s.defaults.device
	return sp
}
