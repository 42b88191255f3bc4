package engine

import (
	"fmt"
	"slices"
)

// One pair of einsum's operands, both laid out on the aligned
// dimensions, is aten's sumproduct_pair: with no dimension to contract,
// their product (mul); else the dimensions both have and keep (batch),
// the left's own, the contracted ones, the right's own: each operand
// permuted to (batch, own, contracted) or (batch, contracted, own) and
// reshaped to three dimensions (a copy where no view fits), one bmm,
// whose output is viewed and permuted back. When every one of the
// right's own dimensions comes before the left's in the output, the two
// swap sides, so the product comes out in the output's order
// (ops_einsum_forms.py: 'ij,jk->ki' is contiguous).

// sumProduct is left and right contracted over the aligned dimensions
// sum, which stay as dimensions of size 1.
func (s *Session) sumProduct(left, right *Tensor, sum []int) (*Tensor, error) {
	if len(sum) == 0 {
		return s.Op("mul", left, right)
	}
	left, right = share(left), share(right)
	defer func() { s.dropTensor(right); s.dropTensor(left) }()
	var batch, lo, ro []int
	sumSize := int64(1)
	for d := range left.Shape {
		sl, sr := left.Shape[d] != 1, right.Shape[d] != 1
		if slices.Contains(sum, d) {
			var err error
			switch {
			case sl && sr:
				if left.Shape[d] != right.Shape[d] {
					return nil, Errorf(RuntimeError, "non-broadcast dimensions must match")
				}
				sumSize *= left.Shape[d]
			case sl:
				err = s.sumKept(&left, []int{d})
			case sr:
				err = s.sumKept(&right, []int{d})
			}
			if err != nil {
				return nil, err
			}
			continue
		}
		switch {
		case sl && sr:
			if left.Shape[d] != right.Shape[d] {
				return nil, Errorf(RuntimeError, "non-broadcast dimensions must match")
			}
			batch = append(batch, d)
		case sl:
			lo = append(lo, d)
		default:
			ro = append(ro, d)
		}
	}
	if len(lo) > 0 && len(ro) > 0 && ro[len(ro)-1] < lo[0] {
		left, right, lo, ro = right, left, ro, lo
	}
	sizeOf := func(t *Tensor, ds []int) int64 {
		n := int64(1)
		for _, d := range ds {
			n *= t.Shape[d]
		}
		return n
	}
	var outSize []int64
	for _, d := range slices.Concat(batch, lo) {
		outSize = append(outSize, left.Shape[d])
	}
	for range sum {
		outSize = append(outSize, 1)
	}
	for _, d := range ro {
		outSize = append(outSize, right.Shape[d])
	}
	lperm, rperm := slices.Concat(batch, lo, sum, ro), slices.Concat(batch, sum, ro, lo)
	operm := make([]int64, len(lperm))
	for i, d := range lperm {
		operm[d] = int64(i)
	}
	bs, ls, rs := sizeOf(left, batch), sizeOf(left, lo), sizeOf(right, ro)
	l, err := s.permuteReshape(left, lperm, []int64{bs, ls, sumSize})
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(l)
	r, err := s.permuteReshape(right, rperm, []int64{bs, sumSize, rs})
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(r) // the reshapes' copies go after the product, the right's first
	p, err := s.cublasBmm(l, r)
	if err != nil {
		return nil, err
	}
	v, err := s.View(p, outSize)
	s.dropTensor(p)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(v)
	return s.Permute(v, operm)
}

// sumKept replaces *t, a reference the caller holds, with it summed
// over dims kept as dimensions of size 1 (none: *t as it is).
func (s *Session) sumKept(t **Tensor, dims []int) error {
	if len(dims) == 0 {
		return nil
	}
	r, err := s.einsumSum(*t, dims, true)
	if err != nil {
		return err
	}
	s.dropTensor(*t)
	*t = r
	return nil
}

// permuteReshape is t.permute(perm).reshape(shape).
func (s *Session) permuteReshape(t *Tensor, perm []int, shape []int64) (*Tensor, error) {
	dims := make([]int64, len(perm))
	for i, d := range perm {
		dims[i] = int64(d)
	}
	p, err := s.Permute(t, dims)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(p)
	return s.Reshape(p, shape)
}

// einsumSum is t summed over dims (keeping them as dimensions of size 1
// when keep): SumBackward1, whose backward broadcasts the gradient. Its
// kernel reduces t as laid out in memory: a whole tensor (a 1-element
// output: sum's buffers over every element), or one run of dimensions
// of a dense layout, the innermost (nothing more: up to 1024 elements,
// or in the range torch.sum's innermost reductions were probed,
// innerProbed) or an outer one (the buffer across blocks); others are
// refused.
func (s *Session) einsumSum(t *Tensor, dims []int, keep bool) (*Tensor, error) {
	var shape []int64
	var from []int // the input dimension of each of the output's, -1 for one kept of size 1
	for d, n := range t.Shape {
		switch {
		case !slices.Contains(dims, d):
			shape, from = append(shape, n), append(from, d)
		case keep:
			shape, from = append(shape, 1), append(from, -1)
		}
	}
	st := layoutOf(t)
	acc := opmath(t.DType)
	var temps func() error
	switch {
	case numel(shape) == 1:
		temps = func() error { return s.reductionTemps(t, acc) }
	case !dense(t.Shape, st):
		return nil, NotModelledError("torch.einsum summing part of a diagonal or broadcast operand")
	default:
		outer, red, inner, ok := reducedRun(t.Shape, st, dims)
		switch {
		case !ok:
			return nil, NotModelledError("torch.einsum summing dimensions that are not one run in memory")
		case inner == 1 && red > maxInnerReduction && t.Device().CUDA && !innerProbed("sum", t.DType, red, outer):
			return nil, NotModelledError(fmt.Sprintf("torch.einsum summing an innermost run of more than %d elements outside the range of torch.sum's probe", maxInnerReduction))
		case inner > 1:
			temps = func() error {
				x := share(t)
				defer s.dropTensor(x)
				x.Shape, x.strides, x.strided, x.expanded = []int64{outer, red, inner}, nil, false, false
				return s.outerReductionTemps(x, []int{1}, acc)
			}
		}
	}
	out, err := s.alloc(shape, summed(t.DType), t.Device())
	if err != nil {
		return nil, err
	}
	if ost := reducedStrides(t.Shape, st, shape, from); !contiguous(shape, ost) {
		out.strides, out.strided = ost, true
	}
	if temps != nil && t.Device().CUDA {
		if err := temps(); err != nil {
			s.dropTensor(out)
			return nil, err
		}
	}
	s.record("SumBackward1", out, []*Tensor{t}, nil, sumBackward)
	return out, nil
}

// reducedRun is the reduction of dims of a tensor of shape laid out
// densely by strides as one contiguous tensor [outer, red, inner]:
// false when the reduced dimensions are not one run in memory.
func reducedRun(shape, strides []int64, dims []int) (outer, red, inner int64, ok bool) {
	order := memoryOrder(shape, strides)
	outer, red, inner = 1, 1, 1
	stage := 0 // 0: outer, 1: reduced, 2: inner
	for _, d := range order {
		if shape[d] == 1 {
			continue
		}
		reduced := slices.Contains(dims, d)
		switch {
		case reduced && stage == 2:
			return 0, 0, 0, false
		case reduced:
			stage, red = 1, red*shape[d]
		case stage == 0:
			outer *= shape[d]
		default:
			stage, inner = 2, inner*shape[d]
		}
	}
	return outer, red, inner, true
}

// memoryOrder is a tensor's dimensions from the outermost in memory (the
// largest stride) in; of equal strides the later dimension inside.
func memoryOrder(shape, strides []int64) []int {
	order := dimRange(0, len(shape))
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case strides[a] > strides[b]:
			return -1
		case strides[a] < strides[b]:
			return 1
		}
		return 0
	})
	return order
}

// reducedStrides are the strides of a reduction's output of shape
// (from: the input dimension of each of its dimensions, -1 for a
// reduced one kept) laid out as the input is: the dimensions it keeps
// densely in the input's memory order.
func reducedStrides(inShape, inStrides, shape []int64, from []int) []int64 {
	out := denseStrides(shape)
	order := memoryOrder(inShape, inStrides)
	step := int64(1)
	for i := len(order) - 1; i >= 0; i-- {
		if at := slices.Index(from, order[i]); at >= 0 {
			out[at] = step
			step *= max(shape[at], 1)
		}
	}
	return out
}

// Diagonal is t.diagonal(0, d1, d2): a view of the elements whose
// indices along d1 and d2 agree, as a last dimension; under autograd
// DiagonalBackward0, whose backward makes a tensor of t's shape (zeros,
// the gradient copied onto the diagonal).
func (s *Session) Diagonal(t *Tensor, d1, d2 int) (*Tensor, error) {
	st := t.Strides()
	var shape, strides []int64
	for d, n := range t.Shape {
		if d != d1 && d != d2 {
			shape, strides = append(shape, n), append(strides, st[d])
		}
	}
	shape = append(shape, min(t.Shape[d1], t.Shape[d2]))
	strides = append(strides, st[d1]+st[d2])
	v := restrided(t, shape, strides, t.offset)
	s.recordView("DiagonalBackward0", v, t, true)
	return v, nil
}
