package engine

import "testing"

const mib = 1 << 20

// optimParams are a float32 (4 MiB), a float16 (2 MiB) and a bfloat16
// (6 MiB) parameter on the GPU, each with a .grad.
func optimParams(t *testing.T, s *Session) []*Tensor {
	t.Helper()
	var ps []*Tensor
	for _, p := range []struct {
		n  int64
		dt string
	}{{1 << 20, "float32"}, {1 << 20, "float16"}, {3 << 20, "bfloat16"}} {
		x := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{p.n}, DType: DTypes[p.dt], Device: cuda0, RequiresGrad: true})
		g, err := s.alloc(x.Shape, x.DType, cuda0)
		if err != nil {
			t.Fatal(err)
		}
		x.slot.grad = g
		ps = append(ps, x)
	}
	return ps
}

// TestAdamStepPeaks: Adam with L2 weight decay, by implementation, makes
// two moments per parameter (fused: and a 512-byte step counter) at its
// first step, and at its peak holds the temporaries PyTorch's code
// holds (optim_adam.jsonl): foreach, bucket by bucket (bfloat16, float16,
// float32), the decayed gradients and then the square roots, which live
// until the next bucket's exist (peak: the bfloat16 roots and the
// float16 ones, 8 MiB); the for-loop, on the last parameter, its decayed
// gradient, square root and quotient, beside the float16 gradient and
// quotient... of which the float16 pair is gone by then (peak 3 x 6 MiB
// plus the float16 quotient, 20 MiB); fused, none.
func TestAdamStepPeaks(t *testing.T) {
	for _, c := range []struct {
		impl        OptimImpl
		state, peak uint64
	}{
		{Foreach, 24 * mib, 8 * mib},
		{ForLoop, 24 * mib, 20 * mib},
		{Fused, 24*mib + 3*512, 0},
	} {
		s := newTestSession(t, 1)
		ps := optimParams(t, s)
		before := s.Measure().Devices[0].Allocated
		if err := s.ResetPeak(0); err != nil {
			t.Fatal(err)
		}
		o := s.NewOptimizer("Adam")
		err := s.Step(o, []ParamGroup{{Params: ps, GroupOptions: GroupOptions{WeightDecay: 0.01, Impl: c.impl}}})
		if err != nil {
			t.Fatal(err)
		}
		f := s.Measure().Devices[0]
		if got := f.Allocated - before; got != c.state {
			t.Errorf("impl %d: state %d bytes, want %d", c.impl, got, c.state)
		}
		if got := f.MaxAllocated - f.Allocated; got != c.peak {
			t.Errorf("impl %d: peak %d bytes above the state, want %d", c.impl, got, c.peak)
		}
		s.FreeOptimizer(o)
		if got := s.Measure().Devices[0].Allocated; got != before {
			t.Errorf("impl %d: %d bytes after FreeOptimizer, want %d", c.impl, got, before)
		}
	}
}

// TestSGDSkipsParamsWithoutGrad: a parameter without .grad gets no
// momentum buffer; the others get one each, in order.
func TestSGDSkipsParamsWithoutGrad(t *testing.T) {
	s := newTestSession(t, 1)
	ps := optimParams(t, s)
	s.ZeroGrad(ps[1:2], true)
	o := s.NewOptimizer("SGD")
	if err := s.Step(o, []ParamGroup{{Params: ps, GroupOptions: GroupOptions{Momentum: 0.9}}}); err != nil {
		t.Fatal(err)
	}
	got, sts := o.State()
	if len(got) != 2 || got[0] != ps[0] || got[1] != ps[2] || sts[0].Names[0] != "momentum_buffer" {
		t.Errorf("state of %d parameters, want the first and the third", len(got))
	}
}

// TestBucketsOrder: the foreach buckets come in the reverse order of
// each (device, dtype)'s first appearance, each in the parameters' order.
func TestBucketsOrder(t *testing.T) {
	s := newTestSession(t, 1)
	ps := optimParams(t, s)
	ps = append(ps, mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{8}, DType: Float32, Device: cuda0}))
	b := buckets(ps)
	if len(b) != 3 || b[0][0] != ps[2] || b[1][0] != ps[1] || len(b[2]) != 2 || b[2][0] != ps[0] || b[2][1] != ps[3] {
		t.Errorf("buckets %v, want bfloat16, float16, then both float32 in order", b)
	}
}
