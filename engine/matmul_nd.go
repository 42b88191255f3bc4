package engine

import (
	"slices"
)

// torch.matmul beyond two matrices and one batch of contiguous 3-d ones,
// as PyTorch 2.11's _matmul_impl decides (testdata/pyrules/
// ops_matmul_nd.py, recorded on the H200):
//
//   - folded into one mm or mv when one side has at least 3 dimensions
//     and the other at most 2, and either the smaller side requires
//     grad or the larger one views as a matrix without a copy (and the
//     left side is not the matrix): the larger side (transposed when it
//     is on the right) reshaped to rows -- a dense copy where its
//     strides allow no view --, the product, viewed back
//     (UnsafeViewBackward0); a matrix on the left makes the result
//     transposed back and made contiguous, a copy (CloneBackward0);
//   - else a bmm: both batches broadcast to one shape, each side
//     reshaped to [batches, rows, columns] (a view where the strides
//     allow, else a dense copy; the left's first), the bmm, its result
//     viewed back. A 3-d side of one batch that requires grad, against
//     more, is squeezed to a matrix and folded instead.
//
// A batch that broadcasting grows is expanded (no memory); backward sums
// its gradient back to its shape (ExpandBackward0).

// matmulBatched is a @ b where one has 3 or more dimensions; ok is false
// where matmul's own cases model it (a batch folded by a view, two
// contiguous 3-d batches of one size).
func (s *Session) matmulBatched(a, b *Tensor) (out *Tensor, err error, ok bool) {
	ra, rb := len(a.Shape), len(b.Shape)
	if fold, transpose := shouldFold(a, b); fold {
		if !transpose && rb == 2 && foldsByView(a.Shape, a.Strides()) {
			return nil, nil, false
		}
		out, err = s.matmulFolded(a, b, transpose)
		return out, err, true
	}
	if ra == 3 && rb == 3 && a.Shape[0] == b.Shape[0] && a.IsContiguous() && b.IsContiguous() {
		return nil, nil, false
	}
	if ra == 3 && rb == 3 && a.Shape[0] != b.Shape[0] {
		for i, t := range []*Tensor{a, b} {
			if t.Shape[0] == 1 && t.requiresGrad() {
				sq, err := s.Run(Ops["squeeze"], Args{t, []int64{0}})
				if err != nil {
					return nil, err, true
				}
				ops := []*Tensor{a, b}
				ops[i] = sq
				out, err = s.matmul(ops[0], ops[1], "")
				s.dropTensor(sq)
				return out, err, true
			}
		}
	}
	out, err = s.matmulBmm(a, b)
	return out, err, true
}

// shouldFold is PyTorch's choice of folding a product of a side of 3 or
// more dimensions and one of at most 2 into one mm or mv, and whether
// the larger side is on the right (transposed to fold).
func shouldFold(a, b *Tensor) (fold, transpose bool) {
	ra, rb := len(a.Shape), len(b.Shape)
	larger, smaller := a, b
	if rb > ra {
		larger, smaller = b, a
	}
	if len(larger.Shape) < 3 || len(smaller.Shape) > 2 {
		return false, false
	}
	transpose = rb > ra
	if smaller.requiresGrad() {
		return true, transpose
	}
	if ra == 2 {
		return false, false
	}
	shape, st := larger.Shape, larger.Strides()
	if transpose {
		shape, st = swapLast(shape), swapLast(st)
	}
	return numel(shape) == 0 || foldsByView(shape, st), transpose
}

// foldsByView reports whether a tensor of shape and strides views as
// [rows, last dimension]: its leading dimensions laid out one after
// the other.
func foldsByView(shape, st []int64) bool {
	for i := 0; i+2 < len(shape); i++ {
		if st[i] != st[i+1]*shape[i+1] {
			return false
		}
	}
	return true
}

// swapLast is xs with its last two elements swapped (a copy).
func swapLast(xs []int64) []int64 {
	ys := slices.Clone(xs)
	n := len(ys)
	ys[n-2], ys[n-1] = ys[n-1], ys[n-2]
	return ys
}

// matmulFolded is the folded product: the larger side (b transposed,
// when transpose) reshaped to rows, its mm or mv by the other side (a
// matrix on the left transposed), the result viewed back, and when
// transpose and a matrix, transposed and made contiguous.
func (s *Session) matmulFolded(a, b *Tensor, transpose bool) (*Tensor, error) {
	var t1, t2 *Tensor
	if !transpose {
		t1, t2 = share(a), share(b)
	} else {
		var err error
		if t1, err = s.Run(Ops["transpose"], Args{b, int64(-2), int64(-1)}); err != nil {
			return nil, err
		}
		t2 = share(a)
		if len(a.Shape) == 2 {
			s.dropTensor(t2)
			if t2, err = s.Run(Ops["t"], Args{a}); err != nil {
				s.dropTensor(t1)
				return nil, err
			}
		}
	}
	defer s.dropTensor(t2)
	lead := t1.Shape[:len(t1.Shape)-1]
	rows, err := s.Reshape(t1, []int64{int64(numel(lead)), t1.Shape[len(t1.Shape)-1]})
	s.dropTensor(t1)
	if err != nil {
		return nil, err
	}
	p, err := s.matmul(rows, t2, "")
	s.dropTensor(rows)
	if err != nil {
		return nil, err
	}
	shape := slices.Clone(lead)
	if len(t2.Shape) == 2 {
		shape = append(shape, t2.Shape[1])
	}
	out := s.unsafeView(p, shape)
	s.dropTensor(p)
	if !transpose || len(t2.Shape) != 2 {
		return out, nil
	}
	back := s.Transpose(out, len(shape)-2, len(shape)-1)
	s.recordPermute("TransposeBackward0", back, out, swapped(len(shape), len(shape)-2, len(shape)-1))
	s.dropTensor(out)
	defer s.dropTensor(back)
	return s.Contiguous(back)
}

// matmulBmm is the product as one bmm over both batches broadcast.
func (s *Session) matmulBmm(a, b *Tensor) (*Tensor, error) {
	ra, rb := len(a.Shape), len(b.Shape)
	n, m1 := int64(1), a.Shape[ra-1]
	if ra > 1 {
		n = a.Shape[ra-2]
	}
	m2, p := b.Shape[0], int64(1)
	if rb > 1 {
		m2, p = b.Shape[rb-2], b.Shape[rb-1]
	}
	batchA, batchB := a.Shape[:max(ra-2, 0)], b.Shape[:max(rb-2, 0)]
	batch, err := broadcast(&Tensor{Shape: batchA}, &Tensor{Shape: batchB})
	if err != nil {
		return nil, err
	}
	prod := int64(numel(batch))
	if m1 != m2 {
		return nil, Errorf(RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [%d, %d] but got: [%d, %d].", prod, m1, prod, m2)
	}
	a3, err := s.batchOf(a, append(slices.Clone(batch), n, m1), []int64{prod, n, m1})
	if err != nil {
		return nil, err
	}
	var b3 *Tensor
	if rb == 1 {
		flat, err := s.batchOf(b, append(slices.Clone(batch), m2), []int64{prod, m2})
		if err == nil {
			b3, err = s.Run(Ops["unsqueeze"], Args{flat, int64(2)})
			s.dropTensor(flat)
		}
		if err != nil {
			s.dropTensor(a3)
			return nil, err
		}
	} else if b3, err = s.batchOf(b, append(slices.Clone(batch), m2, p), []int64{prod, m2, p}); err != nil {
		s.dropTensor(a3)
		return nil, err
	}
	r, err := s.cublasBmm(a3, b3)
	s.dropTensor(a3)
	s.dropTensor(b3)
	if err != nil {
		return nil, err
	}
	shape := slices.Clone(batch)
	if ra > 1 {
		shape = append(shape, n)
	}
	if rb > 1 {
		shape = append(shape, p)
	}
	if rb == 1 {
		col := r
		if r, err = s.Run(Ops["squeeze"], Args{col, []int64{-1}}); err != nil {
			s.dropTensor(col)
			return nil, err
		}
		s.dropTensor(col)
	}
	out := s.unsafeView(r, shape)
	s.dropTensor(r)
	return out, nil
}

// batchOf is t expanded to shape (a view, no memory) and reshaped to
// shape3: a view where the strides allow, else a dense copy.
func (s *Session) batchOf(t *Tensor, shape, shape3 []int64) (*Tensor, error) {
	e, err := s.expandView(t, shape)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(e)
	if e.expanded && !t.expanded {
		// ExpandBackward0: the gradient passed on, summed down to t's
		// shape as autograd sums a broadcast input's
		s.recordViewNode("ExpandBackward0", e, t, passGrad)
	}
	return s.Reshape(e, shape3)
}
