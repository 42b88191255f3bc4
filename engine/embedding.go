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
// int64 indices idx pick.
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
// embeddingDirect indices, where PyTorch sorts them first: not recorded,
// so an estimate. The sorted indices and their original places (int64,
// one each an index) and CUB's radix sort scratch (index_put_'s sort's
// rule, radixsort.go) are taken to live beside the direct path's
// tensors, the scratch freed after the sort, the two after the gradient;
// the kernel's per-segment buffers are left out.
func embeddingSortedGrad(s *Session, n *node, g *Tensor, indices uint64) ([]*Tensor, error) {
	rows := uint64(n.inputs[0].shape[0])
	refusal := NotModelledError(fmt.Sprintf("the backward of an embedding of more than %d indices (it sorts them)", embeddingDirect))
	if err := s.estimate(refusal, "F.embedding", "backward of %d indices into a %s weight: PyTorch sorts more than %d indices first, not recorded; taken as two int64 tensors of the indices' size and CUB's radix sort scratch (%d bytes, index_put_'s sort's rule) beside the direct path, its per-segment buffers left out",
		indices, dimList(n.inputs[0].shape), embeddingDirect, radixSortScratch(indices, rows-1)); err != nil {
		return []*Tensor{nil}, err
	}
	int64T := DTypes["int64"]
	sorted, err := s.allocAll(g.Device(), tensorShape{[]int64{int64(indices)}, int64T}, tensorShape{[]int64{int64(indices)}, int64T})
	if err != nil {
		return []*Tensor{nil}, err
	}
	defer func() {
		for _, t := range sorted {
			s.dropTensor(t)
		}
	}()
	if err := s.scratch(g.Device(), radixSortScratch(indices, rows-1)); err != nil {
		return []*Tensor{nil}, err
	}
	return embeddingGrad(s, n, g)
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
