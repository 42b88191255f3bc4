package engine

import (
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// Activation checkpointing (torch.utils.checkpoint), as memory
// (testdata/pyrules/ckpt_*.py, recorded with allocator events).
//
// use_reentrant=False: the region's forward records its graph, but every
// tensor a node saves goes through saved-tensor hooks that keep nothing
// (a holder); the region's inputs are kept instead (_NoopSaveInputs),
// until the last node of the region that saved something is released.
// In backward, the first node that unpacks a holder reruns the function
// with grad; each tensor saved during that rerun is kept for its holder,
// and the rerun stops as soon as the last holder is filled (early stop:
// an op that saves only its inputs stops before it allocates its output,
// one that saves its output stops after). A node frees the recomputed
// tensors it unpacked as its backward returns.
//
// use_reentrant=True: the forward runs under no_grad and its output is
// made by a CheckpointFunctionBackward node that saves the inputs; its
// backward reruns the function with grad on detached inputs and runs
// backward through that graph at once (a nested graph task).

// Checkpoint is one non-reentrant checkpointed region (PyTorch's
// _CheckpointFrame).
type Checkpoint struct {
	inputs []*storage // what _NoopSaveInputs keeps
	rng    []*storage // the RNG states it stashed (CPU tensors)
	// holders counts the tensors packed in forward; gone marks those
	// whose node was released before its recomputation.
	holders int
	gone    []bool
	live    int // nodes of the region holding a packed tensor
	ended   bool
	// The early stop: recomputation stops at the stopAlloc-th allocation
	// after the stopRecords-th node it records.
	stopRecords, stopAlloc int
	// stopSaves are what the node the stop falls in saves, packed at the
	// stop: the storage itself (a parameter, an input) or, at
	// stopFrom[i] >= 0, the output of the region's node of that place.
	stopSaves []*storage
	stopFrom  []int
	records   int
	outs      []*storage        // each recorded node's output, this pass
	since     []*storage        // forward: allocations since its last node
	made      map[*storage]bool // forward: every allocation of the region
	// casts are the leaves autocast cast in the region's forward (made,
	// or taken from the cast cache, which the rerun's region of its own
	// does not have: it makes them)
	casts         map[*storage]bool
	lost          bool // the stop needed a tensor that is gone
	hasCasts      bool // the forward cast a leaf
	allocs        int  // recomputation: allocations since its last node
	recompute     func() error
	recomputed    []*storage // by holder; nil once unpacked
	done, stopped bool
	dropped       func() // the front end lets go of the function's arguments
}

// checkpoints is the session's checkpointing state: the region whose
// forward is running, the one being recomputed, and whether
// torch.autograd.grad is running (the reentrant variant refuses it).
type checkpoints struct {
	forward, recompute *Checkpoint
	grad               bool
}

// errStopRecompute ends a recomputation once every holder is filled
// (PyTorch's _StopRecomputationError); the front end swallows it (see
// Stopped).
var errStopRecompute = Errorf(RuntimeError, "torch.utils.checkpoint: recomputation stopped (_StopRecomputationError)")

// BeginCheckpoint starts a non-reentrant region over the function's
// tensor arguments: from now until EndCheckpoint, nodes keep no saved
// tensors. rng is how many RNG states checkpoint stashes (CPU ByteTensors
// of 5056 bytes, the CPU generator's, then 16 for each CUDA device of the
// arguments; none with preserve_rng_state=False).
func (s *Session) BeginCheckpoint(args []*Tensor, rng int) (*Checkpoint, error) {
	if s.ckpt.forward != nil || s.ckpt.recompute != nil {
		return nil, Refusef(NotImplementedError, "a checkpoint inside a checkpointed function is not modelled by gpumemrepl")
	}
	s.processEvent(device.Library)
	states, err := s.rngStates(rng)
	if err != nil {
		return nil, err
	}
	c := &Checkpoint{rng: states, made: map[*storage]bool{}, casts: map[*storage]bool{}}
	for _, t := range args {
		t.st.refs++
		c.inputs = append(c.inputs, t.st)
	}
	s.ckpt.forward = c
	return c, nil
}

// rngStates makes n stashed RNG states: the CPU generator's, then a CUDA
// device's (CPU ByteTensors both).
func (s *Session) rngStates(n int) ([]*storage, error) {
	var sts []*storage
	for i := range n {
		size := uint64(16)
		if i == 0 {
			size = 5056
		}
		st, err := s.newStorage(CPU, size, false)
		if err != nil {
			for _, st := range sts {
				s.release(st)
			}
			return nil, err
		}
		sts = append(sts, st)
	}
	return sts, nil
}

// EndCheckpoint ends c's forward; recompute reruns its function in
// backward (the front end's call, which fails once the early stop ends
// it: then Stopped is true), and dropped is called when the region dies.
// A region that saved nothing dies at once.
func (s *Session) EndCheckpoint(c *Checkpoint, recompute func() error, dropped func()) {
	s.ckpt.forward = nil
	c.ended, c.recompute, c.dropped, c.since, c.made = true, recompute, dropped, nil, nil
	c.hasCasts = len(c.casts) > 0
	c.casts = nil
	if c.live == 0 {
		s.dropCheckpoint(c)
		return
	}
	s.event("checkpoint: %d saved tensors left to recompute in backward; the inputs kept (%d)", c.holders, len(c.inputs))
}

// Stopped reports whether c's recomputation was ended by the early stop:
// the error it ended with is no error.
func (c *Checkpoint) Stopped() bool { return c.stopped }

// dropCheckpoint lets go of what a region kept: its inputs and RNG states.
func (s *Session) dropCheckpoint(c *Checkpoint) {
	for _, st := range slices.Concat(c.inputs, c.rng) {
		s.release(st)
	}
	c.inputs, c.rng = nil, nil
	if c.dropped != nil {
		c.dropped()
		c.dropped = nil
	}
}

// checkpointAlloc is called for each new storage: in a region's forward
// it notes the allocation; in a recomputation it stops it where the
// early stop falls.
func (s *Session) checkpointAlloc(st *storage) error {
	if c := s.ckpt.forward; c != nil {
		c.since = append(c.since, st)
		c.made[st] = true
	}
	if c := s.ckpt.recompute; c != nil {
		if c.records == c.stopRecords && c.allocs == c.stopAlloc {
			c.stopped = true
			c.keep(c.stopSaves, c.stopFrom)
			return errStopRecompute
		}
		c.allocs++
	}
	return nil
}

// pack is record's saving inside a region's forward: each tensor gets a
// holder instead of a reference, and n's backward unpacks them.
func (c *Checkpoint) pack(n *node, out *Tensor, inputs, save []*Tensor) {
	c.records++
	if len(save) > 0 {
		// saved after the op ran (an output: relu's result, dropout's
		// mask, layer_norm's mean): the stop falls after it
		c.stopRecords, c.stopAlloc = c.records, 0
		c.stopSaves, c.stopFrom = nil, nil
		if from, ok := c.savedBefore(inputs, save); ok {
			// only inputs, saved before the op runs: the stop falls
			// before its output
			c.stopRecords = c.records - 1
			c.stopAlloc = max(slices.Index(c.since, out.st), 0)
			for _, t := range save {
				c.stopSaves = append(c.stopSaves, t.st)
			}
			c.stopFrom = from
		}
		for _, t := range save {
			n.saved = append(n.saved, savedTensor{what: savedWhat(t, t.fn), ckpt: c, holder: c.holders})
			c.holders++
			c.gone = append(c.gone, false)
		}
		c.live++
		n.bw = c.unpacking(n.bw)
	}
	c.outs = append(c.outs, out.st)
	c.since = c.since[:0]
}

// autocastCast notes, in a region's forward, autocast's cast of the leaf
// whose storage is leaf: made (a node is recorded for it), or from the
// cast cache (cast). The recomputation runs in an autocast region of its
// own, with a cache of its own, so it makes the first cast of each leaf
// where the forward may have found one: counted here as a cast made, an
// allocation and a node whose output is cast.
func (c *Checkpoint) autocastCast(leaf *storage, cast *Tensor, made bool) {
	if c.casts[leaf] {
		return
	}
	c.casts[leaf] = true
	if !made {
		c.records++
		c.outs = append(c.outs, cast.st)
		c.since = c.since[:0]
	}
}

// savedBefore reports whether an op saves only its inputs, which
// autograd packs before the op runs, each the output of an earlier node
// of the region (its place in from) or made outside the region (-1: the
// same tensor in the recomputation).
func (c *Checkpoint) savedBefore(inputs, save []*Tensor) ([]int, bool) {
	from := make([]int, len(save))
	for i, t := range save {
		isInput := slices.ContainsFunc(inputs, func(in *Tensor) bool { return in != nil && in.st == t.st })
		from[i] = lastIndex(c.outs, t.st)
		if !isInput || from[i] < 0 && c.made[t.st] {
			return nil, false
		}
	}
	return from, true
}

// lastIndex is the place of st's last occurrence in sts, or -1.
func lastIndex(sts []*storage, st *storage) int {
	for i := len(sts) - 1; i >= 0; i-- {
		if sts[i] == st {
			return i
		}
	}
	return -1
}

// repack is record's saving during a recomputation: each tensor saved is
// kept for the holder of the same place in forward.
func (c *Checkpoint) repack(out *Tensor, save []*Tensor) {
	c.records++
	c.allocs = 0
	c.outs = append(c.outs, out.st)
	sts := make([]*storage, len(save))
	for i, t := range save {
		sts[i] = t.st
	}
	c.keep(sts, nil)
}

// keep fills the next holders with sts (from[i] >= 0: the output of
// this pass's node of that place instead), unless their node is gone.
func (c *Checkpoint) keep(sts []*storage, from []int) {
	for i, st := range sts {
		h := len(c.recomputed)
		if h >= c.holders {
			return
		}
		if from != nil && from[i] >= 0 && from[i] < len(c.outs) {
			st = c.outs[from[i]]
		}
		switch {
		case c.gone[h]:
			st = nil
		case st.refs <= 0:
			c.lost, st = true, nil
		default:
			st.refs++
			st.saved++
		}
		c.recomputed = append(c.recomputed, st)
	}
}

// unpacking wraps a node's backward: the region is recomputed at the
// first unpack, the node takes its recomputed tensors, and they go as
// its backward returns, the last saved first (before its gradients are
// summed to their inputs' shapes).
func (c *Checkpoint) unpacking(bw backward) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		if err := c.recomputeOnce(s); err != nil {
			return nil, err
		}
		for i, sv := range n.saved {
			if sv.ckpt != c {
				continue
			}
			if sv.holder >= len(c.recomputed) || c.recomputed[sv.holder] == nil {
				return nil, Refusef(NotImplementedError, "a second backward through a checkpointed region (retain_graph=True) is not modelled by gpumemrepl")
			}
			n.saved[i].st, c.recomputed[sv.holder] = c.recomputed[sv.holder], nil
		}
		grads, err := bw(s, n, g)
		// the node's apply unpacked them into locals, which C++ destroys
		// last first
		for i := len(n.saved) - 1; i >= 0; i-- {
			if sv := n.saved[i]; sv.ckpt == c && sv.st != nil {
				sv.st.saved--
				s.release(sv.st)
				n.saved[i].st = nil
			}
		}
		return grads, err
	}
}

// recomputeOnce reruns the region's function with grad, keeping what it
// saves, unless this backward already did.
func (c *Checkpoint) recomputeOnce(s *Session) error {
	if c.done {
		return nil
	}
	if s.ckpt.recompute != nil {
		return Refusef(NotImplementedError, "a checkpointed region recomputed inside another's recomputation is not modelled by gpumemrepl")
	}
	if c.hasCasts && len(s.amp.cached) > 0 {
		return Refusef(NotImplementedError, "recomputing a checkpointed region under autocast while the cast cache holds casts (backward inside the torch.autocast block) is not modelled by gpumemrepl")
	}
	c.done = true
	c.records, c.allocs, c.stopped, c.outs = 0, 0, false, nil
	was := s.SetGradEnabled(true)
	s.ckpt.recompute = c
	err := c.recompute()
	s.ckpt.recompute = nil
	s.SetGradEnabled(was)
	if err != nil {
		return err
	}
	if c.lost {
		return Refusef(NotImplementedError, "recomputing a checkpointed region whose last saving op saves a tensor that is gone by backward is not modelled by gpumemrepl")
	}
	if len(c.recomputed) != c.holders {
		return Errorf(RuntimeError, "torch.utils.checkpoint: A different number of tensors was saved during the original forward and recomputation.\nNumber of tensors saved during forward: %d\nNumber of tensors saved during recomputation: %d.", c.holders, len(c.recomputed))
	}
	s.event("checkpoint: forward recomputed in backward, %d saved tensors made again", c.holders)
	return nil
}

// unpackedGone is releaseSaved for a node of a region: its holders die
// (a recomputation no longer keeps their tensors, and frees those it
// kept), and the last such node lets go of the region's inputs.
func (s *Session) unpackedGone(n *node) {
	var c *Checkpoint
	for _, sv := range n.saved {
		if sv.ckpt == nil {
			continue
		}
		c = sv.ckpt
		c.gone[sv.holder] = true
		if sv.holder < len(c.recomputed) && c.recomputed[sv.holder] != nil {
			c.recomputed[sv.holder].saved--
			s.release(c.recomputed[sv.holder])
			c.recomputed[sv.holder] = nil
		}
	}
	if c == nil {
		return
	}
	if c.live--; c.live == 0 && c.ended {
		s.dropCheckpoint(c)
	}
}
