package engine

import "testing"

// chain is relu(x * w) * w on the session's tensors, dropping the
// intermediates as Python does: mul saves its inputs, relu its output,
// so without checkpointing relu's output stays for backward.
func chain(t *testing.T, s *Session, x, w *Tensor) (*Tensor, error) {
	t.Helper()
	h, err := s.Op("mul", x, w)
	if err != nil {
		return nil, err
	}
	y, err := s.Op("relu", h)
	s.Release(h)
	if err != nil {
		return nil, err
	}
	z, err := s.Op("mul", y, w)
	s.Release(y)
	return z, err
}

// dropoutChain is dropout(x * w) * w: dropout saves its mask, a tensor
// it makes besides its output, after it runs.
func dropoutChain(t *testing.T, s *Session, x, w *Tensor) (*Tensor, error) {
	t.Helper()
	h, err := s.Op("mul", x, w)
	if err != nil {
		return nil, err
	}
	d, err := s.Op("dropout", h)
	s.Release(h)
	if err != nil {
		return nil, err
	}
	z, err := s.Op("mul", d, w)
	s.Release(d)
	return z, err
}

// runChain runs chain on 4 MiB leaves, checkpointed (non-reentrant) or
// not, then backward with a gradient of ones; it returns the bytes
// allocated after forward and after backward, and the 4 MiB allocations
// backward made.
func runChain(t *testing.T, chain func(*testing.T, *Session, *Tensor, *Tensor) (*Tensor, error), checkpointed bool) (fwd, bwd uint64, allocs int) {
	s := newTestSession(t, 1)
	leaf := TensorSpec{Op: "ones", Shape: []int64{1 << 20}, DType: Float32, Device: cuda0, RequiresGrad: true}
	x, w := mustTensor(t, s, leaf), mustTensor(t, s, leaf)
	var z *Tensor
	var err error
	if checkpointed {
		c, err := s.BeginCheckpoint([]*Tensor{x, w}, 0)
		if err != nil {
			t.Fatal(err)
		}
		z, err = chain(t, s, x, w)
		s.EndCheckpoint(c, func() error {
			again, err := chain(t, s, x, w)
			if err != nil {
				if c.Stopped() {
					return nil
				}
				return err
			}
			s.Release(again)
			return nil
		}, nil)
	} else {
		z, err = chain(t, s, x, w)
	}
	if err != nil {
		t.Fatal(err)
	}
	fwd = s.Measure().Devices[0].Allocated
	g := mustTensor(t, s, TensorSpec{Op: "ones", Shape: []int64{1 << 20}, DType: Float32, Device: cuda0})
	mark := len(s.History(0))
	if err := s.BackwardWith(z, g, false); err != nil {
		t.Fatal(err)
	}
	for _, e := range s.History(0)[mark:] {
		if e.Action == "alloc" && e.Size == 4<<20 {
			allocs++
		}
	}
	s.Release(g)
	return fwd, s.Measure().Devices[0].Allocated, allocs
}

// TestCheckpointKeepsInputsAndStopsEarly: a checkpointed region keeps
// no intermediate for backward (relu's output goes), backward recomputes
// x * w and its relu but not the last mul (the early stop: it saves only
// its inputs), and leaves the same gradients as the plain graph.
func TestCheckpointKeepsInputsAndStopsEarly(t *testing.T) {
	plainFwd, plainBwd, plainAllocs := runChain(t, chain, false)
	fwd, bwd, allocs := runChain(t, chain, true)
	if plainFwd-fwd != 4<<20 {
		t.Errorf("after forward: %d bytes checkpointed, %d plain; want relu's 4 MiB output less", fwd, plainFwd)
	}
	if bwd != plainBwd {
		t.Errorf("after backward: %d bytes checkpointed, %d plain; want the same gradients", bwd, plainBwd)
	}
	if allocs != plainAllocs+2 {
		t.Errorf("backward made %d tensors of 4 MiB checkpointed, %d plain; want 2 more (x * w and relu recomputed, the last mul not)", allocs, plainAllocs)
	}
}

// TestCheckpointStopsAfterAnOpThatSavesWhatItMade: dropout saves its
// mask after it runs, so the recomputation stops after dropout (its
// output and mask made again, the last mul not), and backward leaves the
// plain graph's gradients and nothing else.
func TestCheckpointStopsAfterAnOpThatSavesWhatItMade(t *testing.T) {
	plainFwd, plainBwd, plainAllocs := runChain(t, dropoutChain, false)
	fwd, bwd, allocs := runChain(t, dropoutChain, true)
	const mask, out = 1 << 20, 4 << 20 // bool and float32 of 1M elements
	if plainFwd-fwd != mask+out {
		t.Errorf("after forward: %d bytes checkpointed, %d plain; want dropout's mask and output less", fwd, plainFwd)
	}
	if bwd != plainBwd {
		t.Errorf("after backward: %d bytes checkpointed, %d plain; want the same gradients", bwd, plainBwd)
	}
	if allocs != plainAllocs+2 {
		t.Errorf("backward made %d tensors of 4 MiB checkpointed, %d plain; want 2 more (x * w and dropout's output)", allocs, plainAllocs)
	}
}
