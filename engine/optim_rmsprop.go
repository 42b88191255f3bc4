package engine

// RMSprop's step as PyTorch 2.11's torch/optim/rmsprop.py runs it on
// CUDA: each path (foreach and for-loop; plain, weight decay, momentum,
// centered, maximize; two dtypes) recorded event by event on the GPU in
// testdata/pyrules/optim_rmsprop.py, and unet_train's configuration in
// zoo_paths.py.

// rmspropState names RMSprop's per-parameter tensors in the order
// _init_group makes them: the step counter (on the host: capturable,
// which puts it on the GPU, is refused), then zeros_like each of
// square_avg, momentum_buffer with momentum, grad_avg when centered.
func rmspropState(opt GroupOptions) []string {
	names := []string{"step", "square_avg"}
	if opt.Momentum > 0 {
		names = append(names, "momentum_buffer")
	}
	if opt.Centered {
		names = append(names, "grad_avg")
	}
	return names
}

// rmspropStep is RMSprop's step over one group's parameters that have
// gradients: the state of each that has none, in order, then the
// group's update (RMSprop has no fused form).
func (s *Session) rmspropStep(o *Optimizer, opt GroupOptions, ps []*Tensor) error {
	for _, p := range ps {
		if o.state[p] == nil {
			if err := s.newState(o, p, false, rmspropState(opt)...); err != nil {
				return err
			}
		}
	}
	o.countSteps(ps)
	if opt.Impl == ForLoop {
		return s.rmspropForLoop(ps, opt)
	}
	return s.rmspropForeach(ps, opt)
}

// rmspropForeach is _multi_tensor_rmsprop: per (device, dtype) bucket,
// the gradients rebound to a new list by maximize (_foreach_neg) or
// else by weight decay (_foreach_add; with maximize it adds in place),
// the last bucket's list freed when the next bucket rebinds the name;
// then avg, a new list (_foreach_sqrt of square_avg, or centered
// _foreach_addcmul), the last bucket's freed once the new one exists.
// At return the gradients' list goes, then avg's.
func (s *Session) rmspropForeach(ps []*Tensor, opt GroupOptions) error {
	var grads, avg temps
	defer func() {
		s.freeTemps(&grads)
		s.freeTemps(&avg)
	}()
	for _, b := range buckets(ps) {
		s.freeTemps(&grads)
		if opt.Maximize || opt.WeightDecay != 0 {
			g, err := s.likeEach(b)
			if err != nil {
				return err
			}
			grads = g
		}
		a, err := s.likeEach(b)
		if err != nil {
			return err
		}
		s.freeTemps(&avg)
		avg = a
	}
	return nil
}

// rmspropForLoop is _single_tensor_rmsprop: per parameter, grad is
// grads[i] (the last parameter's new grad goes), then -grad with
// maximize (new), then grad + wd * param with weight decay (new); avg
// is square_avg.sqrt() (centered: addcmul, then sqrt_ in place), new,
// the previous one freed once it exists. At return, grad then avg.
func (s *Session) rmspropForLoop(ps []*Tensor, opt GroupOptions) error {
	grad := loopGrad{s: s}
	var avg *Tensor
	defer func() {
		grad.release()
		if avg != nil {
			s.dropTensor(avg)
		}
	}()
	for _, p := range ps {
		grad.release() // grad = grads[i], before maximize's -grad
		g, err := grad.bind(gradOf(p), opt.Maximize)
		if err == nil && opt.WeightDecay != 0 {
			_, err = grad.bind(g, true)
		}
		if err != nil {
			return err
		}
		a, err := s.like(p)
		if err != nil {
			return err
		}
		if avg != nil {
			s.dropTensor(avg)
		}
		avg = a
	}
	return nil
}
