package engine

// CheckpointFunction.backward's errors: under torch.autograd.grad, and
// when the rerun function's output needs no gradient.
var (
	errReentrantGrad = Errorf(RuntimeError, "When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an `inputs` parameter to .backward(). To resolve this error, you can either set use_reentrant=False, or call .backward() without passing the `inputs` argument.")
	errNoOutputGrad  = Errorf(RuntimeError, "none of output has requires_grad=True, this checkpoint() is not necessary")
)

// ReentrantCheckpoint is the reentrant checkpoint's node: out, made by
// the function under no_grad, becomes the output of a
// CheckpointFunctionBackward that saves the tensor inputs (when one of
// them requires grad; else out needs none, as in PyTorch). Its backward
// calls rerun, with grad enabled, on detached inputs (new references the
// callee owns; each a leaf requiring grad where its input did), runs
// backward from the output rerun returns with the incoming gradient,
// calls release (the callee lets go of that output), and hands each input
// the gradient its detached leaf got. The node keeps rng RNG states as
// BeginCheckpoint's region does, and calls dropped when it lets go of its
// saved tensors (at once when no node is made).
func (s *Session) ReentrantCheckpoint(out *Tensor, inputs []*Tensor, rng int, rerun func(detached []*Tensor) (res *Tensor, release func(), err error), dropped func()) error {
	states, err := s.rngStates(rng)
	if err != nil {
		dropped()
		return err
	}
	tmpl := make([]Tensor, len(inputs))
	needs := make([]bool, len(inputs))
	for i, t := range inputs {
		tmpl[i] = *t
		tmpl[i].fn, tmpl[i].slot = nil, nil
		needs[i] = t.requiresGrad()
	}
	s.record("CheckpointFunctionBackward", out, inputs, inputs, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		if s.ckpt.grad {
			return nil, errReentrantGrad
		}
		detached := make([]*Tensor, len(tmpl))
		given := make([]*Tensor, len(tmpl))
		for i := range tmpl {
			d := tmpl[i]
			d.st.refs++
			if needs[i] {
				d.slot = newGradSlot()
			}
			detached[i] = &d
			given[i] = share(&d)
		}
		defer func() {
			for _, d := range detached {
				s.dropTensor(d)
			}
		}()
		was := s.SetGradEnabled(true)
		res, release, err := rerun(given)
		s.SetGradEnabled(was)
		if err != nil {
			return nil, err
		}
		defer release()
		if !res.requiresGrad() {
			return nil, errNoOutputGrad
		}
		if _, err := s.runGraph(res, g, nil, false); err != nil {
			return nil, err
		}
		grads := make([]*Tensor, len(detached))
		for i, d := range detached {
			if d.slot != nil {
				grads[i], d.slot.grad = d.slot.grad, nil
			}
		}
		s.event("checkpoint (reentrant): forward rerun with grad in backward and backpropagated through at once")
		return grads, nil
	})
	made := out.fn != nil && out.fn.name == "CheckpointFunctionBackward"
	for _, st := range states {
		if made {
			out.fn.saved = append(out.fn.saved, savedTensor{st: st, what: "an RNG state"})
			st.saved++
			continue
		}
		s.release(st) // no node: the context goes with the call
	}
	if made {
		out.fn.dropped = dropped
	} else {
		dropped()
	}
	return nil
}
