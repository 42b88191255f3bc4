package engine

// NewParameter makes an initialised float32 parameter of shape on dev,
// as an nn module's constructor does (on the host unless given device=).
func (s *Session) NewParameter(shape []int64, dev Device) (*Tensor, error) {
	t := &Tensor{Shape: shape, DType: Float32, slot: &gradSlot{}}
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

// Optimizer is torch.optim.SGD, Adam or AdamW over parameters.
// Its state tensors are allocated at the first step, as in PyTorch.
type Optimizer struct {
	kind     string // SGD, Adam or AdamW
	Params   []*Tensor
	momentum float64
	state    map[*Tensor][]*Tensor
}

// Step is opt.step() as PyTorch's default (foreach) implementation does
// it on CUDA: parameters without a gradient are skipped; Adam(W) makes
// exp_avg and exp_avg_sq per parameter on its first step, then each
// step a temporary per parameter (the square roots of exp_avg_sq), freed
// newest first; SGD with momentum clones each gradient into its
// momentum buffer on the first step. The updates themselves are in place.
func (s *Session) Step(o *Optimizer) error {
	var params []*Tensor
	for _, p := range o.Params {
		if p.slot.grad != nil {
			params = append(params, p)
		}
	}
	for _, p := range params {
		if _, ok := o.state[p]; ok {
			continue
		}
		n := 0
		switch {
		case o.kind == "SGD" && o.momentum != 0:
			n = 1
		case o.kind != "SGD":
			n = 2
		}
		var st []*Tensor
		for range n {
			t, err := s.alloc(p.Shape, p.DType, p.Device())
			if err != nil {
				for _, t := range st {
					s.dropTensor(t)
				}
				return err
			}
			st = append(st, t)
		}
		o.state[p] = st
	}
	if o.kind == "SGD" {
		return nil
	}
	var tmp []*Tensor
	defer func() {
		for i := len(tmp) - 1; i >= 0; i-- {
			s.dropTensor(tmp[i])
		}
	}()
	for _, p := range params {
		t, err := s.alloc(p.Shape, p.DType, p.Device())
		if err != nil {
			return err
		}
		tmp = append(tmp, t)
	}
	return nil
}

// FreeOptimizer drops an optimizer's state.
func (s *Session) FreeOptimizer(o *Optimizer) {
	for _, p := range o.Params {
		for _, t := range o.state[p] {
			s.dropTensor(t)
		}
	}
	o.state = nil
}
