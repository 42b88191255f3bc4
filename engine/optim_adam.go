package engine

// adamState names Adam's per-parameter tensors in the order _init_group
// makes them: the step counter (on the GPU only when fused: newState),
// exp_avg, exp_avg_sq and, with amsgrad, max_exp_avg_sq.
func adamState(opt GroupOptions) []string {
	names := []string{"step", "exp_avg", "exp_avg_sq"}
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
			if err := s.newState(o, p, opt.Impl == Fused, adamState(opt)...); err != nil {
				return err
			}
		}
	}
	o.countSteps(ps)
	l2 := opt.WeightDecay != 0 && !opt.Decoupled
	switch opt.Impl {
	case Fused:
		return nil
	case ForLoop:
		return s.adamForLoop(ps, opt, l2)
	}
	return s.adamForeach(ps, opt, l2)
}

// adamForeach is _multi_tensor_adam: per (device, dtype) bucket, one
// list of new gradients at most (maximize's negated ones, which L2
// weight decay adds into; else L2's decayed ones), deleted once the
// moments are updated, then the list of square roots of exp_avg_sq (or
// of max_exp_avg_sq), which lives until the next bucket's list is made
// and the last until return.
func (s *Session) adamForeach(ps []*Tensor, opt GroupOptions, l2 bool) error {
	var roots temps
	defer s.freeTemps(&roots)
	for _, b := range buckets(ps) {
		if opt.Maximize || l2 {
			grads, err := s.likeEach(b)
			if err != nil {
				return err
			}
			s.freeTemps(&grads)
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

// adamForLoop is _single_tensor_adam: per parameter, grad is -grad with
// maximize (new), then grad + wd * param with L2 weight decay (new); then
// denom = (sqrt(exp_avg_sq) / c).add_(eps): the square root is freed
// once the quotient exists, the quotient when the next one is made; at
// return, grad then denom.
func (s *Session) adamForLoop(ps []*Tensor, opt GroupOptions, l2 bool) error {
	grad := loopGrad{s: s}
	var denom *Tensor
	defer func() {
		grad.release()
		if denom != nil {
			s.dropTensor(denom)
		}
	}()
	for _, p := range ps {
		g, err := grad.bind(gradOf(p), opt.Maximize)
		if err == nil && l2 {
			_, err = grad.bind(g, true)
		}
		if err != nil {
			return err
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
