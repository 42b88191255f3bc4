package engine

import (
	"fmt"
	"slices"
)

// Embedding, as memory (testdata/pyrules/tfm_embedding.py, recorded on
// the H200): the forward is index_select's, one new tensor of the
// indices' shape plus the embedding dimension; autograd saves the
// indices (which an arange made for the call then outlives). Backward is
// embedding_dense_backward: a dense copy of a gradient that is not
// contiguous, then the weight's gradient, zeros of the weight's shape,
// filled directly while there are at most embeddingDirect indices (more
// are sorted first: its backward is refused).

// F.embedding as a table entry.
func init() {
	declare(
		functional(&OpDef{Name: "embedding",
			Params: []Param{input, {Name: "weight", Kind: TensorParam}, {Name: "padding_idx", Kind: IntParam, Default: "None"},
				{Name: "max_norm", Kind: NumberParam, Default: "None"}, {Name: "norm_type", Kind: NumberParam, Default: "2.0"},
				{Name: "scale_grad_by_freq", Kind: BoolParam, Default: "False"}, {Name: "sparse", Kind: BoolParam, Default: "False"}},
			Memory: "new tensor (the indices' shape + [dim]); saves the indices; backward makes the weight's gradient (zeros of its shape) after a dense copy of a strided gradient",
			run: func(s *Session, a Args) (*Tensor, error) {
				switch {
				case a[3] != nil:
					return nil, NotModelledError("F.embedding with max_norm (it renormalizes the weight in place)")
				case a.Bool(5) || a.Bool(6):
					return nil, NotModelledError("F.embedding with scale_grad_by_freq or sparse")
				}
				return s.Embedding(a.Tensor(0), a.Tensor(1))
			}}),
	)
}

// embeddingDirect is the most indices embedding_dense_backward sums
// without sorting them first (PyTorch's Embedding.cu).
const embeddingDirect = 3072

// Embedding is F.embedding(input, weight): the rows of weight that the
// int64 indices idx pick (index_select of the indices flattened).
func (s *Session) Embedding(idx, w *Tensor) (*Tensor, error) {
	if idx.DType.Name != "int64" && idx.DType.Name != "int32" {
		return nil, Errorf(RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got %s instead (while checking arguments for embedding)", tensorType(idx)+"Type")
	}
	if len(w.Shape) != 2 {
		return nil, Errorf(RuntimeError, "'weight' must be 2-D")
	}
	dev, err := sameDevice(idx, w)
	if err != nil {
		return nil, err
	}
	// indices of more than one dimension are flattened first
	// (indices.reshape(-1)): a copy where they cannot be viewed so, as
	// llama_train's data[:, :-1] showed, freed once the rows are picked
	var flat *Tensor
	if _, ok := viewStrides(idx.Shape, idx.Strides(), []int64{int64(idx.Numel())}); len(idx.Shape) > 1 && !ok {
		if flat, err = s.alloc([]int64{int64(idx.Numel())}, idx.DType, dev); err != nil {
			return nil, err
		}
		defer s.dropTensor(flat)
	}
	out, err := s.alloc(append(slices.Clone(idx.Shape), w.Shape[1]), w.DType, dev)
	if err != nil {
		return nil, err
	}
	s.record("EmbeddingBackward0", out, []*Tensor{w}, []*Tensor{idx}, embeddingBackward(idx.Numel()))
	return out, nil
}

// embeddingBackward is embedding_dense_backward's for n indices: the
// contiguous copy of the gradient (freed at the end), then the weight's
// gradient. Over embeddingDirect indices it sorts them first, with CUB's
// temporaries (recorded in tfm_embedding.py, not modelled: estimated).
func embeddingBackward(indices uint64) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		if !g.Device().CUDA {
			return []*Tensor{nil}, NotModelledError("the backward of an embedding on the host")
		}
		if indices > embeddingDirect {
			return embeddingSortedGrad(s, n, g, indices)
		}
		return embeddingGrad(s, n, g)
	}
}

// embeddingSortedGrad is the weight's gradient over more than
// embeddingDirect indices, where PyTorch sorts them first: an estimate,
// as the segments depend on the indices' values. Taken from the events
// tfm_embedding.py recorded (3073 indices): the sorted indices and their
// original places (int64, one each an index) with a third freed after
// CUB's radix sort and its scratch (index_put_'s sort's rule), the
// gradient, then the kernel's segment buffers, freed at its end: the
// segment offsets (an index each), two int64 per segment and the partial
// segments' offsets and sums (an accumulator row each). The segments are
// taken as min(indices, rows), every distinct row once, and the partial
// segments as the segments and one per 10 indices (NROWS_PER_THREAD):
// 1332 where the recording made 1331.
func embeddingSortedGrad(s *Session, n *node, g *Tensor, indices uint64) ([]*Tensor, error) {
	rows, width := uint64(n.inputs[0].shape[0]), uint64(n.inputs[0].shape[1])
	segments := min(indices, rows)
	partials := segments + ceilDiv(indices, 10)
	refusal := NotModelledError(fmt.Sprintf("the backward of an embedding of more than %d indices (it sorts them)", embeddingDirect))
	if err := s.estimate(refusal, "F.embedding", "backward of %d indices into a %s weight: PyTorch sorts more than %d indices and sums them by segments, which depend on their values; taken as every distinct row a segment (%d) and %d partial segments, with CUB's radix sort scratch (%d bytes, index_put_'s sort's rule), after tfm_embedding.py's recording of 3073 indices",
		indices, dimList(n.inputs[0].shape), embeddingDirect, segments, partials, radixSortScratch(indices, rows-1)); err != nil {
		return []*Tensor{nil}, err
	}
	dev, int64T := g.Device(), DTypes["int64"]
	ints := func(k uint64) tensorShape { return tensorShape{[]int64{int64(k)}, int64T} }
	var held []*Tensor
	defer func() {
		for i := len(held) - 1; i >= 0; i-- {
			s.dropTensor(held[i])
		}
	}()
	take := func(ts ...tensorShape) error {
		got, err := s.allocAll(dev, ts...)
		held = append(held, got...)
		return err
	}
	// the sort: sorted indices, original places, the range it sorts
	if err := take(ints(indices), ints(indices)); err != nil {
		return []*Tensor{nil}, err
	}
	if err := s.scratchBeside(dev, ints(indices), radixSortScratch(indices, rows-1)); err != nil {
		return []*Tensor{nil}, err
	}
	grads, err := embeddingGrad(s, n, g)
	if err != nil {
		return grads, err
	}
	// the kernel's segments, freed as it returns
	acc := accType(g.DType)
	err = take(ints(indices), ints(1), ints(segments), ints(segments), ints(1), ints(partials),
		tensorShape{[]int64{int64(partials), int64(width)}, acc})
	if err != nil {
		s.dropTensor(grads[0])
		return []*Tensor{nil}, err
	}
	return grads, nil
}

// scratchBeside allocates t and a kernel's scratch of n bytes, then
// frees both, the scratch first.
func (s *Session) scratchBeside(dev Device, t tensorShape, n uint64) error {
	ts, err := s.allocAll(dev, t)
	if err != nil {
		return err
	}
	defer s.dropTensor(ts[0])
	return s.scratch(dev, n)
}

// embeddingGrad is the weight's gradient of embeddingBackward's direct
// path.
func embeddingGrad(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	dense, err := s.denseGrad(g)
	if err != nil {
		return []*Tensor{nil}, err
	}
	gw, err := s.alloc(n.inputs[0].shape, g.DType, g.Device())
	if dense != g {
		s.dropTensor(dense)
	}
	return []*Tensor{gw}, err
}

// denseGrad is g.contiguous() of a backward kernel that reads its
// gradient densely: g itself, or a new copy of a broadcast or strided g.
func (s *Session) denseGrad(g *Tensor) (*Tensor, error) {
	if g.IsContiguous() {
		return g, nil
	}
	return s.alloc(g.Shape, g.DType, g.Device())
}
