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
		if buf, sem, _ := s.outerReduction(x, c.dim, c.acc); buf != c.buf || sem != c.sem {
			t.Errorf("%s: buffer %d, semaphore %d; PyTorch's %d and %d", c.what, buf, sem, c.buf, c.sem)
		}
		s.Release(x)
	}
}
