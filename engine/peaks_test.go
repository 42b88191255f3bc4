package engine

import (
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

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

// TestFirstOOMKeepsTheFirst: the first failed allocation is kept, with
// the code running then, and a later one does not replace it.
func TestFirstOOMKeepsTheFirst(t *testing.T) {
	s := newTestSession(t, 1)
	line := 7
	s.RecordFrames(func(fr []snapshot.Frame) []snapshot.Frame {
		return append(fr, snapshot.Frame{Filename: "train.py", Line: line, Name: "<module>"})
	})
	if s.FirstOOM() != nil {
		t.Fatal("an OOM before any allocation")
	}
	huge := int64(Presets["h200"].Total / 4)
	for _, n := range []int64{huge, 2 * huge} {
		if _, err := s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{n}, DType: Float32, Device: cuda0}); err == nil {
			t.Fatalf("%d floats fit on an H200", n)
		}
		line++
	}
	r := s.FirstOOM()
	if r == nil || !strings.Contains(r.Message, "Tried to allocate 139.80 GiB") || len(r.Frames) != 1 || r.Frames[0].Line != 7 {
		t.Errorf("first OOM %+v, want the 139.80 GiB request at train.py:7", r)
	}
}
