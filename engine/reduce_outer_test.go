package engine

import "testing"

// TestOuterReductionBuffers: the buffer across blocks and the semaphore
// of reductions along an outer dimension are the sizes PyTorch 2.11 took
// on the H200 (testdata/pyrules/ops_reduce_outer.jsonl, ops_div.jsonl),
// and none where its blocks needed none.
func TestOuterReductionBuffers(t *testing.T) {
	s := newTestSession(t, 1)
	f16 := DTypes["float16"]
	for _, c := range []struct {
		what     string
		shape    []int64
		dtype    DType
		dim      int
		acc      uint64
		buf, sem uint64
	}{
		{"(64, 4096).sum(0)", []int64{64, 4096}, Float32, 0, 4, 0, 0},
		{"(4096, 64).sum(0)", []int64{4096, 64}, Float32, 0, 4, 524288, 4},
		{"(8, 1024, 256).sum(1)", []int64{8, 1024, 256}, Float32, 1, 4, 16777216, 64},
		{"(1024, 1024) float16 .sum(0)", []int64{1024, 1024}, f16, 0, 4, 8388608, 32},
		{"(100000, 10).sum(0)", []int64{100000, 10}, Float32, 0, 4, 31360, 8},
		{"(4096, 64).std(0)", []int64{4096, 64}, Float32, 0, 16, 2097152, 4},
		{"(8, 1024, 256).mean(0)", []int64{8, 1024, 256}, Float32, 0, 4, 0, 0},
		{"(100000, 10).argmax(0)", []int64{100000, 10}, Float32, 0, 16, 125440, 8},
		{"(1024, 1024).max(dim=0)", []int64{1024, 1024}, Float32, 0, 16, 33554432, 32},
	} {
		x := mustTensor(t, s, TensorSpec{Op: "empty", Shape: c.shape, DType: c.dtype, Device: cuda0})
		if buf, sem, _ := s.outerReduction(x, []int{c.dim}, c.acc); buf != c.buf || sem != c.sem {
			t.Errorf("%s: buffer %d, semaphore %d; PyTorch's %d and %d", c.what, buf, sem, c.buf, c.sem)
		}
		s.Release(x)
	}
}

// TestStridedReductionBuffers: a reduction of a strided tensor is laid
// out as TensorIterator lays it (the reduced dimensions first, merged
// where they run on in memory, the outputs the fastest-moving), and its
// buffer across blocks follows: vit_train's patch embedding's bias
// gradient, the sum over (0, 2, 3) of the channels-last-like slice of
// the incoming gradient (10 x 197 tokens, the class token's left out),
// took a 6094848-byte buffer and a 12-byte semaphore in PyTorch
// (testdata/pyrules/zoo_paths.py); the same sum of a contiguous
// gradient, whose fastest dimension is reduced, is the kernel's other
// arrangement.
func TestStridedReductionBuffers(t *testing.T) {
	s := newTestSession(t, 1)
	grad := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{10, 197, 384}, DType: Float32, Device: cuda0})
	defer s.Release(grad)
	g := restrided(grad, []int64{10, 384, 14, 14}, []int64{197 * 384, 1, 14 * 384, 384}, 384)
	defer s.dropTensor(g)
	l := reductionLayout(g, []int{0, 2, 3})
	if l.outputs != 384 || l.red != 1960 || l.vec != 4 || l.inner {
		t.Errorf("layout %+v, want 384 outputs of 1960 values, 4 a thread", l)
	}
	if buf, sem, _ := s.outerReduction(g, []int{0, 2, 3}, 4); buf != 6094848 || sem != 12 {
		t.Errorf("buffer %d, semaphore %d; PyTorch's 6094848 and 12", buf, sem)
	}
	dense := restrided(grad, []int64{10, 384, 14, 14}, denseStrides([]int64{10, 384, 14, 14}), 0)
	defer s.dropTensor(dense)
	if l := reductionLayout(dense, []int{0, 2, 3}); !l.inner {
		t.Errorf("a contiguous gradient's sum over (0, 2, 3): %+v, want the inner arrangement", l)
	}
	if sameIteration(g, []int{0, 2, 3}) || !sameIteration(dense, []int{0, 2, 3}) {
		t.Errorf("the channels-last-like slice launches as a contiguous gradient: %v, a contiguous one: %v; want false and true", sameIteration(g, []int{0, 2, 3}), sameIteration(dense, []int{0, 2, 3}))
	}
}

// TestChannelSliceIteration: the bias's gradient of a channel slice of a
// concatenation's gradient (ddpm_unet.py's U-Net, whose skip connections
// are torch.cat's: [13, 32, 40, 40] of [13, 64, 40, 40]) reaches
// the reduction kernel as a contiguous gradient does, every dimension of
// the same size in the same order, so it launches alike and the
// convolution table's events of a dense gradient hold for it (the
// program's recording matches, its events in order: TestZooEventsInOrder);
// a slice along the width does not.
func TestChannelSliceIteration(t *testing.T) {
	s := newTestSession(t, 1)
	cat := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{13, 64, 40, 40}, DType: Float32, Device: cuda0})
	defer s.Release(cat)
	for _, c := range []struct {
		name           string
		shape, strides []int64
		offset         uint64
		want           bool
	}{
		{"[:, :32]", []int64{13, 32, 40, 40}, denseStrides([]int64{13, 64, 40, 40}), 0, true},
		{"[:, 32:]", []int64{13, 32, 40, 40}, denseStrides([]int64{13, 64, 40, 40}), 32 * 1600, true},
		{"[..., :20]", []int64{13, 64, 40, 20}, denseStrides([]int64{13, 64, 40, 40}), 0, false},
	} {
		g := restrided(cat, c.shape, c.strides, c.offset)
		if got := sameIteration(g, []int{0, 2, 3}); got != c.want {
			t.Errorf("%s: launches as a contiguous gradient %v", c.name, got)
		}
		s.dropTensor(g)
	}
}
