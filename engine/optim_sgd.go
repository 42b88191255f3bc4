package engine

import "errors"

// errFusedNewBuffers is what the tool says of a fused SGD step where some
// parameters have momentum buffers and others not yet (PyTorch makes
// them only when none has one).
var errFusedNewBuffers = errors.New("NotImplementedError: a fused SGD step where only some parameters have momentum buffers is not modelled by gpumemrepl")

// sgdStep is SGD's step over one group's parameters that have gradients.
func (s *Session) sgdStep(o *Optimizer, opt GroupOptions, ps []*Tensor) error {
	switch opt.Impl {
	case Fused:
		return s.sgdFused(o, opt, ps)
	case ForLoop:
		return s.sgdForLoop(o, opt, ps)
	}
	for _, b := range buckets(ps) {
		if err := s.sgdBucket(o, opt, b); err != nil {
			return err
		}
	}
	return nil
}

// sgdBucket is _multi_tensor_sgd on one (device, dtype) bucket: weight
// decay makes a list of new gradients (grad + wd * param); a parameter's
// first momentum buffer is a clone of its (decayed) gradient; nesterov
// and the update are in place. The decayed list goes before the next
// bucket, last item first.
func (s *Session) sgdBucket(o *Optimizer, opt GroupOptions, ps []*Tensor) error {
	var decayed temps
	defer s.freeTemps(&decayed)
	if opt.WeightDecay != 0 {
		var err error
		if decayed, err = s.likeEach(gradsOf(ps)); err != nil {
			return err
		}
	}
	if opt.Momentum == 0 {
		return nil
	}
	for _, p := range ps {
		if o.state[p] == nil {
			if err := s.newState(o, p, "momentum_buffer"); err != nil {
				return err
			}
		}
	}
	return nil
}

// sgdForLoop is _single_tensor_sgd: per parameter, the decayed gradient
// (new), the first momentum buffer (a clone of it), nesterov's
// grad + momentum * buf (new, and the decayed one goes); the local
// gradient goes when the next parameter's is bound, the last at return.
func (s *Session) sgdForLoop(o *Optimizer, opt GroupOptions, ps []*Tensor) error {
	var local *Tensor // the loop's grad when it is a new tensor
	defer func() {
		if local != nil {
			s.dropTensor(local)
		}
	}()
	rebind := func(t *Tensor) {
		if local != nil {
			s.dropTensor(local)
		}
		local = t
	}
	for _, p := range ps {
		rebind(nil)
		grad := gradOf(p)
		if opt.WeightDecay != 0 {
			t, err := s.like(grad)
			if err != nil {
				return err
			}
			rebind(t)
			grad = t
		}
		if opt.Momentum == 0 {
			continue
		}
		if o.state[p] == nil {
			if err := s.newState(o, p, "momentum_buffer"); err != nil {
				return err
			}
		}
		if !opt.Nesterov {
			rebind(nil) // grad = buf
			continue
		}
		t, err := s.like(grad)
		if err != nil {
			return err
		}
		rebind(t)
	}
	return nil
}

// sgdFused is _fused_sgd: with momentum, the first step makes every
// buffer (torch.empty_like of each gradient, in the group's order); the
// kernel makes nothing.
func (s *Session) sgdFused(o *Optimizer, opt GroupOptions, ps []*Tensor) error {
	if opt.Momentum == 0 {
		return nil
	}
	missing := 0
	for _, p := range ps {
		if o.state[p] == nil {
			missing++
		}
	}
	switch missing {
	case 0:
		return nil
	case len(ps):
	default:
		return errFusedNewBuffers
	}
	for _, p := range ps {
		if err := s.newState(o, p, "momentum_buffer"); err != nil {
			return err
		}
	}
	return nil
}
