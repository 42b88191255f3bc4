package engine

import "testing"

// graph is y = relu(x * w).sum() over two 4 MiB leaves.
func graph(t *testing.T, s *Session) (x, w, y *Tensor) {
	t.Helper()
	spec := TensorSpec{Op: "ones", Shape: []int64{1 << 20}, DType: Float32, Device: cuda0, RequiresGrad: true}
	x, w = mustTensor(t, s, spec), mustTensor(t, s, spec)
	h, err := s.Op("mul", x, w)
	if err == nil {
		var r *Tensor
		r, err = s.Op("relu", h)
		s.dropTensor(h)
		if err == nil {
			y, err = s.Op("sum", r)
			s.dropTensor(r)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	return x, w, y
}

// TestAutogradGradComputesOnlyWhatItNeeds: grad(y, x) runs mul's
// backward for x alone (PyTorch's peak: the seed, relu's gradient and
// x's, not w's; autograd_api.jsonl), returns it, writes no .grad, and
// with retain_graph keeps relu's saved output.
func TestAutogradGradComputesOnlyWhatItNeeds(t *testing.T) {
	s := newTestSession(t, 1)
	x, w, y := graph(t, s)
	before := s.Measure().Devices[0].Allocated
	if err := s.ResetPeak(0); err != nil {
		t.Fatal(err)
	}
	gs, err := s.AutogradGrad(y, nil, []*Tensor{x}, true)
	if err != nil {
		t.Fatal(err)
	}
	f := s.Measure().Devices[0]
	if len(gs) != 1 || gs[0].Numel() != x.Numel() || x.HasGrad() || w.HasGrad() {
		t.Fatalf("grad(y, x) gave %d tensors; x has .grad %v, w %v", len(gs), x.HasGrad(), w.HasGrad())
	}
	if got, want := f.Allocated-before, x.Bytes(); got != want {
		t.Errorf("after grad(y, x): %d more bytes, want x's gradient, %d", got, want)
	}
	if got, want := f.MaxAllocated-before, 512+2*x.Bytes(); got != want {
		t.Errorf("grad(y, x) peak: %d bytes above, want %d", got, want)
	}
	s.dropTensor(gs[0])
	gs, err = s.AutogradGrad(y, nil, []*Tensor{x, w}, false)
	if err != nil || len(gs) != 2 {
		t.Fatalf("grad(y, [x, w]): %v", err)
	}
	if got := s.Measure().Devices[0].Allocated - before; got != 2*x.Bytes()-x.Bytes() {
		t.Errorf("grad(y, [x, w]) without retain: %d more bytes, want both gradients less relu's saved output", got)
	}
	if _, err := s.AutogradGrad(y, nil, []*Tensor{x}, false); err != errSecondPass {
		t.Errorf("a third grad: error %v, want %v", err, errSecondPass)
	}
}

// TestBackwardWithGradient: a non-scalar's backward(gradient) uses the
// gradient as it is (mul's backward makes each leaf's gradient, stolen
// into .grad), and a wrong shape is PyTorch's error.
func TestBackwardWithGradient(t *testing.T) {
	s := newTestSession(t, 1)
	x, w, _ := graph(t, s)
	z, err := s.Op("mul", x, w)
	if err != nil {
		t.Fatal(err)
	}
	g := mustTensor(t, s, TensorSpec{Op: "ones", Shape: x.Shape, DType: Float32, Device: cuda0})
	before := s.Measure().Devices[0].Allocated
	if err := s.BackwardWith(z, g, false); err != nil {
		t.Fatal(err)
	}
	if got := s.Measure().Devices[0].Allocated - before; got != 2*x.Bytes() || !x.HasGrad() || !w.HasGrad() {
		t.Errorf("z.backward(g): %d more bytes, want the two .grad (%d)", got, 2*x.Bytes())
	}
	small := mustTensor(t, s, TensorSpec{Op: "ones", Shape: []int64{2}, DType: Float32, Device: cuda0})
	wantErr(t, "backward(wrong shape)", s.BackwardWith(z, small, false),
		"RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([2]) and output[0] has a shape of torch.Size([1048576]).")
}
