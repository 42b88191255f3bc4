package engine

import "math"

// scaled_dot_product_attention's math backend, which PyTorch 2.11 takes
// on the H200 where no fused kernel does: query, key and value of other
// than 4 dimensions (the fused kernels take only [B, H, T, D]), float64,
// a last dimension that is not contiguous (testdata/pyrules/
// tfm_sdpa_math.py). It is made of ordinary ops, so autograd records
// each and backward is theirs:
//
//   - a bool attn_mask is first made a float one of the query's dtype
//     (where: two 0-d scalars, the mask, the scalars freed), before
//     anything else, and freed last;
//   - q' = query * sqrt(scale), a tensor of the query's layout;
//   - is_causal: a bool ones(L, S), its tril, the ones freed, the tril
//     made a float mask as above, the tril freed;
//   - k' = key.transpose(-2, -1) * sqrt(scale);
//   - scores = matmul(q', k') (k' freed unless saved), the mask added in
//     place;
//   - PyTorch's _safe_softmax of the scores: the softmax (saved), a bool
//     scores == -inf, a bool of the rows that are all -inf, a 0-d zero
//     of the dtype; the zero, the rows and the bool freed (the scores
//     too, unless saved);
//   - out = matmul(softmax, value); then q', the softmax and the mask go
//     unless autograd saved them.

// attentionMath is the math backend's attention of q, k and v (same
// number of dimensions, matching batch dimensions), with a bool or
// query-dtype float mask, or causal; scale is scale=, or 0 for the
// default 1/sqrt(head dim).
func (s *Session) attentionMath(q, k, v, mask *Tensor, causal bool, scale float64) (*Tensor, error) {
	// what goes when the call returns, in this order: q', the softmax,
	// the mask
	var held []*Tensor
	defer func() {
		for _, t := range held {
			s.dropTensor(t)
		}
	}()
	var fmask *Tensor
	if mask != nil {
		var err error
		if fmask, err = s.floatMask(mask, q.DType); err != nil {
			return nil, err
		}
	}
	if scale == 0 {
		scale = 1 / math.Sqrt(float64(q.Shape[len(q.Shape)-1]))
	}
	root := ScalarOf(math.Sqrt(scale), true)
	qs, err := s.Op("mul", q, root)
	if err != nil {
		s.dropTensor(fmask)
		return nil, err
	}
	held = append(held, qs)
	if causal {
		m, n := q.Shape[len(q.Shape)-2], k.Shape[len(k.Shape)-2]
		ts, err := s.allocAll(q.Device(), tensorShape{[]int64{m, n}, boolDType}, tensorShape{[]int64{m, n}, boolDType})
		if err != nil {
			return nil, err
		}
		s.dropTensor(ts[0])
		fmask, err = s.floatMask(ts[1], q.DType)
		s.dropTensor(ts[1])
		if err != nil {
			return nil, err
		}
	}
	kt, err := s.Run(Ops["transpose"], Args{k, int64(-2), int64(-1)})
	if err != nil {
		s.dropTensor(fmask)
		return nil, err
	}
	ks, err := s.Op("mul", kt, root)
	s.dropTensor(kt)
	if err != nil {
		s.dropTensor(fmask)
		return nil, err
	}
	scores, err := s.Op("matmul", qs, ks)
	s.dropTensor(ks)
	if err == nil && fmask != nil {
		err = s.RunInPlace(Ops["add"], Args{scores, fmask, Scalar()})
	}
	var probs *Tensor
	if err == nil {
		probs, err = s.safeSoftmax(scores)
	}
	s.dropTensor(scores)
	if probs != nil {
		held = append(held, probs)
	}
	if fmask != nil {
		held = append(held, fmask)
	}
	if err != nil {
		return nil, err
	}
	return s.Op("matmul", probs, v)
}

// floatMask is a bool mask made a float one of dtype dt (where of two
// 0-d scalars on the device, freed once it exists); a float mask of dt
// is itself (another reference).
func (s *Session) floatMask(mask *Tensor, dt DType) (*Tensor, error) {
	switch mask.DType {
	case dt:
		return share(mask), nil
	case boolDType:
	default:
		return nil, NotModelledError("an attn_mask of a float dtype other than the query's")
	}
	ts, err := s.allocAll(mask.Device(), tensorShape{nil, dt}, tensorShape{nil, dt}, tensorShape{mask.Shape, dt})
	if err != nil {
		return nil, err
	}
	s.dropTensor(ts[0])
	s.dropTensor(ts[1])
	return ts[2], nil
}

// safeSoftmax is _safe_softmax(x, -1) of a tensor of at least one
// dimension: the softmax (SafeSoftmaxBackward0 saves it; its backward is
// softmax's), then the bool temporaries that zero rows of only -inf.
func (s *Session) safeSoftmax(x *Tensor) (*Tensor, error) {
	rows := append(append([]int64(nil), x.Shape[:len(x.Shape)-1]...), 1)
	ts, err := s.allocAll(x.Device(), tensorShape{x.Shape, x.DType}, tensorShape{x.Shape, boolDType}, tensorShape{rows, boolDType}, tensorShape{nil, x.DType})
	if err != nil {
		return nil, err
	}
	for i := 3; i > 0; i-- {
		s.dropTensor(ts[i])
	}
	s.record("SafeSoftmaxBackward0", ts[0], []*Tensor{x}, []*Tensor{ts[0]}, likeInput(2))
	return ts[0], nil
}
