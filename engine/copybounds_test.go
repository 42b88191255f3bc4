package engine

import (
	"strings"
	"testing"
)

// A copy never reaches past a storage, on any device: the CUDA driver
// refuses one (cuMemcpy: CUDA_ERROR_INVALID_VALUE), and the simulated
// device refuses it too, where it copied nothing and said nothing. An
// expanded view's dense copy (w.contiguous(), w.clone(), w.cpu(),
// pin_memory of a host one) reads only its storage: its 4 KB, not the
// 4 MB it shows, as PyTorch's kernel reads it (the H200 refused the
// 4 MB copy; pin_memory of a host one read past the buffer and panicked).
func TestCopiesStayInTheirStorage(t *testing.T) {
	s := newTestSession(t, 1)
	small := mustTensor(t, s, TensorSpec{Op: "ones", Shape: []int64{1000, 1}, DType: Float32, Device: cuda0})
	big := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{1000, 1000}, DType: Float32, Device: cuda0})
	err := s.copyBytes(big.st, small.st, 0, big.Bytes())
	if err == nil || !strings.Contains(err.Error(), "a copy of 4000000 bytes from byte 0 of a 4000-byte storage into a 4000000-byte one reaches past the storage") {
		t.Errorf("a 4 MB copy out of a 4 KB storage on the simulated device: %v", err)
	}
	w, err := s.Expand(small, []int64{1000, 1000})
	if err != nil {
		t.Fatal(err)
	}
	if got := readBytes(w); got != 4000 {
		t.Errorf("an expanded view reads %d bytes of its storage, want 4000", got)
	}
	if _, err := s.Contiguous(w); err != nil {
		t.Errorf("contiguous: %v", err)
	}
	if _, err := s.copyTo(w, Device{}); err != nil {
		t.Errorf("cpu: %v", err)
	}
	s, err = NewSession(Options{Preset: Presets["h200"], Devices: 1}) // host tensors with their bytes
	if err != nil {
		t.Fatal(err)
	}
	host := mustTensor(t, s, TensorSpec{Op: "ones", Shape: []int64{1000, 1}, DType: Float32})
	h, err := s.Expand(host, []int64{1000, 1000})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.PinMemory(h); err != nil {
		t.Errorf("pin_memory: %v", err)
	}
}

// The simulated device checks each range a copy or a memset touches as
// the driver does (cuMemcpy, cuMemsetD8: CUDA_ERROR_INVALID_VALUE): one
// inside a tensor's allocation passes; one past its segment, one of a
// segment given back and one of another device's pointer are refused, where
// the simulated device copied nothing and said nothing.
func TestSimulatedDeviceChecksEachRange(t *testing.T) {
	s := newTestSession(t, 2)
	x := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{1000}, DType: Float32, Device: cuda0})
	y := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{1000}, DType: Float32, Device: cuda0})
	on0, on1 := s.gpus[0].b, s.gpus[1].b
	p := x.st.ptr
	if err := on0.zero(p, 4000); err != nil {
		t.Errorf("a tensor's own bytes: %v", err)
	}
	for _, c := range []struct {
		name string
		err  error
	}{
		{"a memset past its 2 MiB segment", on0.zero(p, 4<<20)},
		{"a copy out past its segment", on0.copyOut(make([]byte, 16), p+2<<20-8)},
		{"a copy in past its segment", on0.copyIn(p+2<<20-8, make([]byte, 16))},
		{"cuda:0's pointer copied on cuda:1", on1.copyDevice(p, on0, y.st.ptr, 16)},
		{"cuda:0's pointer read as cuda:1's", on0.copyDevice(p, on1, y.st.ptr, 16)},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), "CUDA_ERROR_INVALID_VALUE") {
			t.Errorf("%s: %v", c.name, c.err)
		}
	}
	s.Release(x)
	s.Release(y)
	if err := on0.zero(p, 16); err != nil { // cached: the driver's still
		t.Errorf("a cached block's bytes: %v", err)
	}
	if err := s.EmptyCache(); err != nil {
		t.Fatal(err)
	}
	if err := on0.zero(p, 16); err == nil {
		t.Error("a memset of a segment given back (cuMemFree) was accepted")
	}
}
