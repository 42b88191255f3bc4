package engine

import (
	"slices"
	"testing"
)

// cudaFloats is an uninitialised float32 tensor of shape on the GPU.
func cudaFloats(shape ...int64) TensorSpec {
	return TensorSpec{Op: "empty", Shape: shape, DType: Float32, Device: cuda0}
}

func TestEinsumEquationErrors(t *testing.T) {
	for _, c := range []struct {
		eq    string
		ranks []int
		want  string
	}{
		{"ij,jk", []int{2}, "RuntimeError: einsum(): fewer operands were provided than specified in the equation"},
		{"ij", []int{2, 2}, "RuntimeError: einsum(): more operands were provided than specified in the equation"},
		{"i1", []int{2}, "RuntimeError: einsum(): invalid subscript given at index 1 in the equation string, subscripts must be in [a-zA-Z]"},
		{"ij->i1", []int{2}, "RuntimeError: einsum(): invalid subscript given at index 5 in the equation string, subscripts must be in [a-zA-Z]"},
		{"ijk", []int{2}, "RuntimeError: einsum(): the number of subscripts in the equation (3) does not match the number of dimensions (2) for operand 0 and no ellipsis was given"},
		{"...ijk", []int{2}, "RuntimeError: einsum(): the number of subscripts in the equation (3) is more than the number of dimensions (2) for operand 0"},
		{"i..j", []int{2}, "RuntimeError: einsum(): found '.' for operand 0 that is not part of any ellipsis"},
		{"ij->ii", []int{2}, "RuntimeError: einsum(): output subscript i appears more than once in the output"},
		{"ij->k", []int{2}, "RuntimeError: einsum(): output subscript k does not appear in the equation for any input operand"},
	} {
		_, err := parseEinsum(c.eq, c.ranks)
		wantErr(t, c.eq, err, c.want)
	}
}

// TestEinsumAlignedDimensions: the output's letters first ("..." where
// it stands, or first when implicit), then the contracted ones in label
// order, upper case before lower.
func TestEinsumAlignedDimensions(t *testing.T) {
	e, err := parseEinsum("bKj,...jk->k...b", []int{3, 4})
	if err != nil {
		t.Fatal(err)
	}
	at := func(c byte) int { l, _ := einsumLabel(c); return e.perm[l] }
	if got := []int{at('k'), e.ellAt, at('b'), at('K'), at('j')}; !slices.Equal(got, []int{0, 1, 3, 4, 5}) || e.outDims != 4 || e.allDims != 6 {
		t.Errorf("k, ..., b, K, j at %v of %d (output %d), want [0 1 3 4 5] of 6 (4)", got, e.allDims, e.outDims)
	}
	e, err = parseEinsum("jb,...b", []int{2, 3})
	if err != nil {
		t.Fatal(err)
	}
	if got := []int{e.ellAt, at('j'), at('b')}; !slices.Equal(got, []int{0, 2, 3}) || e.outDims != 3 {
		t.Errorf("implicit: ..., j, b at %v (output %d), want [0 2 3] (3)", got, e.outDims)
	}
}

// TestEinsumOptimalPath: opt_einsum's order (einsum_probe.txt): the
// cheaper pair first, and of equal costs the first found.
func TestEinsumOptimalPath(t *testing.T) {
	s := newTestSession(t, 1)
	for _, c := range []struct {
		eq     string
		shapes [][]int64
		want   [][2]int
	}{
		{"ij,jk,kl->il", [][]int64{{64, 64}, {64, 32}, {32, 16}}, [][2]int{{1, 2}, {0, 1}}},
		{"ij,jk,kl->il", [][]int64{{16, 32}, {32, 64}, {64, 64}}, [][2]int{{0, 1}, {0, 1}}},
		{"i,ij,j->", [][]int64{{64}, {64, 64}, {64}}, [][2]int{{0, 1}, {0, 1}}},
	} {
		var ts []*Tensor
		var ranks []int
		for _, sh := range c.shapes {
			ts = append(ts, mustTensor(t, s, cudaFloats(sh...)))
			ranks = append(ranks, len(sh))
		}
		e, err := parseEinsum(c.eq, ranks)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.optimalPath(ts); !slices.Equal(got, c.want) {
			t.Errorf("%s of %v: path %v, want %v", c.eq, c.shapes, got, c.want)
		}
	}
}

// TestCublasReads: cuBLAS reads matrices by rows or by columns with a
// leading dimension long enough, and a contiguous batch; not a
// transposed view with a dimension of size 1 moved in, nor a broadcast
// one (ops_einsum_forms.py's 'ij,ij->j').
func TestCublasReads(t *testing.T) {
	for _, c := range []struct {
		o    bmmOperand
		want bool
	}{
		{bmmOperand{[]int64{2, 8, 4}, []int64{32, 4, 1}}, true},
		{bmmOperand{[]int64{2, 8, 4}, []int64{32, 1, 8}}, true},
		{bmmOperand{[]int64{1024, 1, 1024}, []int64{1, 1048576, 1024}}, false},
		{bmmOperand{[]int64{1024, 1, 1}, []int64{0, 0, 0}}, false},
		{bmmOperand{[]int64{1, 1, 1024}, []int64{1024, 1024, 1}}, true},
	} {
		if got := c.o.cublasReads(false, c.o.shape[1], c.o.shape[2]); got != c.want {
			t.Errorf("%v strides %v: reads %v, want %v", c.o.shape, c.o.strides, got, c.want)
		}
	}
}

// TestEinsumCopiesAndSwaps: 'ij,ij->j' copies both operands for its
// bmm (after the output, before the cuBLAS workspace it keeps);
// 'ij,jk->ki' swaps its sides so its output is
// contiguous and copies nothing.
func TestEinsumCopiesAndSwaps(t *testing.T) {
	s := newTestSession(t, 1)
	a := mustTensor(t, s, cudaFloats(1024, 1024))
	b := mustTensor(t, s, cudaFloats(1024, 512))
	s.gradEnabled = false
	before := s.Measure().Devices[0]
	r, err := s.Einsum("ij,ij->j", []*Tensor{a, a})
	if err != nil {
		t.Fatal(err)
	}
	after := s.Measure().Devices[0]
	ws := cublasWorkspace(9)
	if got, peak := after.Allocated-before.Allocated, after.MaxAllocated-before.Allocated; got != 4096+ws || peak != 4096+ws+2<<22 {
		t.Errorf("ij,ij->j: %d allocated, peak %d above; want 4096 and the workspace, then two copies of 4 MiB", got, peak)
	}
	s.dropTensor(r)
	r, err = s.Einsum("ij,jk->ki", []*Tensor{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Shape, []int64{512, 1024}) || !r.IsContiguous() {
		t.Errorf("ij,jk->ki: shape %v contiguous %v, want [512 1024] contiguous", r.Shape, r.IsContiguous())
	}
}
