package engine

import "testing"

// TestGeneralRuleSavesNoNumber: the general rule of a binary op whose
// other operand is a Python number (x * 2) saves no tensor for it, as
// PyTorch keeps a wrapped number on the host, so the backward runs and
// frees the graph (leaf_lifetime.py under GPUMEMREPL_FORCE_GENERAL=all
// stopped at it with an internal error).
func TestGeneralRuleSavesNoNumber(t *testing.T) {
	s, err := NewSession(Options{Preset: Presets["h200"], FakeHost: true, ForceGeneral: []string{"all"}})
	if err != nil {
		t.Fatal(err)
	}
	x := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{1 << 20}, DType: Float32, Device: cuda0, RequiresGrad: true})
	y, err := s.Run(Ops["mul"], Args{x, Scalar()})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.StepEstimatesSince(0)) == 0 {
		t.Fatal("mul ran by its recorded rule, not the general one")
	}
	loss, err := s.Op("sum", y)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Backward(loss, false); err != nil {
		t.Fatal(err)
	}
	s.Release(y)
	s.Release(loss)
	// x and its gradient, 4 MiB each, are all that is left
	if got := s.Measure().Devices[0].Allocated; got != 8<<20 {
		t.Errorf("after the backward %d bytes allocated, want x's and its gradient's %d", got, 8<<20)
	}
}
