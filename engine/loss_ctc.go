package engine

// torch._ctc_loss on CUDA, as memory: PyTorch 2.11's native kernel
// (native/cuda/LossCTC.cu), which F.ctc_loss and nn.CTCLoss call
// (torchpy/lib/nn_loss.py composes them as LossCTC.cpp's ctc_loss_impl
// does: the targets as int64 on the device, zero_infinity's where, the
// reduction). Forward makes the target and input lengths as int64
// tensors on the device and the batch's offsets into the targets (one
// int64 each per sequence), then log_alpha (batch x T x 2*S+1, S the
// longest target) and the loss (one per sequence); the three small ones
// go as it returns, the node saves log_probs, the targets, the loss and
// log_alpha. Backward makes the three small ones again, log_beta
// (log_alpha's shape) and the gradient (log_probs' shape); past the
// kernel's size heuristic (2*T + 2.4*batch + 0.2*classes > 450) it also
// sums the blanks' alphas and betas (batch x T x S+1) and reduces them
// by logsumexp, and with zero_infinity replaces the gradient by a
// where. Recorded (testdata/pyrules/loss_ctc.py: padded and
// concatenated targets, each reduction, zero_infinity, shorter inputs,
// both sides of the heuristic, forward and backward, every statement
// matching); zero_infinity past the heuristic, not recorded, is
// estimated. cuDNN's CTC (int32 targets on the host, blank 0, every
// input the full length) is refused.
func init() {
	declare(&OpDef{Name: "_ctc_loss", Function: true,
		Params: []Param{{Name: "log_probs", Kind: TensorParam}, {Name: "targets", Kind: TensorParam},
			{Name: "input_lengths", Kind: DimsParam}, {Name: "target_lengths", Kind: DimsParam},
			{Name: "blank", Kind: IntParam, Default: "0"}, boolParam("zero_infinity", "False")},
		Memory: "the lengths and offsets (int64 on the device, freed as it returns), log_alpha (batch x T x 2*S+1) and the loss (one per sequence), returned as (loss, log_alpha) and saved with log_probs and the targets; backward the lengths and offsets again, log_beta and the gradient, past a size heuristic the blanks' sum and its logsumexp",
		runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
			outs, err := s.ctcLoss(a.Tensor(0), a.Tensor(1), a.Ints(2), a.Ints(3), a.Int(4), a.Bool(5))
			return outs, true, err
		}})
}

// ctcLoss is torch._ctc_loss(log_probs, targets, input_lengths,
// target_lengths, blank, zero_infinity) of (T, batch, classes)
// log-probabilities: the loss and log_alpha.
func (s *Session) ctcLoss(lp, targets *Tensor, il, tl []int64, blank int64, zeroInf bool) ([]*Tensor, error) {
	dev, err := sameDevice(lp, targets)
	switch {
	case err != nil:
		return nil, err
	case len(lp.Shape) != 3:
		return nil, Errorf(RuntimeError, "Expected 3-dimensional tensor, but got %d-dimensional tensor for argument #1 'log_probs' (while checking arguments for ctc_loss_gpu)", len(lp.Shape))
	case len(targets.Shape) < 1 || len(targets.Shape) > 2:
		return nil, Errorf(RuntimeError, "Expected 1 to 2 dimensions, but got %d-dimensional tensor for argument #2 'targets' (while checking arguments for ctc_loss_gpu)", len(targets.Shape))
	case !dev.CUDA:
		return nil, NotModelledError("torch._ctc_loss on the host")
	case lp.DType.Name != "float32" && lp.DType.Name != "float64":
		return nil, Errorf(RuntimeError, "\"ctc_loss_cuda\" not implemented for '%s'", tensorTypes[lp.DType.Name])
	case targets.DType.Name != "int64" && targets.DType.Name != "int32":
		return nil, Errorf(RuntimeError, "Expected tensor for argument #2 'targets' to have scalar type Long; but got %s instead (while checking arguments for ctc_loss_gpu)", tensorType(targets))
	}
	batch := lp.Shape[1]
	if blank < 0 || blank >= lp.Shape[2] {
		return nil, Errorf(RuntimeError, "blank must be in label range")
	}
	if int64(len(il)) != batch {
		return nil, Errorf(RuntimeError, "input_lengths must be of size batch_size")
	}
	if int64(len(tl)) != batch {
		return nil, Errorf(RuntimeError, "target_lengths must be of size batch_size")
	}
	var maxTarget int64
	for b, n := range tl {
		maxTarget = max(maxTarget, n)
		if il[b] > lp.Shape[0] {
			return nil, Errorf(RuntimeError, "Expected input_lengths to have value at most %d, but got value %d (while checking arguments for ctc_loss_gpu)", lp.Shape[0], il[b])
		}
	}
	if len(targets.Shape) == 2 && targets.Shape[1] < maxTarget {
		return nil, Errorf(RuntimeError, "Expected tensor to have size at least %d at dimension 1, but got size %d for argument #2 'targets' (while checking arguments for ctc_loss_gpu)", maxTarget, targets.Shape[1])
	}
	if zeroInf && ctcLarge(lp.Shape) {
		if err := s.estimate(nil, "F.ctc_loss", "%s with zero_infinity, whose backward takes the blanks' logsumexp path and then a where: from PyTorch's source, not recorded so (testdata/pyrules/loss_ctc.py has zero_infinity below the size heuristic only)", argShapes(Args{lp, targets})); err != nil {
			return nil, err
		}
	}
	small, err := s.ctcLengths(dev, batch)
	if err != nil {
		return nil, err
	}
	outs, err := s.allocAll(dev, tensorShape{[]int64{batch, lp.Shape[0], 2*maxTarget + 1}, lp.DType}, tensorShape{[]int64{batch}, lp.DType})
	s.dropAll(small)
	if err != nil {
		return nil, err
	}
	alpha, nll := outs[0], outs[1]
	s.record("CtcLossBackward0", nll, []*Tensor{lp}, []*Tensor{lp, targets, nll, alpha}, ctcLossBackward(lp, alpha.Shape, maxTarget, zeroInf))
	return []*Tensor{nll, alpha}, nil
}

// ctcLengths makes the kernels' target lengths, input lengths and
// batch offsets on the device (int64, one per sequence), in that order,
// returned so that dropAll frees them as C++ destroys them (the
// reverse of their declarations: the input lengths, the target
// lengths, the offsets).
func (s *Session) ctcLengths(dev Device, batch int64) ([]*Tensor, error) {
	int64s := DTypes["int64"]
	ts, err := s.allocAll(dev, tensorShape{[]int64{batch}, int64s}, tensorShape{[]int64{batch}, int64s}, tensorShape{[]int64{batch}, int64s})
	if err != nil {
		return nil, err
	}
	return []*Tensor{ts[2], ts[0], ts[1]}, nil
}

// ctcLossBackward is _ctc_loss_backward's: the lengths and offsets,
// log_beta and the gradient; past the size heuristic the blanks' sum
// and logsumexp, and zero_infinity's where.
func ctcLossBackward(logProbs *Tensor, alphaShape []int64, maxTarget int64, zeroInf bool) backward {
	shape, dt, dev := logProbs.Shape, logProbs.DType, logProbs.Device()
	return func(s *Session, _ *node, _ *Tensor) ([]*Tensor, error) {
		small, err := s.ctcLengths(dev, shape[1])
		if err != nil {
			return []*Tensor{nil}, err
		}
		defer s.dropAll(small)
		ts, err := s.allocAll(dev, tensorShape{alphaShape, dt}, tensorShape{shape, dt})
		if err != nil {
			return []*Tensor{nil}, err
		}
		beta, grad := ts[0], ts[1]
		defer s.dropTensor(beta)
		if !ctcLarge(shape) {
			return []*Tensor{grad}, nil
		}
		T, batch := shape[0], shape[1]
		// the blanks' alpha + beta, then its logsumexp over the targets
		sum, err := s.alloc([]int64{batch, T, maxTarget + 1}, dt, dev)
		if err != nil {
			s.dropTensor(grad)
			return []*Tensor{nil}, err
		}
		lse, err := s.Run(Ops["logsumexp"], Args{sum, []int64{2}, true})
		if err != nil {
			s.dropTensor(sum)
			s.dropTensor(grad)
			return []*Tensor{nil}, err
		}
		s.dropTensor(lse)
		s.dropTensor(sum)
		if !zeroInf {
			return []*Tensor{grad}, nil
		}
		// grad = where(nll == inf, zeros({}), grad): the zeros made first,
		// the old gradient freed as it is replaced, then the mask, the zeros
		ws, err := s.allocAll(dev, tensorShape{nil, dt}, tensorShape{[]int64{1, batch, 1}, boolDType}, tensorShape{shape, dt})
		s.dropTensor(grad)
		if err != nil {
			return []*Tensor{nil}, err
		}
		s.dropAll(ws[:2])
		return []*Tensor{ws[2]}, nil
	}
}

// ctcLarge is the backward's heuristic for log-probabilities of shape
// (T, batch, classes): past it, the blanks' logsumexp path.
func ctcLarge(shape []int64) bool {
	return 2*shape[0]+(24*shape[1])/10+(2*shape[2])/10 > 450
}
