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
// reduction) and checks each allocation and free, forward and
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
			loss: func(s *Session, a, b *Tensor) (*Tensor, error) { return s.crossEntropy(a, b, reduceNone, 0) }},
		{name: "ce probs none", shape: []int64{2048, 1024}, target: []int64{2048, 1024}, dtype: f32,
			loss: func(s *Session, a, b *Tensor) (*Tensor, error) { return s.crossEntropy(a, b, reduceNone, 0) }},
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
