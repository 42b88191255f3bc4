package engine

import (
	"slices"
	"testing"
)

// TestIndexBackwardTemporaries: x[idx].sum().backward() leaves x.grad
// (the zeros index_put_ accumulates into) and nothing else; its peak
// holds, beside it, the flattened index, the dense copy of the broadcast
// gradient, the sort's three int64 temporaries and CUB's 1-byte scratch
// (ops_index_grad.py line 12); 2^24+1 indices are refused.
func TestIndexBackwardTemporaries(t *testing.T) {
	s := newTestSession(t, 1)
	x := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{1024, 1024}, DType: Float32, Device: cuda0, RequiresGrad: true})
	idx := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{4}, DType: DTypes["int64"], Device: cuda0})
	r, err := s.IndexTensor(x, []int{0}, []*Tensor{idx})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := s.Op("sum", r)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ResetPeak(0); err != nil {
		t.Fatal(err)
	}
	before := s.Measure().Devices[0].Allocated
	if err := s.Backward(sum, false); err != nil {
		t.Fatal(err)
	}
	m := s.Measure().Devices[0]
	if got, want := m.Allocated-before, uint64(4<<20); got != want {
		t.Errorf("after backward: %d more bytes, want %d (x.grad)", got, want)
	}
	// the seed, x.grad, the copy; 512-byte blocks for the int64 temporaries and the scratch
	if got, want := m.MaxAllocated-before, uint64(512+4<<20+16384+5*512); got != want {
		t.Errorf("backward's peak: %d above, want %d", got, want)
	}
	big := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{maxSortProbed + 1}, DType: DTypes["int64"], Device: cuda0})
	r, err = s.IndexTensor(x, []int{0}, []*Tensor{big})
	if err != nil {
		t.Fatal(err)
	}
	sum, err = s.Op("sum", r)
	if err != nil {
		t.Fatal(err)
	}
	wantErr(t, "2^24+1 indices", s.Backward(sum, false), "NotImplementedError: the backward of indexing by 16777217 indices into 1048576 elements (CUB's radix sort was measured up to 16777216 indices and 32-bit keys) is not modelled by gpumemrepl")
}

// TestIndicesApart: indices parted by a whole dimension put theirs
// first (x[idx, :, idx] of [8, 16, 32] by 3 is [3, 16]) and beside each
// other keep it in place ([8, 16, 32] along 1 and 2 is [8, 3]); the
// backward of more than one tile's indices apart is refused (not
// recorded), in one tile it is not.
func TestIndicesApart(t *testing.T) {
	s := newTestSession(t, 1)
	x := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{8, 16, 32}, DType: Float32, Device: cuda0, RequiresGrad: true})
	for _, c := range []struct {
		dims   []int
		n      int64
		want   []int64
		refuse bool
	}{{[]int{0, 2}, 3, []int64{3, 16}, false}, {[]int{1, 2}, 3, []int64{8, 3}, false}, {[]int{0, 2}, maxOneTileSort + 1, []int64{maxOneTileSort + 1, 16}, true}} {
		idx := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{c.n}, DType: DTypes["int64"], Device: cuda0})
		r, err := s.IndexTensor(x, c.dims, []*Tensor{idx, idx})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(r.Shape, c.want) {
			t.Errorf("dims %v: shape %v, want %v", c.dims, r.Shape, c.want)
		}
		sum, err := s.Op("sum", r)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Backward(sum, false)
		if c.refuse {
			wantErr(t, "indices apart past one tile", err, "NotImplementedError: the backward of indexing by indices apart (x[idx, :, idx]) of more than 2304 elements (CUB's sort of several tiles of the transposed index) is not modelled by gpumemrepl")
		} else if err != nil {
			t.Errorf("dims %v: backward: %v", c.dims, err)
		}
	}
}

// TestIndexSelectShape: index_select's output takes the index's length
// along dim and is dense.
func TestIndexSelectShape(t *testing.T) {
	s := newTestSession(t, 1)
	x := mustTensor(t, s, cudaFloats(8, 16))
	idx := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{3}, DType: DTypes["int64"], Device: cuda0})
	r, err := s.IndexSelect(x, 1, idx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Shape, []int64{8, 3}) || !r.IsContiguous() {
		t.Errorf("index_select(1, idx): shape %v contiguous %v, want [8 3] contiguous", r.Shape, r.IsContiguous())
	}
	bad := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{3}, DType: Float32, Device: cuda0})
	_, err = s.IndexSelect(x, 1, bad)
	wantErr(t, "a float index", err, "RuntimeError: index_select(): Expected dtype int32/int64 for index but got: float32")
}
