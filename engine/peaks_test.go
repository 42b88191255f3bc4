package engine

import "testing"

// TestLifetimePeaksOutliveReset: reset_peak_memory_stats lowers
// max_memory_allocated, not the peak the program needed.
func TestLifetimePeaksOutliveReset(t *testing.T) {
	s := newTestSession(t, 1)
	big := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{8 << 20}, DType: Float32, Device: cuda0})
	s.Release(big)
	if err := s.EmptyCache(); err != nil {
		t.Fatal(err)
	}
	mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{1 << 20}, DType: Float32, Device: cuda0})
	if err := s.ResetPeak(0); err != nil {
		t.Fatal(err)
	}
	f := s.Measure().Devices[0]
	alloc, reserved := s.LifetimePeaks(0)
	if f.MaxAllocated != 4<<20 || alloc != 32<<20 {
		t.Errorf("after the reset: max_memory_allocated %d, lifetime %d; want %d and %d", f.MaxAllocated, alloc, 4<<20, 32<<20)
	}
	if f.MaxReserved != 20<<20 || reserved != 32<<20 {
		t.Errorf("after the reset: max_memory_reserved %d, lifetime %d; want %d (the small tensor's segment) and %d", f.MaxReserved, reserved, 20<<20, 32<<20)
	}
}
