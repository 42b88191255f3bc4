package engine

import "testing"

// TestConvertParameter: half() of a GPU parameter with a .grad makes the
// float16 copy before the float32 storage goes, then the same for the
// .grad (module_convert.jsonl: +new -old, +new -old), so the peak is the
// data plus one half-size copy; the parameter keeps its identity.
func TestConvertParameter(t *testing.T) {
	s := newTestSession(t, 1)
	p := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{4 << 20}, DType: Float32, Device: cuda0, RequiresGrad: true})
	g, err := s.alloc(p.Shape, p.DType, cuda0)
	if err != nil {
		t.Fatal(err)
	}
	p.slot.grad = g
	before := s.Measure().Devices[0].Allocated
	if err := s.ResetPeak(0); err != nil {
		t.Fatal(err)
	}
	half := func(DType) DType { return DTypes["float16"] }
	if err := s.ConvertParameter(p, cuda0, half); err != nil {
		t.Fatal(err)
	}
	f := s.Measure().Devices[0]
	if p.DType.Name != "float16" || gradOf(p).DType.Name != "float16" || !p.RequiresGrad() {
		t.Errorf("after half(): %s with a %s .grad", p.DType.Name, gradOf(p).DType.Name)
	}
	if got, want := f.Allocated, before/2; got != want {
		t.Errorf("after half(): %d bytes, want %d", got, want)
	}
	if got, want := f.MaxAllocated, before+p.Bytes(); got != want {
		t.Errorf("half()'s peak: %d bytes, want %d (the data and one float16 copy)", got, want)
	}
}

// TestConvertFromHost: a host float32 tensor converted to float16 on the
// GPU is cast where it is and then copied, so the GPU holds only the
// result (module_convert.jsonl's to(device, dtype) from the host).
func TestConvertFromHost(t *testing.T) {
	s := newTestSession(t, 1)
	h := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{1 << 20}, DType: Float32, Device: CPU})
	c, err := s.Convert(h, cuda0, DTypes["float16"])
	if err != nil {
		t.Fatal(err)
	}
	f := s.Measure().Devices[0]
	if c.Device() != cuda0 || c.DType.Name != "float16" || f.MaxAllocated != c.Bytes() {
		t.Errorf("converted to %s %s; GPU peak %d bytes, want %d", c.Device(), c.DType.Name, f.MaxAllocated, c.Bytes())
	}
}
