package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestViewStrides: the strides and offsets of views of a [64, 1024, 32]
// tensor are PyTorch's (testdata/pyrules/ops_views.stdout on the H200),
// and none allocates.
func TestViewStrides(t *testing.T) {
	s := newTestSession(t, 1)
	x := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{64, 1024, 32}, DType: Float32, Device: cuda0})
	before := s.Measure().Devices[0].Allocated
	must := func(v *Tensor, err error) *Tensor {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, c := range []struct {
		what       string
		v          *Tensor
		strides    []int64
		offset     int64
		contiguous bool
	}{
		{"unsqueeze(1)", must(s.Unsqueeze(x, 1)), []int64{32768, 32768, 32, 1}, 0, true},
		{"permute(2, 0, 1)", must(s.Permute(x, []int64{2, 0, 1})), []int64{1, 32768, 32}, 0, false},
		{"narrow(1, 100, 300)", must(s.NarrowDim(x, 1, 100, 300)), []int64{32768, 32, 1}, 3200, false},
		{"unbind(0)[5]", must(s.SelectDim(x, 0, 5)), []int64{32, 1}, 163840, true},
		{"transpose(0, 2)", s.Transpose(x, 0, 2), []int64{1, 32, 32768}, 0, false},
	} {
		if got := c.v.Strides(); !slices.Equal(got, c.strides) || c.v.StorageOffset() != c.offset || c.v.IsContiguous() != c.contiguous {
			t.Errorf("%s: strides %v offset %d contiguous %v, want %v %d %v", c.what, got, c.v.StorageOffset(), c.v.IsContiguous(), c.strides, c.offset, c.contiguous)
		}
	}
	parts, err := s.Chunk(x, 3, 1)
	if err != nil || len(parts) != 3 || parts[2].Shape[1] != 340 || parts[2].StorageOffset() != 21888 {
		t.Errorf("chunk(3, dim=1): %d parts, last %v at %d (%v)", len(parts), parts[len(parts)-1].Shape, parts[len(parts)-1].StorageOffset(), err)
	}
	if after := s.Measure().Devices[0].Allocated; after != before {
		t.Errorf("views allocated %d bytes", after-before)
	}
	p := must(s.Permute(x, []int64{0, 2, 1}))
	c := must(s.Clone(p))
	if got := c.Strides(); !slices.Equal(got, []int64{32768, 1, 32}) {
		t.Errorf("clone of a permute has strides %v, want the permute's", got)
	}
}

// TestSavedTensorModifiedInPlace: a tensor saved for backward, then
// written in place, makes backward fail with PyTorch's message once it
// reaches the node, and the gradients made before it are freed.
func TestSavedTensorModifiedInPlace(t *testing.T) {
	s := newTestSession(t, 1)
	w := mustTensor(t, s, TensorSpec{Op: "rand", Shape: []int64{1024}, DType: Float32, Device: cuda0, RequiresGrad: true})
	y, err := s.Op("exp", w)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunInPlace(Ops["mul"], Args{y, Scalar()}); err != nil {
		t.Fatal(err)
	}
	loss, err := s.Op("sum", y)
	if err != nil {
		t.Fatal(err)
	}
	before := s.Measure().Devices[0].Allocated
	err = s.Backward(loss, false)
	want := "RuntimeError: one of the variables needed for gradient computation has been modified by an inplace operation: [torch.cuda.FloatTensor [1024]], which is output 0 of ExpBackward0, is at version 1; expected version 0 instead."
	if err == nil || !strings.HasPrefix(pyText(err), want) {
		t.Errorf("backward: %v, want %q", err, want)
	}
	if after := s.Measure().Devices[0].Allocated; after != before {
		t.Errorf("a failed backward left %d bytes", after-before)
	}
	if err := s.RunInPlace(Ops["add"], Args{w, Scalar(), int64(1)}); err == nil || err.Error() != errLeafInPlace.Error() {
		t.Errorf("w.add_(1) on a leaf: %v", err)
	}
}

// TestPiecesBackwardLayout: cat's and stack's backward give each input
// its piece of the incoming gradient laid out as the gradient is, from
// the piece's start (a narrow, a select): vit_train's patch tokens are
// the gradient of its cat with the class token past the first token,
// 197 tokens apart.
func TestPiecesBackwardLayout(t *testing.T) {
	s := newTestSession(t, 1)
	g := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{10, 197, 384}, DType: Float32, Device: cuda0})
	defer s.Release(g)
	cat := &node{inputs: []edge{{to: &node{}, shape: []int64{10, 1, 384}}, {to: &node{}, shape: []int64{10, 196, 384}}}}
	grads, err := piecesBackward(1)(s, cat, g)
	if err != nil {
		t.Fatal(err)
	}
	if p := grads[1]; !slices.Equal(p.Strides(), []int64{197 * 384, 384, 1}) || p.offset != 384 || p.IsContiguous() {
		t.Errorf("cat's second piece: strides %v offset %d contiguous %v", p.Strides(), p.offset, p.IsContiguous())
	}
	s.dropTensor(grads[0])
	s.dropTensor(grads[1])
	stack := &node{inputs: []edge{{shape: []int64{10, 384}}, {to: &node{}, shape: []int64{10, 384}}}}
	h := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{10, 2, 384}, DType: Float32, Device: cuda0})
	defer s.Release(h)
	if grads, err = piecesBackward(1)(s, stack, h); err != nil {
		t.Fatal(err)
	}
	if p := grads[1]; !slices.Equal(p.Strides(), []int64{768, 1}) || p.offset != 384 || grads[0] != nil {
		t.Errorf("stack's second piece: strides %v offset %d; the first %v", p.Strides(), p.offset, grads[0])
	}
	for _, p := range grads {
		if p != nil {
			s.dropTensor(p)
		}
	}
}
