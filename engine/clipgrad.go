package engine

import "slices"

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
// that are not None, in order) with the foreach kernels or not; p is
// norm_type. It returns the total norm.
func (s *Session) ClipGradNorm(grads []*Tensor, p float64, foreach bool) (*Tensor, error) {
	groups, err := gradGroups(grads)
	if err != nil {
		return nil, err
	}
	if !foreach && p != 2 {
		return nil, NotModelledError("clip_grad_norm_(foreach=False) of other than the 2-norm")
	}
	prev := s.gradEnabled
	s.gradEnabled = false
	defer func() { s.gradEnabled = prev }()
	total, err := s.totalNorm(groups, foreach)
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

// gradGroups are the gradients grouped by device and dtype, as
// _group_tensors_by_device_and_dtype returns them: in the order its C++
// unordered_map iterates them, which for one or two groups is the
// reverse of the order their first gradients come in (libstdc++ puts a
// new key first; clip_grad.py's float32 and float16 gradients are
// normed float16 first). More groups, whose order depends on the map's
// buckets, and gradients of several devices (their norms copied to the
// first's, not recorded) are refused.
func gradGroups(grads []*Tensor) ([][]*Tensor, error) {
	var groups [][]*Tensor
	for _, g := range grads {
		i := slices.IndexFunc(groups, func(gr []*Tensor) bool { return gr[0].Device() == g.Device() && gr[0].DType == g.DType })
		if i < 0 {
			i, groups = len(groups), append(groups, nil)
		}
		groups[i] = append(groups[i], g)
	}
	switch {
	case len(groups) > 2:
		return nil, NotModelledError("clip_grad_norm_ of gradients of more than two dtypes (PyTorch groups them in the order of a C++ hash map)")
	case len(groups) == 2 && groups[0][0].Device() != groups[1][0].Device():
		return nil, NotModelledError("clip_grad_norm_ of gradients of several devices")
	}
	slices.Reverse(groups)
	return groups, nil
}

// totalNorm is the norm of the gradients' norms: each group's norms,
// their stack, its norm; then the stack goes, and the norms, last
// first, as CPython frees the list that holds them.
func (s *Session) totalNorm(groups [][]*Tensor, foreach bool) (*Tensor, error) {
	var norms []*Tensor
	defer func() {
		for _, n := range slices.Backward(norms) {
			s.dropTensor(n)
		}
	}()
	for _, grads := range groups {
		ns, err := s.gradNorms(grads, foreach)
		norms = append(norms, ns...)
		if err != nil {
			return nil, err
		}
	}
	var stacked *Tensor
	var err error
	if dt := norms[len(norms)-1].DType; len(groups) == 2 && groups[0][0].DType != dt {
		// norms of two dtypes: the stack is one tensor of the promoted
		// dtype, each norm converted into it (clip_grad.py: no other
		// allocation)
		stacked, err = s.alloc([]int64{int64(len(norms))}, promoteTypes(groups[0][0].DType, dt), norms[0].Device())
	} else {
		stacked, err = s.Stack(norms, 0)
	}
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
