package engine

// torch.nn.utils.clip_grad_norm_'s memory on CUDA (testdata/pyrules/
// clip_grad.py, recorded on the H200): _foreach_norm makes a scratch
// of one opmath element per 65,536-element chunk of the longest
// gradient, for every gradient, then each
// gradient's norm (a 0-d tensor of its dtype), and frees the scratch;
// with foreach=False each norm is torch.linalg.vector_norm's (with its
// reduction's temporaries). The norms are stacked, the stack's norm is
// the total (kept, returned), the stack and the norms go; the clip
// coefficient max_norm / (total + 1e-6) is three 0-d tensors (the sum,
// its reciprocal, the product; the first two freed), clamped to at most
// 1 (another), and the gradients are scaled in place; both coefficients
// go at the return.

// foreachChunk is the elements of a gradient one block of
// _foreach_norm's kernel takes.
const foreachChunk = 65536

// ClipGradNorm is clip_grad_norm_ over grads (the parameters' .grad
// that are not None, in order; all of one device and dtype) with the
// foreach kernels or not; p is norm_type. It returns the total norm.
func (s *Session) ClipGradNorm(grads []*Tensor, p float64, foreach bool) (*Tensor, error) {
	for _, g := range grads[1:] {
		if g.Device() != grads[0].Device() || g.DType != grads[0].DType {
			return nil, NotModelledError("clip_grad_norm_ of gradients of several devices or dtypes (PyTorch groups them in the order of a C++ hash map)")
		}
	}
	if !foreach && p != 2 {
		return nil, NotModelledError("clip_grad_norm_(foreach=False) of other than the 2-norm")
	}
	prev := s.gradEnabled
	s.gradEnabled = false
	defer func() { s.gradEnabled = prev }()
	total, err := s.totalNorm(grads, foreach)
	if err != nil {
		return nil, err
	}
	coef := tensorShape{nil, total.DType}
	ts, err := s.allocAll(total.Device(), coef, coef, coef)
	if err == nil {
		s.dropTensor(ts[1])
		s.dropTensor(ts[0])
		var clamped *Tensor
		clamped, err = s.alloc(nil, total.DType, total.Device())
		s.dropTensor(ts[2])
		s.dropTensor(clamped)
	}
	for _, g := range grads {
		s.written(g)
	}
	if err != nil {
		s.dropTensor(total)
		return nil, err
	}
	return total, nil
}

// totalNorm is the norm of the gradients' norms: the norms, their
// stack, its norm; then the stack and the norms go.
func (s *Session) totalNorm(grads []*Tensor, foreach bool) (*Tensor, error) {
	norms, err := s.gradNorms(grads, foreach)
	defer func() {
		for _, n := range norms {
			s.dropTensor(n)
		}
	}()
	if err != nil {
		return nil, err
	}
	stacked, err := s.Stack(norms, 0)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(stacked)
	return s.Op("norm", stacked)
}

// gradNorms are each gradient's norm, as _foreach_norm or one
// vector_norm each makes them.
func (s *Session) gradNorms(grads []*Tensor, foreach bool) ([]*Tensor, error) {
	var norms []*Tensor
	if !foreach {
		for _, g := range grads {
			n, err := s.Op("norm", g)
			if err != nil {
				return norms, err
			}
			norms = append(norms, n)
		}
		return norms, nil
	}
	var chunks uint64
	for _, g := range grads {
		chunks = max(chunks, ceilDiv(g.Numel(), foreachChunk))
	}
	dev := grads[0].Device()
	scratch, err := s.alloc([]int64{int64(uint64(len(grads)) * chunks * opmath(grads[0].DType))}, DTypes["uint8"], dev)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(scratch)
	for _, g := range grads {
		n, err := s.alloc(nil, g.DType, dev)
		if err != nil {
			return norms, err
		}
		norms = append(norms, n)
	}
	return norms, nil
}
