package engine

import "testing"

// TestPinnedHostMemory: a pinned copy takes a power-of-two block that
// host RSS counts while the caching host allocator holds it, a freed
// block is reused, and host empty_cache gives it back.
func TestPinnedHostMemory(t *testing.T) {
	s := newTestSession(t, 1)
	x := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{1000}, DType: Float32, Device: CPU})
	p, err := s.PinMemory(x)
	if err != nil {
		t.Fatal(err)
	}
	if !p.IsPinned() || x.IsPinned() {
		t.Errorf("pinned: copy %v, source %v", p.IsPinned(), x.IsPinned())
	}
	if f := s.Measure(); f.Pinned != 4096 || f.HostRSS != 4000+4096 {
		t.Errorf("after pin_memory: pinned %d, host %d; want 4096 and %d", f.Pinned, f.HostRSS, 4000+4096)
	}
	s.Release(p)
	q := mustTensor(t, s, TensorSpec{Op: "empty", Shape: []int64{3000}, DType: DTypes["uint8"], Device: CPU, Pinned: true})
	if f := s.Measure(); f.Pinned != 4096 {
		t.Errorf("a second 4 KiB block was taken: pinned %d", f.Pinned)
	}
	s.Release(q)
	s.HostEmptyCache()
	if f := s.Measure(); f.Pinned != 0 || f.HostRSS != 4000 {
		t.Errorf("after host empty_cache: pinned %d, host %d", f.Pinned, f.HostRSS)
	}
	if _, err := s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{4}, DType: Float32, Device: cuda0, Pinned: true}); err == nil || err.Error() != "Only dense CPU tensors can be pinned" {
		t.Errorf("a pinned CUDA tensor: %v", err)
	}
	// a block the machine cannot give changes nothing (review)
	if _, err := s.NewTensor(TensorSpec{Op: "empty", Shape: []int64{1 << 60}, DType: DTypes["uint8"], Device: CPU, Pinned: true}); err == nil {
		t.Error("2^60 bytes pinned")
	}
	if f, st := s.Measure(), s.pinnedHost().Stats(); f.Pinned != 0 || st.Allocations.Allocated != 1 || st.ActiveRequests.Allocated != 2 {
		t.Errorf("after a failed pin: pinned %d, stats %+v", f.Pinned, st)
	}
	if s.HostMemoryStats() != nil {
		t.Error("host stats before CUDA was initialized")
	}
}
