package engine

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// probedEvents are the allocator events testdata/pyrules/loss_probe.txt
// recorded for case name: forward's and backward's, as "aa4 fc4".
func probedEvents(t *testing.T, name string) (fwd, bwd string) {
	t.Helper()
	b, err := os.ReadFile("../testdata/pyrules/loss_probe.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "\n== "+name+":")
	if !ok {
		t.Fatalf("no case %q in the probe", name)
	}
	for _, l := range strings.Split(rest, "\n") {
		if e, ok := strings.CutPrefix(l, " fwd "); ok && fwd == "" {
			fwd = e
		}
		if e, ok := strings.CutPrefix(l, " bwd "); ok {
			return fwd, e
		}
	}
	t.Fatalf("case %q has no backward", name)
	return "", ""
}

// eventsSince writes cuda:0's allocations and frees from event i on as
// the probe does.
func eventsSince(s *Session, i int) string {
	var out []string
	for _, e := range s.History(0)[i:] {
		switch e.Action {
		case "alloc":
			out = append(out, fmt.Sprint("aa", e.Size))
		case "free_completed":
			out = append(out, fmt.Sprint("fc", e.Size))
		}
	}
	return strings.Join(out, " ")
}

// TestLossesAsProbed runs the probe's cases that its rule scripts do
// not (a target that requires grad, a 3-d input, probabilities without
// reduction, a class weight) and checks each allocation and free, forward and
// backward, against PyTorch's.
func TestLossesAsProbed(t *testing.T) {
	f32, i64 := DTypes["float32"], DTypes["int64"]
	for _, c := range []struct {
		name  string
		loss  func(s *Session, a, b *Tensor) (*Tensor, error)
		shape []int64
		// target is the target's shape and dtype (int64: class indices)
		target []int64
		dtype  DType
		grad   bool // the target requires grad
		// sigmoid: the target is the sigmoid of the tensor made (a temporary in the probe)
		sigmoid bool
	}{
		{name: "mse u", shape: []int64{1024, 1024}, target: []int64{1024, 1024}, dtype: f32, grad: true,
			loss: func(s *Session, a, b *Tensor) (*Tensor, error) { return s.mseLoss(a, b, reduceMean) }},
		{name: "l1 u", shape: []int64{1024, 1024}, target: []int64{1024, 1024}, dtype: f32, grad: true,
			loss: func(s *Session, a, b *Tensor) (*Tensor, error) { return s.l1Loss(a, b, reduceMean) }},
		{name: "bce u", shape: []int64{1024, 1024}, target: []int64{1024, 1024}, dtype: f32, grad: true, sigmoid: true,
			loss: func(s *Session, a, b *Tensor) (*Tensor, error) { return s.bceWithLogits(a, b, reduceMean) }},
		{name: "ce 3d none", shape: []int64{64, 32, 256}, target: []int64{64, 256}, dtype: i64,
			loss: func(s *Session, a, b *Tensor) (*Tensor, error) { return s.crossEntropy(a, b, nil, reduceNone, 0) }},
		{name: "ce weight", shape: []int64{2048, 1024}, target: []int64{2048}, dtype: i64,
			loss: func(s *Session, a, b *Tensor) (*Tensor, error) {
				w, err := s.NewTensor(TensorSpec{Op: "ones", Shape: []int64{1024}, DType: a.DType, Device: cuda0})
				if err != nil {
					return nil, err
				}
				defer s.dropTensor(w) // a temporary in the probe, then held by the node alone
				return s.crossEntropy(a, b, w, reduceMean, 0)
			}},
		{name: "ce probs none", shape: []int64{2048, 1024}, target: []int64{2048, 1024}, dtype: f32,
			loss: func(s *Session, a, b *Tensor) (*Tensor, error) { return s.crossEntropy(a, b, nil, reduceNone, 0) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newTestSession(t, 1)
			x := mustTensor(t, s, TensorSpec{Op: "empty", Shape: c.shape, DType: f32, Device: cuda0})
			y := mustTensor(t, s, TensorSpec{Op: "empty", Shape: c.target, DType: c.dtype, Device: cuda0})
			for _, leaf := range []*Tensor{x, y} {
				if leaf == x || c.grad {
					if err := s.SetRequiresGrad(leaf); err != nil {
						t.Fatal(err)
					}
				}
			}
			start := len(s.History(0))
			if c.sigmoid {
				var err error
				if y, err = s.Op("sigmoid", y); err != nil {
					t.Fatal(err)
				}
			}
			l, err := c.loss(s, x, y)
			if err != nil {
				t.Fatal(err)
			}
			if c.sigmoid {
				s.dropTensor(y)
			}
			wantFwd, wantBwd := probedEvents(t, c.name)
			if got := eventsSince(s, start); got != wantFwd {
				t.Errorf("forward: %s\nPyTorch's: %s", got, wantFwd)
			}
			start = len(s.History(0))
			root := l
			if len(l.Shape) > 0 { // the probe's l.sum().backward(), l alive
				if root, err = s.Op("sum", l); err != nil {
					t.Fatal(err)
				}
			}
			if err := s.Backward(root, false); err != nil {
				t.Fatal(err)
			}
			if root != l {
				s.dropTensor(root)
			}
			if got := eventsSince(s, start); got != wantBwd {
				t.Errorf("backward: %s\nPyTorch's: %s", got, wantBwd)
			}
		})
	}
}

// TestLossErrors: what PyTorch refuses, the losses refuse with its
// message, allocating nothing; what the tool has not recorded it says
// it does not model.
func TestLossErrors(t *testing.T) {
	f32, i64 := DTypes["float32"], DTypes["int64"]
	for _, c := range []struct {
		op            string
		shape, target []int64
		dtype         DType
		args          map[string]any
		want          string
	}{
		{"mse_loss", []int64{4, 10}, []int64{4, 10}, f32, map[string]any{"reduction": "avg"}, "ValueError: avg is not a valid value for reduction"},
		{"mse_loss", []int64{4, 10}, []int64{10}, f32, nil, "NotImplementedError: F.mse_loss of an input of size [4, 10] and a target of size [10] (broadcast) is not modelled by gpumemrepl"},
		{"l1_loss", []int64{4, 10}, []int64{4, 10}, i64, nil, "NotImplementedError: F.l1_loss of a float32 input and a int64 target is not modelled by gpumemrepl"},
		{"binary_cross_entropy_with_logits", []int64{4, 10}, []int64{4}, f32, nil, "ValueError: Target size (torch.Size([4])) must be the same as input size (torch.Size([4, 10]))"},
		{"binary_cross_entropy_with_logits", []int64{4}, []int64{4}, f32, map[string]any{"pos_weight": true}, "NotImplementedError: F.binary_cross_entropy_with_logits with pos_weight= is not modelled by gpumemrepl"},
		{"nll_loss", []int64{4, 10}, []int64{5}, i64, nil, "ValueError: Expected input batch_size (4) to match target batch_size (5)."},
		{"nll_loss", []int64{4, 10}, []int64{4, 2}, i64, nil, "RuntimeError: 0D or 1D target tensor expected, multi-target not supported"},
		{"nll_loss", []int64{4, 10, 3}, []int64{4, 2}, i64, nil, "RuntimeError: Expected target size [4, 3], got [4, 2]"},
		{"nll_loss", []int64{4, 10}, []int64{4}, i64, map[string]any{"weight": []int64{9}}, "RuntimeError: weight tensor should be defined either for all 10 classes or no classes but got weight tensor of shape: [9]"},
		{"nll_loss", []int64{4, 10}, []int64{4}, i64, map[string]any{"weight": []int64{10}, "reduction": "sum"}, "NotImplementedError: F.nll_loss with weight= other than a dense one of the input's dtype, for a 1-d or 2-d input and reduction='mean' is not modelled by gpumemrepl"},
		{"cross_entropy", []int64{4, 10}, []int64{4, 10}, i64, nil, "RuntimeError: Expected floating point type for target with class probabilities, got Long"},
		{"cross_entropy", []int64{4, 10}, []int64{4}, i64, map[string]any{"label_smoothing": 1.5}, "RuntimeError: label_smoothing must be between 0.0 and 1.0. Got: 1.5"},
		{"cross_entropy", nil, []int64{}, i64, nil, "ValueError: Expected 1 or more dimensions (got 0)"},
	} {
		t.Run(c.want, func(t *testing.T) {
			s := newTestSession(t, 1)
			d := Ops[c.op]
			a := make(Args, len(d.Params))
			for i, p := range d.Params {
				a[i] = p.DefaultValue()
				if v, ok := c.args[p.Name]; ok {
					a[i] = v
				}
				if shape, ok := a[i].([]int64); ok { // a weight of this shape
					a[i] = mustTensor(t, s, TensorSpec{Op: "empty", Shape: shape, DType: f32, Device: cuda0})
				}
				if p.Name == "pos_weight" && a[i] == true {
					a[i] = mustTensor(t, s, TensorSpec{Op: "empty", Shape: c.shape, DType: f32, Device: cuda0})
				}
			}
			a[0] = mustTensor(t, s, TensorSpec{Op: "empty", Shape: c.shape, DType: f32, Device: cuda0})
			a[1] = mustTensor(t, s, TensorSpec{Op: "empty", Shape: c.target, DType: c.dtype, Device: cuda0})
			before := len(s.History(0))
			_, err := s.Run(d, a)
			if err == nil || pyText(err) != c.want {
				t.Fatalf("%s: %v, want %s", c.op, err, c.want)
			}
			if got := eventsSince(s, before); got != "" {
				t.Errorf("allocated %s before failing", got)
			}
		})
	}
}
