package engine

import (
	"fmt"
	"math"
	"slices"
)

// Embedding, as memory (testdata/pyrules/tfm_embedding.py, recorded on
// the H200): the forward is index_select's, one new tensor of the
// indices' shape plus the embedding dimension; autograd saves the
// indices (which an arange made for the call then outlives). Backward is
// embedding_dense_backward: a dense copy of indices that are not
// contiguous, then of a gradient that is not, then the weight's
// gradient, zeros of the weight's shape, filled directly while there
// are at most embeddingDirect indices (more are sorted first:
// embeddingSortedGrad).

// F.embedding as a table entry.
func init() {
	declare(
		functional(&OpDef{Name: "embedding",
			Params: []Param{input, {Name: "weight", Kind: TensorParam}, {Name: "padding_idx", Kind: IntParam, Default: "None"},
				{Name: "max_norm", Kind: NumberParam, Default: "None"}, {Name: "norm_type", Kind: NumberParam, Default: "2.0"},
				{Name: "scale_grad_by_freq", Kind: BoolParam, Default: "False"}, {Name: "sparse", Kind: BoolParam, Default: "False"}},
			Memory: "new tensor (the indices' shape + [dim]); saves the indices; backward makes the weight's gradient (zeros of its shape) after dense copies of strided indices and of a strided gradient",
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
	// indices of more than one dimension are read flat
	// (indices.reshape(-1)): a dense copy where their strides allow no
	// flat view (batch[:, :-1]), freed once the rows are picked
	var flat *Tensor
	if _, ok := viewStrides(idx.Shape, idx.Strides(), []int64{int64(idx.Numel())}); len(idx.Shape) > 1 && !ok {
		if flat, err = s.alloc([]int64{int64(idx.Numel())}, idx.DType, dev); err != nil {
			return nil, err
		}
	}
	out, err := s.alloc(append(slices.Clone(idx.Shape), w.Shape[1]), w.DType, dev)
	if flat != nil {
		s.dropTensor(flat)
	}
	if err != nil {
		return nil, err
	}
	// the lookup's kernel makes the driver take what the first
	// reduction's does (nanogpt_bf16_accum's recording with addresses)
	s.reductionRan(dev)
	var copied *tensorShape
	if !idx.IsContiguous() {
		copied = &tensorShape{slices.Clone(idx.Shape), idx.DType}
	}
	s.record("EmbeddingBackward0", out, []*Tensor{w}, []*Tensor{idx}, embeddingBackward(idx.Numel(), copied))
	return out, nil
}

// embeddingBackward is embedding_dense_backward's for n indices: a
// contiguous copy of strided indices (copied: their shape, as
// indices.contiguous() makes it first and frees it last; llama_train's
// recording shows it for data[:, :-1]), the contiguous copy of the
// gradient (freed at the end), then the weight's gradient. Over
// embeddingDirect indices it sorts them first, with CUB's temporaries.
func embeddingBackward(indices uint64, copied *tensorShape) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		if !g.Device().CUDA {
			return []*Tensor{nil}, NotModelledError("the backward of an embedding on the host")
		}
		if copied != nil {
			flat, err := s.allocAll(g.Device(), *copied)
			if err != nil {
				return []*Tensor{nil}, err
			}
			defer s.dropTensor(flat[0])
		}
		if indices > embeddingDirect {
			return embeddingSortedGrad(s, n, g, indices)
		}
		return embeddingGrad(s, n, g)
	}
}

// embeddingSortedGrad is the weight's gradient over more than
// embeddingDirect indices, where PyTorch sorts them first
// (embedding_dense_backward_cuda, then embedding_backward_cuda_kernel),
// every size set by the count of indices n, the table's rows and width,
// none by the indices' values: a dense copy of an incoming gradient that
// is not contiguous first (freed after everything else), the sorted
// indices and their original
// places (int64, n each), then the range sorted with them (n) and CUB's
// radix sort scratch over all 64 bits of the keys (PyTorch passes no bit
// count), both freed; the gradient; the segments' offsets (n), their
// count (8 bytes), a dummy of the keys (n) with CUB's unique_by_key
// scratch, both freed; partials per segment and their offsets (S =
// min(n, rows) each) with CUB's exclusive sum scratch, freed; the count
// of partial segments (8 bytes), their offsets (P = n/10 + S); then
// either the fused kernel's map of partial segments to segments (P; and
// for float16 and bfloat16 an accumulator of the table's size in
// float32), when its sum_scatter grid is under 4 blocks a
// multiprocessor and P over four times it, or the two-pass kernel's
// partial sums (P rows of the width in the accumulator's type); all
// freed newest first as it returns. Every event of the 47 configurations
// of scripts/probe_embedding.py's recording (1000 to 1,048,576 indices,
// four tables, float32 and bfloat16; testdata/embedding_backward.jsonl,
// made in the lead's GPU call of 2026-12-05 13:00 UTC by
// scripts/record_zoo.sh on an NVIDIA H100 80GB HBM3, the GPU machine lent
// for the H200, PyTorch 2.11.0+cu130) is reproduced in order
// (TestEmbeddingSortedRecorded), and tfm_embedding.py's three on the
// H200; and the 1,034 of --counts (every 256th count from 3,073 to 2^18
// and some to 3,000,000, float32, bfloat16 and float16's fused paths
// too). Exact up to embeddingSortProbed indices but on float16's
// two-pass path, not recorded; estimated otherwise.
func embeddingSortedGrad(s *Session, n *node, g *Tensor, indices uint64) ([]*Tensor, error) {
	shape := n.inputs[0].shape
	rows, width := uint64(shape[0]), uint64(shape[1])
	segments := min(indices, rows)
	partials := indices/10 + segments
	sms, _ := s.gpus[g.Device().Index].b.grid()
	fused := embeddingFused(segments, width, partials, sms)
	path := "the two-pass kernel's partial sums"
	if fused {
		path = "the fused kernel's map of partial segments"
	}
	if recorded := g.DType.Name != "float16" || fused; indices > embeddingSortProbed || !recorded {
		refusal := NotModelledError(fmt.Sprintf("the backward of an embedding of %d indices in %s by %s (it sorts more than %d; recorded up to %d, but float16's two-pass path)", indices, g.DType.Name, path, embeddingDirect, embeddingSortProbed))
		if err := s.estimate(refusal, "F.embedding", "backward of %d indices into a %s %s weight: PyTorch sorts more than %d indices (CUB's radix sort of 64-bit keys, %d bytes of scratch) and sums them by up to %d segments and %d partial segments (%s), as scripts/probe_embedding.py recorded it on an H100 up to %d indices, but for float16's two-pass path",
			indices, g.DType.Name, dimList(shape), embeddingDirect, radixSortScratch(indices, math.MaxUint64), segments, partials, path, embeddingSortProbed); err != nil {
			return []*Tensor{nil}, err
		}
	}
	// grad_.contiguous() comes before the sort and goes as the function
	// returns, after the kernel's buffers (zoo_paths.py's 4096 indices)
	dense, err := s.denseGrad(g)
	if err != nil {
		return []*Tensor{nil}, err
	}
	if dense != g {
		defer s.dropTensor(dense)
	}
	return s.embeddingSorted(g.Device(), indices, shape, g.DType, false, func() ([]*Tensor, error) {
		gw, err := s.alloc(n.inputs[0].shape, g.DType, g.Device())
		return []*Tensor{gw}, err
	})
}

// embeddingSorted is the sorted backward's buffers around grad, which
// makes the weight's gradient (of shape, in dtype): the sort, then
// grad, then the segments and the kernel's buffers, all freed newest
// first as it returns (embeddingSortedGrad says which). An embedding
// bag's (bags) always takes the two-pass kernel: PyTorch fuses only
// where there is no offset2bag.
func (s *Session) embeddingSorted(dev Device, indices uint64, shape []int64, dtype DType, bags bool, grad func() ([]*Tensor, error)) ([]*Tensor, error) {
	rows, width := uint64(shape[0]), uint64(shape[1])
	segments := min(indices, rows)
	partials := indices/10 + segments
	int64T := DTypes["int64"]
	sms, _ := s.gpus[dev.Index].b.grid()
	fused := !bags && embeddingFused(segments, width, partials, sms)
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
	if err := s.scratchBeside(dev, ints(indices), "CUB's radix sort", radixSortScratch(indices, math.MaxUint64)); err != nil {
		return []*Tensor{nil}, err
	}
	grads, err := grad()
	if err != nil {
		return grads, err
	}
	// the segments, the partial segments, and the kernel's buffers
	steps := []func() error{
		func() error { return take(ints(indices), ints(1)) },
		func() error {
			return s.scratchBeside(dev, ints(indices), "CUB's unique_by_key", uniqueByKeyScratch(indices))
		},
		func() error { return take(ints(segments), ints(segments)) },
		func() error { return s.libScratch(dev, "CUB's scan", int64ScanScratch(segments)) },
		func() error { return take(ints(1), ints(partials), ints(partials)) },
	}
	last := len(steps) - 1
	switch {
	case !fused:
		steps[last] = func() error {
			return take(ints(1), ints(partials), tensorShape{[]int64{int64(partials), int64(width)}, accType(dtype)})
		}
	case accType(dtype).Name != dtype.Name:
		steps = append(steps, func() error { return take(tensorShape{shape, accType(dtype)}) })
	}
	for _, step := range steps {
		if err := step(); err != nil {
			s.dropTensor(grads[0])
			return []*Tensor{nil}, err
		}
	}
	return grads, nil
}

// embeddingFused reports whether embedding_backward_cuda_kernel takes its
// fused path: its sum_scatter grid (segments x the width rounded up to
// a warp, in blocks of that width up to 1024 threads) is under 4 blocks
// a multiprocessor and the partial segments over four times it (and
// deterministic algorithms off, which the tool does not model).
func embeddingFused(segments, width, partials uint64, sms int) bool {
	warped := ceilDiv(width, 32) * 32
	block := min(warped, 1024)
	grid := ceilDiv(segments*warped, block)
	return grid < uint64(sms)*4 && partials > grid*4
}

// embeddingSortProbed is the most indices scripts/probe_embedding.py
// --counts sorted.
const embeddingSortProbed = 3_000_000

// uniqueByKeyScratch is CUB's DeviceSelect::UniqueByKey scratch for n
// int64 keys as PyTorch's embedding backward asks for it: a 16-byte tile
// status a tile of 4,480 keys and 768 bytes more, each rounded up to 256
// bytes, and 255 (1,279 bytes up to 71,680 keys, 256 more every 16
// tiles: scripts/probe_embedding.py --counts, every 256th count from
// 3,073 to 2^18 and some to 3,000,000).
func uniqueByKeyScratch(n uint64) uint64 {
	return cubTemporaries(16*ceilDiv(n, 4480), 768)
}

// scratchBeside allocates t and a library kernel's scratch of n bytes
// (libScratch), then frees both, the scratch first.
func (s *Session) scratchBeside(dev Device, t tensorShape, lib string, n uint64) error {
	ts, err := s.allocAll(dev, t)
	if err != nil {
		return err
	}
	defer s.dropTensor(ts[0])
	return s.libScratch(dev, lib, n)
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
