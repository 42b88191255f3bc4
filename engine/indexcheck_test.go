package engine

import (
	"strings"
	"testing"
)

// TestValueShapeError: a value broadcasts to the indexing result once
// its leading 1s are dropped, and the error names what is left
// (index_errors.py, index_errors_broadcast.py).
func TestValueShapeError(t *testing.T) {
	for _, c := range []struct {
		value, result []int64
		want          string
	}{
		{[]int64{1, 4}, []int64{2, 4}, ""},
		{[]int64{1, 2, 4}, []int64{2, 4}, ""},
		{[]int64{1, 1, 1}, []int64{2}, ""},
		{nil, []int64{2, 4}, ""},
		{[]int64{1, 3, 4}, []int64{2, 4}, "value tensor of shape [3, 4] cannot be broadcast to indexing result of shape [2, 4]"},
		{[]int64{2, 2, 4}, []int64{2, 4}, "value tensor of shape [2, 2, 4] cannot be broadcast"},
		{[]int64{3}, []int64{2, 4}, "value tensor of shape [3] cannot"},
	} {
		err := ValueShapeError(c.value, c.result)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v into %v: %v, want %q", c.value, c.result, err, c.want)
		}
	}
}

// TestCheckIndexRange: the first index out of range, element by element
// of the broadcast indices, names its place among the indices; on the
// GPU the error is the device assert's; unknown values are not checked
// and the report says so.
func TestCheckIndexRange(t *testing.T) {
	s := newTestSession(t, 1)
	host := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{3, 4}, DType: Float32, Device: CPU})
	gpu := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{3, 4}, DType: Float32, Device: cuda0})
	rows := IndexSpec{Dim: 0, Shape: []int64{2, 1}, Values: []float64{0, 5}}
	cols := IndexSpec{Dim: 1, Shape: []int64{3}, Values: []float64{0, 9, 2}}
	wantErr(t, "broadcast indices", s.CheckIndexRange(host, []IndexSpec{rows, cols}), "IndexError: index 9 is out of bounds for dimension 1 with size 4")
	neg := IndexSpec{Dim: 0, Shape: []int64{2}, Values: []float64{-3, -4}}
	wantErr(t, "a negative index", s.CheckIndexRange(host, []IndexSpec{neg}), "IndexError: index -4 is out of bounds for dimension 0 with size 3")
	if err := s.CheckIndexRange(gpu, []IndexSpec{neg}); err == nil || !strings.HasPrefix(pyText(err), "torch.AcceleratorError: index -4 is out of bounds for dimension 0 with size 3 on cuda:0: PyTorch raises nothing at this statement") {
		t.Errorf("on the GPU: %v", err)
	}
	s.events = nil
	unknown := IndexSpec{Dim: 0, Shape: []int64{2}}
	if err := s.CheckIndexRange(gpu, []IndexSpec{unknown, cols}); err != nil || len(s.events) != 1 || !strings.Contains(s.events[0], "not known") {
		t.Errorf("unknown values: %v, report %q", err, s.events)
	}
	if err := s.CheckIndexRange(host, []IndexSpec{{Dim: 0, Shape: []int64{3}, Values: []float64{-3, 0, 2}}}); err != nil {
		t.Errorf("indices in range: %v", err)
	}
}
