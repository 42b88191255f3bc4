package engine

import (
	"slices"
	"strconv"
	"testing"
)

// bf16 is the setting of torch.autocast('cuda', dtype=torch.bfloat16).
var bf16 = AutocastState{Enabled: true, DType: DTypes["bfloat16"], CacheEnabled: true}

// linearSetup is an nn.Linear(1024, 4096) on cuda:0 and a [512, 1024]
// float32 input (testdata/models/train_mlp.py's first layer), after one
// plain forward so that cuBLAS's workspace exists.
func linearSetup(t *testing.T) func(s *Session) []*Tensor {
	return func(s *Session) []*Tensor {
		w, err := s.NewParameter([]int64{4096, 1024}, cuda0)
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.NewParameter([]int64{4096}, cuda0)
		if err != nil {
			t.Fatal(err)
		}
		x := mustTensor(t, s, TensorSpec{Op: "randn", Shape: []int64{512, 1024}, DType: Float32, Device: cuda0})
		y, err := s.Linear(x, w, b)
		if err != nil {
			t.Fatal(err)
		}
		s.dropTensor(y)
		return []*Tensor{x, w, b}
	}
}

// actionsSince are cuda:0's allocations and frees from event i on, as
// "+size" and "-size".
func actionsSince(s *Session, i int) []string {
	var out []string
	for _, e := range s.History(0)[i:] {
		switch e.Action {
		case "alloc":
			out = append(out, "+"+strconv.FormatUint(e.Size, 10))
		case "free_requested":
			out = append(out, "-"+strconv.FormatUint(e.Size, 10))
		}
	}
	return out
}

// TestAutocastLinear checks the casts of train_mlp.jsonl's autocast
// step (recorded on the H200): the bias, the weight, then the input are
// cast to bfloat16, then the output is made; a second forward in the
// region casts only the input (the weight and bias come from the
// cache); the region's exit frees the cached casts no graph saved (the
// input needs no grad, so the weight's cast is not saved).
func TestAutocastLinear(t *testing.T) {
	s := newTestSession(t, 1)
	ts := linearSetup(t)(s)
	i := len(s.History(0))
	prev := s.EnterAutocast(bf16)
	y, err := s.Linear(ts[0], ts[1], ts[2])
	if err != nil {
		t.Fatal(err)
	}
	if y.DType.Name != "bfloat16" {
		t.Errorf("output dtype %s, want bfloat16", y.DType.Name)
	}
	if got, want := actionsSince(s, i), []string{"+8192", "+8388608", "+1048576", "+4194304"}; !slices.Equal(got, want) {
		t.Errorf("first forward: %v, want %v", got, want)
	}
	i = len(s.History(0))
	y2, err := s.Linear(ts[0], ts[1], ts[2])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actionsSince(s, i), []string{"+1048576", "+4194304"}; !slices.Equal(got, want) {
		t.Errorf("second forward: %v, want %v", got, want)
	}
	i = len(s.History(0))
	s.ExitAutocast(prev)
	got := actionsSince(s, i)
	slices.Sort(got)
	if want := []string{"-8192", "-8388608"}; !slices.Equal(got, want) {
		t.Errorf("exit: %v, want %v", got, want)
	}
	if s.Autocast().Enabled {
		t.Error("autocast still on after the region")
	}
	i = len(s.History(0))
	y3, err := s.Linear(ts[0], ts[1], ts[2])
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actionsSince(s, i), []string{"+8388608"}; !slices.Equal(got, want) || y3.DType.Name != "float32" {
		t.Errorf("after the region: %v %s, want %v float32", got, y3.DType.Name, want)
	}
	for _, t := range []*Tensor{y, y2, y3} {
		s.dropTensor(t)
	}
}

// TestAutocastPolicies checks which dtype each kind of op runs in under
// float16 autocast: mm in float16 (its float32 inputs cast), exp in
// float32 (a float16 input cast up), sum of float16 into float32 with
// no copy, relu as without autocast; nested ops are not cast again and
// enabled=False inside a region turns casting off.
func TestAutocastPolicies(t *testing.T) {
	s := newTestSession(t, 1)
	f16 := DTypes["float16"]
	a := mustTensor(t, s, TensorSpec{Op: "randn", Shape: []int64{1024, 1024}, DType: Float32, Device: cuda0})
	h := mustTensor(t, s, TensorSpec{Op: "randn", Shape: []int64{1024, 1024}, DType: f16, Device: cuda0})
	prev := s.EnterAutocast(AutocastState{Enabled: true, DType: f16, CacheEnabled: true})
	for _, c := range []struct {
		op    string
		args  []*Tensor
		dtype string
	}{
		{"mm", []*Tensor{a, a}, "float16"},
		{"exp", []*Tensor{h}, "float32"},
		{"sum", []*Tensor{h}, "float32"},
		{"relu", []*Tensor{h}, "float16"},
	} {
		y, err := s.Op(c.op, c.args...)
		if err != nil {
			t.Fatalf("%s: %v", c.op, err)
		}
		if y.DType.Name != c.dtype {
			t.Errorf("%s: %s, want %s", c.op, y.DType.Name, c.dtype)
		}
		s.dropTensor(y)
	}
	off := s.EnterAutocast(AutocastState{DType: f16, CacheEnabled: true})
	y, err := s.Op("mm", a, a)
	if err != nil || y.DType.Name != "float32" {
		t.Errorf("mm with autocast disabled: %v %v, want float32", y, err)
	}
	s.ExitAutocast(off)
	s.ExitAutocast(prev)
}

// TestGradScalerTensors checks what GradScaler makes: the scale and the
// growth tracker at the first scale(), with the scaled loss; unscale_'s
// float64 temporaries, its inverse, found_inf and their copies, as
// amp_scaler.jsonl recorded them; update() frees found_inf's copy; step() twice before update() and update() before any step
// are PyTorch's errors.
func TestGradScalerTensors(t *testing.T) {
	s := newTestSession(t, 1)
	loss := mustTensor(t, s, TensorSpec{Op: "ones", Shape: nil, DType: Float32, Device: cuda0})
	g := NewGradScaler(8, 2, 0.5, 2)
	opt := new(int)
	wantErr(t, "update first", s.ScalerUpdate(g), "AssertionError: Attempted update but _scale is None.  This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration.")
	i := len(s.History(0))
	scaled, err := s.ScaleOutput(g, loss)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actionsSince(s, i), []string{"+4", "+4", "+4"}; !slices.Equal(got, want) {
		t.Errorf("scale: %v, want %v", got, want)
	}
	i = len(s.History(0))
	steps := 0
	if err := s.ScalerStep(g, opt, func() error { steps++; return nil }); err != nil {
		t.Fatal(err)
	}
	if got, want := actionsSince(s, i), []string{"+8", "+8", "-8", "+4", "-8", "+4", "+4", "+4", "-4", "-4", "-4"}; !slices.Equal(got, want) || steps != 1 {
		t.Errorf("step: %v and %d steps, want %v and 1", got, steps, want)
	}
	wantErr(t, "second step", s.ScalerStep(g, opt, func() error { return nil }), "RuntimeError: step() has already been called since the last update().")
	i = len(s.History(0))
	if err := s.ScalerUpdate(g); err != nil {
		t.Fatal(err)
	}
	if got, want := actionsSince(s, i), []string{"-4"}; !slices.Equal(got, want) {
		t.Errorf("update: %v, want %v", got, want)
	}
	wantErr(t, "update twice", s.ScalerUpdate(g), "AssertionError: No inf checks were recorded prior to update.")
	if err := s.Unscale(g, opt); err != nil {
		t.Fatal(err)
	}
	if err := s.ScalerUpdate(g); err != nil {
		t.Fatal(err)
	}
	if g.Scale() != 16 {
		t.Errorf("scale after 2 updates of growth_interval 2: %v, want 16", g.Scale())
	}
	s.dropTensor(scaled)
	s.FreeGradScaler(g)
}

// TestAutocastHalfToFloat replays amp_reductions.jsonl's float16 softmax
// under float16 autocast: the float32 output alone (no cast of the
// input), then in backward the input's float16 gradient and a float32
// temporary of its shape.
func TestAutocastHalfToFloat(t *testing.T) {
	s := newTestSession(t, 1)
	f16 := DTypes["float16"]
	h := mustTensor(t, s, TensorSpec{Op: "randn", Shape: []int64{1024, 1024}, DType: f16, Device: cuda0, RequiresGrad: true})
	prev := s.EnterAutocast(AutocastState{Enabled: true, DType: f16, CacheEnabled: true})
	i := len(s.History(0))
	sm, err := s.Run(Ops["softmax"], Args{h, int64(1)})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actionsSince(s, i), []string{"+4194304"}; !slices.Equal(got, want) || sm.DType.Name != "float32" {
		t.Errorf("forward: %v %s, want %v float32", got, sm.DType.Name, want)
	}
	loss, err := s.Op("sum", sm)
	if err != nil {
		t.Fatal(err)
	}
	s.ExitAutocast(prev)
	s.dropTensor(sm)
	i = len(s.History(0))
	if err := s.Backward(loss, false); err != nil {
		t.Fatal(err)
	}
	got := actionsSince(s, i)
	if want := []string{"+4", "+2097152", "+4194304"}; len(got) < 3 || !slices.Equal(got[:3], want) {
		t.Errorf("backward: %v, want it to begin %v", got, want)
	}
}

// TestAutocastCrossEntropy replays amp_reductions.jsonl's F.cross_entropy of
// bfloat16 logits under bf16 autocast: the bfloat16 log-probabilities,
// nll_loss's float32 cast of them, then the loss and total_weight.
func TestAutocastCrossEntropy(t *testing.T) {
	s := newTestSession(t, 1)
	logits := mustTensor(t, s, TensorSpec{Op: "randn", Shape: []int64{512, 8192}, DType: DTypes["bfloat16"], Device: cuda0, RequiresGrad: true})
	target := mustTensor(t, s, TensorSpec{Op: "zeros", Shape: []int64{512}, DType: DTypes["int64"], Device: cuda0})
	prev := s.EnterAutocast(bf16)
	defer s.ExitAutocast(prev)
	i := len(s.History(0))
	loss, err := s.Op("cross_entropy", logits, target)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := actionsSince(s, i), []string{"+8388608", "+16777216", "+4", "+4"}; !slices.Equal(got, want) || loss.DType.Name != "float32" {
		t.Errorf("cross_entropy: %v %s, want %v float32", got, loss.DType.Name, want)
	}
}
