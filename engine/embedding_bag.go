package engine

import (
	"fmt"
	"math"
)

// torch.embedding_bag, as memory: PyTorch 2.11's _embedding_bag_cuda
// (native/cuda/EmbeddingBag.cu) and its dense backward, which
// F.embedding_bag and nn.EmbeddingBag call (torchpy/lib/nn_transformer.py
// writes them as PyTorch does). Forward makes, in order, bag_size (int64,
// one per offset), offset2bag (int64, one per index), the output (one
// row of the weight's width per bag) and, in max mode, max_indices
// (int64, the output's shape; else an empty tensor, no memory); the four
// are returned, and autograd's node saves the indices, the offsets and
// the last three. Backward makes a dense copy of a gradient that is not
// contiguous (freed last), then, summing or averaging, sorts the indices
// (always: the bag backward has no direct path) and sums them by
// segments as embedding's backward past 3072 indices does, always by
// the two-pass kernel (embeddingSorted), or, in max mode, the weight's gradient alone.
// scripts/probe_embedding.py recorded the forward and backward of twelve
// configurations (387 to 262,144 indices, bags of 1 to 16, sum, mean and
// max, two tables) on an H100 (testdata/embedding_backward.jsonl), and
// TestEmbeddingBagRecorded holds every event of them. Their index counts
// and modes, and dlrm_train's (testdata/pyrules/zoo_paths.py and
// zoo_layers.py, held statement by statement), are exact; others
// estimated (a bag's own steps are held at those counts only).
func init() {
	declare(&OpDef{Name: "embedding_bag", Function: true,
		Params: []Param{{Name: "weight", Kind: TensorParam}, {Name: "indices", Kind: TensorParam}, {Name: "offsets", Kind: TensorParam},
			boolParam("scale_grad_by_freq", "False"), {Name: "mode", Kind: IntParam, Default: "0"}, boolParam("sparse", "False"),
			{Name: "per_sample_weights", Kind: TensorParam, Default: "None"}, boolParam("include_last_offset", "False"),
			{Name: "padding_idx", Kind: IntParam, Default: "None"}},
		Memory: "bag_size and offset2bag (int64), the output (bags x the weight's width), in max mode max_indices (int64, the output's shape); returned as (output, offset2bag, bag_size, max_indices), the node saving the indices, offsets and the other three; backward a dense copy of a strided gradient, then in sum and mean mode the sort of the indices and embedding's segmented sum by the two-pass kernel (CUB's scratch), in max mode the weight's gradient alone (estimated: recorded on an H100, not yet held exact)",
		runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
			switch {
			case a.Bool(3) || a.Bool(5):
				return nil, false, NotModelledError("torch.embedding_bag with scale_grad_by_freq or sparse")
			case a.Tensor(6) != nil:
				return nil, false, NotModelledError("torch.embedding_bag with per_sample_weights")
			}
			outs, err := s.EmbeddingBag(a.Tensor(0), a.Tensor(1), a.Tensor(2), a.Int(4), a.Bool(7))
			return outs, true, err
		}})
}

// embeddingBagModes are the modes by their number (EmbeddingBagMode).
var embeddingBagModes = []string{"sum", "mean", "max"}

// EmbeddingBag is torch.embedding_bag(weight, indices, offsets, mode=,
// include_last_offset=) on CUDA: output, offset2bag, bag_size and
// max_indices.
func (s *Session) EmbeddingBag(w, idx, offsets *Tensor, mode int64, includeLast bool) ([]*Tensor, error) {
	dev, err := sameDevice(w, idx, offsets)
	switch {
	case err != nil:
		return nil, err
	case len(w.Shape) != 2:
		return nil, Errorf(RuntimeError, "weight has to be a 2D Tensor, but got Tensor of dimension %d", len(w.Shape))
	case len(idx.Shape) != 1 || len(offsets.Shape) != 1:
		return nil, Errorf(RuntimeError, "input has to be a 1D or 2D Tensor, but got Tensor of dimension %d", len(idx.Shape))
	case idx.DType.Name != "int64" && idx.DType.Name != "int32" || offsets.DType.Name != "int64" && offsets.DType.Name != "int32":
		return nil, Errorf(RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got %s instead (while checking arguments for embedding_bag)", tensorType(idx)+"Type")
	case mode < 0 || mode > 2:
		return nil, Errorf(RuntimeError, "embedding_bag: mode has to be 0 (sum), 1 (mean) or 2 (max), got %d", mode)
	case !dev.CUDA:
		return nil, NotModelledError("torch.embedding_bag on the host")
	case idx.DType.Name != offsets.DType.Name:
		return nil, NotModelledError("torch.embedding_bag of indices and offsets of two dtypes (PyTorch converts one)")
	case !idx.IsContiguous() || !offsets.IsContiguous():
		return nil, NotModelledError("torch.embedding_bag of indices or offsets that are not contiguous (PyTorch copies them)")
	}
	bags := offsets.Shape[0]
	if includeLast {
		bags = max(bags-1, 0)
	}
	if !embeddingBagHeld[[2]int64{idx.Shape[0], mode}] {
		if err := s.estimate(nil, "F.embedding_bag", "%s mode %s: PyTorch's _embedding_bag_cuda and its dense backward, from its source, as scripts/probe_embedding.py recorded them on an H100, not yet held exact at this count and mode",
			argShapes(Args{idx, w, offsets}), embeddingBagModes[mode]); err != nil {
			return nil, err
		}
	}
	int64T := DTypes["int64"]
	maxShape := []int64{0}
	if mode == 2 {
		maxShape = []int64{bags, w.Shape[1]}
	}
	outs, err := s.allocAll(dev, tensorShape{[]int64{offsets.Shape[0]}, idx.DType}, tensorShape{[]int64{idx.Shape[0]}, idx.DType},
		tensorShape{[]int64{bags, w.Shape[1]}, w.DType}, tensorShape{maxShape, int64T})
	if err != nil {
		return nil, err
	}
	bagSize, offset2bag, out, maxIdx := outs[0], outs[1], outs[2], outs[3]
	s.record("EmbeddingBagBackward0", out, []*Tensor{w}, []*Tensor{idx, offsets, offset2bag, bagSize, maxIdx}, embeddingBagBackward(uint64(idx.Shape[0]), mode))
	return []*Tensor{out, offset2bag, bagSize, maxIdx}, nil
}

// embeddingBagHeld are the index counts and modes (0 sum, 1 mean, 2
// max) whose forward and backward were recorded and are held: the
// configurations of testdata/embedding_backward.jsonl and the zoo's 387
// indices in sum mode.
var embeddingBagHeld = map[[2]int64]bool{{387, 0}: true, {3870, 0}: true, {65536, 0}: true, {262144, 0}: true, {4096, 1}: true, {5000, 2}: true}

// embeddingBagBackward is _embedding_bag_dense_backward_cuda's for n
// indices in mode: the gradient made dense (freed after the rest), then
// the sorted sum's buffers, or in max mode the weight's gradient alone.
func embeddingBagBackward(indices uint64, mode int64) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		shape := n.inputs[0].shape
		how := fmt.Sprintf("the indices sorted (CUB's radix sort of 64-bit keys, %d bytes of scratch) and summed by segments as embedding's backward does, as scripts/probe_embedding.py recorded it on an H100, not yet held exact at this count", radixSortScratch(indices, math.MaxUint64))
		if mode == 2 {
			how = "the weight's gradient alone, from PyTorch's source, as scripts/probe_embedding.py recorded it on an H100, not yet held exact"
		}
		if !embeddingBagHeld[[2]int64{int64(indices), mode}] {
			if err := s.estimate(nil, "F.embedding_bag", "backward of %d indices into a %s weight, mode %s: %s", indices, dimList(shape), embeddingBagModes[mode], how); err != nil {
				return []*Tensor{nil}, err
			}
		}
		dense, err := s.denseGrad(g)
		if err != nil {
			return []*Tensor{nil}, err
		}
		if dense != g {
			defer s.dropTensor(dense)
		}
		grad := func() ([]*Tensor, error) {
			gw, err := s.alloc(shape, g.DType, g.Device())
			return []*Tensor{gw}, err
		}
		if mode == 2 {
			return grad()
		}
		return s.embeddingSorted(g.Device(), indices, shape, g.DType, true, grad)
	}
}
