package engine

// A batched matrix product as PyTorch's CUDA bmm runs it on operands of
// any layout (aten's baddbmm_out_cuda_impl): its output is new and
// contiguous, which cuBLAS writes as it is when its last dimension is
// 1, else as its transpose (the operands then swap places); cuBLAS reads
// an operand as it is when each of its matrices is laid out by rows or
// by columns with a leading dimension long enough, or is contiguous
// without a zero stride; any other operand (a broadcast gradient, a
// transposed view whose matrices are neither) is first copied dense,
// after the output and before the workspace, the copies freed newest
// first once the product is done (ops_einsum_forms.py: 'ij,ij->j' copies
// both operands forward and in backward).

// bmmOperand is one operand's shape and strides.
type bmmOperand struct{ shape, strides []int64 }

// transposed is o with its matrices transposed.
func (o bmmOperand) transposed() bmmOperand {
	sh, st := []int64{o.shape[0], o.shape[2], o.shape[1]}, []int64{o.strides[0], o.strides[2], o.strides[1]}
	return bmmOperand{sh, st}
}

// cublasReads reports whether cuBLAS reads o without a copy, as a
// rows-by-cols operand of an output written as it is (or transposed).
func (o bmmOperand) cublasReads(transposed bool, rows, cols int64) bool {
	fast, lead := 1, 2
	if transposed {
		fast, lead = 2, 1
	}
	st := o.strides
	switch {
	case st[fast] == 1 && st[lead] >= max(1, rows):
		return true
	case st[lead] == 1 && st[fast] >= max(1, cols):
		return true
	}
	return contiguous(o.shape, st) && st[1] != 0 && st[2] != 0
}

// bmmInto runs one product of a and b into a new output, with the
// copies cuBLAS needs and the workspace.
func (s *Session) bmmInto(a, b bmmOperand, dt DType, dev Device) (*Tensor, error) {
	shape := []int64{a.shape[0], a.shape[1], b.shape[2]}
	out, err := s.alloc(shape, dt, dev)
	if err != nil {
		return nil, err
	}
	transposed := shape[2] != 1
	first, second, m, n, lead := a, b, shape[1], shape[2], 2
	if transposed {
		first, second, m, n, lead = b, a, shape[2], shape[1], 1
	}
	k := first.shape[lead]
	var copies []*Tensor
	defer func() {
		for i := len(copies) - 1; i >= 0; i-- {
			s.dropTensor(copies[i])
		}
	}()
	for i, o := range []bmmOperand{first, second} {
		rows, cols := m, k
		if i == 1 {
			rows, cols = k, n
		}
		if o.cublasReads(transposed, rows, cols) {
			continue
		}
		c, err := s.alloc(o.shape, dt, dev)
		if err != nil {
			s.dropTensor(out)
			return nil, err
		}
		copies = append(copies, c)
	}
	if err := s.workspace(dev, false); err != nil {
		s.dropTensor(out)
		return nil, err
	}
	return out, nil
}

// cublasBmm is torch.bmm(l, r) of 3-d tensors of any layout
// (BmmBackward0): backward makes r's gradient, l.transpose(1, 2) @ grad,
// then l's, grad @ r.transpose(1, 2), each such a product.
func (s *Session) cublasBmm(l, r *Tensor) (*Tensor, error) {
	if l.Shape[0] != r.Shape[0] || l.Shape[2] != r.Shape[1] {
		return nil, Errorf(RuntimeError, "Expected size for first two dimensions of batch2 tensor to be: [%d, %d] but got: [%d, %d].", l.Shape[0], l.Shape[2], r.Shape[0], r.Shape[1])
	}
	dev, err := sameDevice(l, r)
	if err != nil {
		return nil, err
	}
	a, b := bmmOperand{l.Shape, layoutOf(l)}, bmmOperand{r.Shape, layoutOf(r)}
	out, err := s.bmmInto(a, b, l.DType, dev)
	if err != nil {
		return nil, err
	}
	saved := savedForProduct(l, r)
	if len(saved) == 2 { // released mat2 first, then self, as autograd orders their names
		saved[0], saved[1] = saved[1], saved[0]
	}
	s.record("BmmBackward0", out, []*Tensor{l, r}, saved, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		grads := make([]*Tensor, 2)
		gr := bmmOperand{g.Shape, layoutOf(g)}
		var err error
		if n.inputs[1].to != nil {
			if grads[1], err = s.bmmInto(a.transposed(), gr, g.DType, g.Device()); err != nil {
				return grads, err
			}
		}
		if n.inputs[0].to != nil {
			grads[0], err = s.bmmInto(gr, b.transposed(), g.DType, g.Device())
		}
		return grads, err
	})
	return out, nil
}

// torch.baddbmm as a table entry: bmm's product, the input added.
func init() {
	declare(
		&OpDef{Name: "baddbmm", Function: true, Method: true,
			Params: []Param{input, {Name: "batch1", Kind: TensorParam}, {Name: "batch2", Kind: TensorParam},
				{Name: "beta", Kind: NumberParam, Default: "1", KeywordOnly: true}, alpha},
			Memory: "new tensor, input broadcast to the product's shape; as bmm: the cuBLAS workspace on first use, saves each batch the other's gradient needs, backward makes batch2's gradient, then batch1's",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.baddbmm(a.Tensor(0), a.Tensor(1), a.Tensor(2))
			}},
	)
}

// baddbmm is torch.baddbmm(input, batch1, batch2): bmm's output, into
// which input (broadcast) is added; an input that requires grad is not
// modelled.
func (s *Session) baddbmm(input, b1, b2 *Tensor) (*Tensor, error) {
	if s.gradEnabled && input.requiresGrad() {
		return nil, NotModelledError("torch.baddbmm of an input that requires grad")
	}
	if len(b1.Shape) != 3 || len(b2.Shape) != 3 {
		return nil, Errorf(RuntimeError, "batch1 must be a 3D tensor")
	}
	if out := []int64{b1.Shape[0], b1.Shape[1], b2.Shape[2]}; !broadcastsTo(input.Shape, out) {
		return nil, Errorf(RuntimeError, "baddbmm: the input %s does not broadcast to the product's shape %s", dimList(input.Shape), dimList(out))
	}
	if _, err := sameDevice(input, b1, b2); err != nil {
		return nil, err
	}
	return s.matmul(b1, b2, "BaddbmmBackward0")
}

// torch.bmm as a table entry.
func init() {
	tensors := []Param{input, {Name: "other", Kind: TensorParam}}
	declare(
		&OpDef{Name: "bmm", Function: true, Method: true, Params: tensors,
			Memory: "new tensor; a dense copy of a batch cuBLAS cannot read as it is (freed after); the cuBLAS workspace on first use; saves each batch the other's gradient needs; backward makes mat2's gradient, then self's",
			run: func(s *Session, a Args) (*Tensor, error) {
				x, y := a.Tensor(0), a.Tensor(1)
				if len(x.Shape) != 3 || len(y.Shape) != 3 {
					return nil, Errorf(RuntimeError, "batch1 must be a 3D tensor")
				}
				return s.cublasBmm(x, y)
			}},
	)
}
