package engine

// adamState names Adam's per-parameter tensors in the order _init_group
// makes them: the step counter (a GPU tensor only when fused; otherwise
// a host scalar the tool does not keep), exp_avg, exp_avg_sq and, with
// amsgrad, max_exp_avg_sq.
func adamState(opt GroupOptions) []string {
	names := []string{"exp_avg", "exp_avg_sq"}
	if opt.Impl == Fused {
		names = append([]string{"step"}, names...)
	}
	if opt.AMSGrad {
		names = append(names, "max_exp_avg_sq")
	}
	return names
}

// adamStep is Adam's (and AdamW's) step over one group's parameters
// that have gradients: the state of each that has none, in order, then
// the group's update.
func (s *Session) adamStep(o *Optimizer, opt GroupOptions, ps []*Tensor) error {
	for _, p := range ps {
		if o.state[p] == nil {
			if err := s.newState(o, p, adamState(opt)...); err != nil {
				return err
			}
		}
	}
	l2 := opt.WeightDecay != 0 && !opt.Decoupled
	switch opt.Impl {
	case Fused:
		return nil
	case ForLoop:
		return s.adamForLoop(ps, l2)
	}
	return s.adamForeach(ps, l2)
}

// adamForeach is _multi_tensor_adam: per (device, dtype) bucket, L2
// weight decay's list of new gradients (deleted once the moments are
// updated), then the list of square roots of exp_avg_sq (or of
// max_exp_avg_sq), which lives until the next bucket's list is made and
// the last until return.
func (s *Session) adamForeach(ps []*Tensor, l2 bool) error {
	var roots temps
	defer s.freeTemps(&roots)
	for _, b := range buckets(ps) {
		if l2 {
			decayed, err := s.likeEach(b)
			if err != nil {
				return err
			}
			s.freeTemps(&decayed)
		}
		r, err := s.likeEach(b)
		if err != nil {
			return err
		}
		s.freeTemps(&roots)
		roots = r
	}
	return nil
}

// adamForLoop is _single_tensor_adam: per parameter, L2 weight decay's
// new gradient, then denom = (sqrt(exp_avg_sq) / c).add_(eps): the
// square root is freed once the quotient exists. The loop's grad goes
// when the next parameter's is bound, its denom when the next denom is
// made; at return, grad then denom.
func (s *Session) adamForLoop(ps []*Tensor, l2 bool) error {
	var grad, denom *Tensor // the loop's locals when they are new tensors
	defer func() {
		for _, t := range []*Tensor{grad, denom} {
			if t != nil {
				s.dropTensor(t)
			}
		}
	}()
	for _, p := range ps {
		if grad != nil {
			s.dropTensor(grad)
			grad = nil
		}
		if l2 {
			t, err := s.like(p)
			if err != nil {
				return err
			}
			grad = t
		}
		root, err := s.like(p)
		if err != nil {
			return err
		}
		q, err := s.like(p)
		s.dropTensor(root)
		if err != nil {
			return err
		}
		if denom != nil {
			s.dropTensor(denom)
		}
		denom = q
	}
	return nil
}
