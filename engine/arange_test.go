package engine

import (
	"slices"
	"testing"
)

// TestArange: torch.arange's bounds give its length and dtype (int64
// when every bound is an int, float32 otherwise) and, for a short
// range, its values as PyTorch prints them; a zero step and bounds the
// step cannot reach are PyTorch's errors.
func TestArange(t *testing.T) {
	s := newTestSession(t, 1)
	for _, c := range []struct {
		args  Args
		shape []int64
		dtype string
		repr  string
	}{
		{Args{int64(5), nil, int64(1)}, []int64{5}, "int64", "tensor([0, 1, 2, 3, 4])"},
		{Args{int64(2), int64(10), int64(3)}, []int64{3}, "int64", "tensor([2, 5, 8])"},
		{Args{0.0, int64(1), 0.25}, []int64{4}, "float32", "tensor([0.0000, 0.2500, 0.5000, 0.7500])"},
	} {
		a := append(slices.Clone(c.args), nil, nil, false)
		x, err := s.Run(Ops["arange"], a)
		if err != nil {
			t.Fatalf("arange%v: %v", c.args[:3], err)
		}
		if !slices.Equal(x.Shape, c.shape) || x.DType.Name != c.dtype || repr(x) != c.repr {
			t.Errorf("arange%v: %v %s %s, want %v %s %s", c.args[:3], x.Shape, x.DType.Name, repr(x), c.shape, c.dtype, c.repr)
		}
		s.Release(x)
	}
	for _, c := range []struct {
		args Args
		want string
	}{
		{Args{int64(0), int64(5), int64(0)}, "RuntimeError: step must be nonzero"},
		{Args{int64(5), int64(0), int64(1)}, "RuntimeError: upper bound and larger bound inconsistent with step sign"},
	} {
		_, err := s.Run(Ops["arange"], append(slices.Clone(c.args), nil, nil, false))
		wantErr(t, "arange", err, c.want)
	}
}
