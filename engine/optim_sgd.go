package engine

// errFusedNewBuffers is what the tool says of a fused SGD step where some
// parameters have momentum buffers and others not yet (PyTorch makes
// them only when none has one).
var errFusedNewBuffers = Refusef(NotImplementedError, "a fused SGD step where only some parameters have momentum buffers is not modelled by gpumemrepl")

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

// sgdBucket is _multi_tensor_sgd on one (device, dtype) bucket: one
// list of new gradients at most -- maximize's negated ones (which weight
// decay then adds into), else weight decay's grad + wd * param; a
// parameter's first momentum buffer is a clone of its gradient;
// nesterov and the update are in place. The list goes before the next
// bucket, last item first.
func (s *Session) sgdBucket(o *Optimizer, opt GroupOptions, ps []*Tensor) error {
	var grads temps
	defer s.freeTemps(&grads)
	if opt.Maximize || opt.WeightDecay != 0 {
		var err error
		if grads, err = s.likeEach(gradsOf(ps)); err != nil {
			return err
		}
	}
	if opt.Momentum == 0 {
		return nil
	}
	for _, p := range ps {
		if o.state[p] == nil {
			if err := s.newState(o, p, false, "momentum_buffer"); err != nil {
				return err
			}
		}
	}
	return nil
}

// loopGrad is a for-loop step's local grad: a new tensor it holds (nil
// while it is a parameter's own .grad), freed when a new value is bound
// to it -- after that value exists -- or at return.
type loopGrad struct {
	s     *Session
	local *Tensor
}

// bind makes grad a new tensor like t (t itself when fresh is false).
func (l *loopGrad) bind(t *Tensor, fresh bool) (*Tensor, error) {
	var n *Tensor
	if fresh {
		var err error
		if n, err = l.s.like(t); err != nil {
			return nil, err
		}
	}
	if l.local != nil {
		l.s.dropTensor(l.local)
	}
	l.local = n
	if n == nil {
		return t, nil
	}
	return n, nil
}

func (l *loopGrad) release() {
	if l.local != nil {
		l.s.dropTensor(l.local)
		l.local = nil
	}
}

// sgdForLoop is _single_tensor_sgd: per parameter, grad is -grad with
// maximize (new), then grad + wd * param with weight decay (new), the
// first momentum buffer a clone of it, then nesterov's grad + momentum *
// buf (new) or the buffer itself.
func (s *Session) sgdForLoop(o *Optimizer, opt GroupOptions, ps []*Tensor) error {
	grad := loopGrad{s: s}
	defer grad.release()
	for _, p := range ps {
		g, err := grad.bind(gradOf(p), opt.Maximize)
		if err == nil && opt.WeightDecay != 0 {
			g, err = grad.bind(g, true)
		}
		if err != nil {
			return err
		}
		if opt.Momentum == 0 {
			continue
		}
		if o.state[p] == nil {
			if err := s.newState(o, p, false, "momentum_buffer"); err != nil {
				return err
			}
		}
		if _, err := grad.bind(g, opt.Nesterov); err != nil {
			return err
		}
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
		if err := s.newState(o, p, false, "momentum_buffer"); err != nil {
			return err
		}
	}
	return nil
}
