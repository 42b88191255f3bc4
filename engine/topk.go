package engine

import (
	"slices"
)

// topk (testdata/pyrules/ops_sort.py; scripts/probe_sort.py's table in
// testdata/pyrules/sort_probe.txt): the values, then int64 indices, of k
// along the dimension. PyTorch 2.11 finds them with one block a slice,
// or, for many slices or long ones (shouldUseMultiblock), with blocks
// over each slice: then, after the outputs, a value a slice of the
// input's type, 8 bytes a slice, two radix words a slice, per slice and
// block 256 2-byte digit counts, per slice 256 4-byte digit sums, two
// 4-byte counts per slice and block, and a CUB scan's scratch twice, all
// freed newest first. Its node saves the indices; backward makes one
// tensor of the input's shape.

// topkBlocksPerSM is how many of topk's 256-thread blocks an SM runs
// (its 40 registers a thread: 6 on a GPU of 64K registers an SM).
const topkBlocksPerSM = 6

// topkScanScratch is the CUB scan's scratch, 1279 bytes for every
// recorded shape (up to 4096 slice-blocks).
const topkScanScratch = 1279

// shouldUseMultiblock is PyTorch's choice of the multi-block topk, by
// the number of slices and their length.
func shouldUseMultiblock(slices, n uint64) bool {
	return slices <= 20 && n >= 20000 || slices > 20 && slices <= 40 && n >= 10000 ||
		slices > 40 && slices <= 80 && n >= 8000 || slices > 80 && slices < 200 && n >= 5000 ||
		slices >= 200 && slices < 800 && n >= 3000 || slices >= 800 && slices <= 4000 && n >= 800 ||
		slices > 4000 && n >= 400
}

// Topk is x.topk(k, dim, largest, sorted): values and indices (their
// values known when x's are and sorted is, the order otherwise PyTorch's
// kernel's).
func (s *Session) Topk(x *Tensor, k, dim int64, largest, sorted bool) ([]*Tensor, error) {
	d, err := dimIndex(dim, len(x.Shape))
	if err != nil {
		return nil, err
	}
	shape := slices.Clone(x.Shape)
	n := int64(1)
	if len(shape) > 0 {
		n, shape[d] = shape[d], k
	}
	if k < 0 || k > n {
		return nil, Errorf(RuntimeError, "selected index k out of range")
	}
	outs, err := s.allocAll(x.Device(), tensorShape{shape, x.DType}, tensorShape{shape, DTypes["int64"]})
	if err != nil {
		return nil, err
	}
	if err := s.topkTemps(x, uint64(n)); err != nil {
		s.dropAll(outs)
		return nil, err
	}
	if len(x.Shape) > 0 && sorted {
		outs[0].st.vals, outs[1].st.vals = orderValues(x, d, largest, int(k))
	}
	s.record("TopkBackward0", outs[0], []*Tensor{x}, outs[1:], likeInput(1))
	return outs, nil
}

// topkTemps makes and frees the multi-block topk's buffers for x's
// slices of n elements.
func (s *Session) topkTemps(x *Tensor, n uint64) error {
	dev := x.Device()
	if n == 0 {
		return nil
	}
	slicesN := x.Numel() / n
	if !dev.CUDA || !shouldUseMultiblock(slicesN, n) {
		return nil
	}
	if err := s.onCard(dev, "torch.topk", "%s, slices of %d: %s", argShapes(Args{x}), n, s.smCause(dev, "its multi-block kernel's items a block")); err != nil {
		return err
	}
	sms, _ := s.gpus[dev.Index].b.grid()
	items := min(max(ceilDiv(x.Numel(), uint64(sms*topkBlocksPerSM*256)), 4), 64)
	blocks := ceilDiv(n, items*256)
	if slicesN*blocks > 4096 {
		return NotModelledError("torch.topk over more than 4096 blocks (its scan's scratch was recorded up to 4096)")
	}
	radix := uint64(4)
	if x.DType.Size == 8 {
		radix = 8
	}
	var bufs []*storage
	defer func() {
		for i := len(bufs) - 1; i >= 0; i-- {
			s.release(bufs[i])
		}
	}()
	for _, size := range []uint64{slicesN * x.DType.Size, 8 * slicesN, 2 * radix * slicesN, slicesN * blocks * 512, slicesN * 1024, slicesN * blocks * 4, slicesN * blocks * 4} {
		b, err := s.newStorage(dev, size, false)
		if err != nil {
			return err
		}
		bufs = append(bufs, b)
	}
	if err := s.libScratch(dev, "CUB's scan", topkScanScratch); err != nil {
		return err
	}
	return s.libScratch(dev, "CUB's scan", topkScanScratch)
}

func init() {
	declare(&OpDef{Name: "topk", Function: true, Method: true, ReturnType: "topk",
		Params: []Param{input, {Name: "k", Kind: IntParam}, {Name: "dim", Kind: IntParam, Default: "-1"},
			{Name: "largest", Kind: BoolParam, Default: "True"}, {Name: "sorted", Kind: BoolParam, Default: "True"}},
		Memory: "values, then int64 indices; many or long slices: the multi-block search's buffers (by slices and blocks), freed; saves the indices; backward makes one tensor of the input's shape",
		runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
			outs, err := s.Topk(a.Tensor(0), a.Int(1), a.Int(2), a.Bool(3), a.Bool(4))
			return outs, true, err
		}})
}
