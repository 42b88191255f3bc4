package engine

// Saved-tensor hooks (torch.autograd.graph.saved_tensors_hooks, and
// save_on_cpu, which is a pair of them), as memory. While hooks are
// installed, every tensor an op saves for backward is handed to pack as
// the node is made, and the node keeps what pack returned instead of the
// tensor: save_on_cpu's pack copies it to the host, so the GPU storage
// goes with its last other reference. When the node's backward runs,
// unpack makes a tensor of each packed value, in the order they were
// saved (save_on_cpu's: a copy back to the GPU), which the node holds
// until its backward returns; the packed values go when the node lets go
// of its saved tensors (after its backward unless retain_graph, or at
// its death). Pack runs under no_grad; a version counter is not kept
// through hooks, so an in-place change of a packed tensor is not
// detected, as in PyTorch (SavedVariable::unpack). The innermost hooks
// apply; inside a checkpointed region the checkpoint's own hooks do.
// Recorded on the GPU (testdata/pyrules/saved_hooks.py) but not yet
// held to it: every figure that rests on a hook is estimated.

// SavedHooks are one pair of saved-tensor hooks, as the front end runs
// them.
type SavedHooks interface {
	// Pack is pack_hook(t): t is a new reference the hook takes; what
	// it returns is kept until Drop.
	Pack(t *Tensor) (any, error)
	// Unpack is unpack_hook(packed): a new reference to a tensor.
	Unpack(packed any) (*Tensor, error)
	// Drop lets go of a packed value.
	Drop(packed any)
}

// PushSavedHooks installs hooks (saved_tensors_hooks.__enter__). Inside
// a checkpointed region, where PyTorch's own hooks and the user's would
// meet, it is refused.
func (s *Session) PushSavedHooks(h SavedHooks) error {
	if s.ckpt.forward != nil || s.ckpt.recompute != nil {
		return NotModelledError("saved-tensor hooks installed inside a checkpointed function")
	}
	s.hooks = append(s.hooks, h)
	return nil
}

// PopSavedHooks removes the innermost hooks (__exit__).
func (s *Session) PopSavedHooks() {
	if n := len(s.hooks); n > 0 {
		s.hooks = s.hooks[:n-1]
	}
}

// savedHooks are the innermost hooks installed, or nil.
func (s *Session) savedHooks() SavedHooks {
	if n := len(s.hooks); n > 0 {
		return s.hooks[n-1]
	}
	return nil
}

// pack packs t into sv through hooks, under no_grad. A hook that fails
// leaves t to be saved plainly, and its error is the op's
// (TakeHookError).
func (s *Session) pack(n *node, sv *savedTensor, hooks SavedHooks, t *Tensor) bool {
	if s.hookErr != nil {
		return false
	}
	if err := s.estimateHooks(n, t); err != nil {
		s.hookErr = err
		return false
	}
	was, version := s.SetGradEnabled(false), t.st.version
	p, err := hooks.Pack(s.Detach(t))
	s.SetGradEnabled(was)
	if err == nil && t.st.version != version {
		hooks.Drop(p)
		err = Errorf(RuntimeError, "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook can not be modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if you need to perform in-place operations on the input to a pack hook.")
	}
	if err != nil {
		s.hookErr = err
		return false
	}
	sv.hooks, sv.packed = hooks, p
	return true
}

// estimateHooks marks the step's figures estimated the first time hooks
// pack a tensor in it: what hooks keep and make is not yet recorded on
// the GPU.
func (s *Session) estimateHooks(n *node, t *Tensor) error {
	if s.hooksNoted {
		return nil
	}
	s.hooksNoted = true
	return s.estimate(nil, "torch.autograd.graph.saved_tensors_hooks", "%s saves %s %s: a hook packs it (and every tensor saved after it in this statement); what hooks keep and make is recorded on the GPU but not yet held to it (testdata/pyrules/saved_hooks.py)", n.name, dimList(t.Shape), t.DType.Name)
}

// TakeHookError is the error a pack hook raised during the last op, if
// any (the op's own error: PyTorch raises it from the op), and clears it.
func (s *Session) TakeHookError() error {
	err := s.hookErr
	s.hookErr = nil
	return err
}

// unpackHooked makes again, through their hooks, the tensors n's
// backward reads that hooks packed: the references n holds while its
// backward runs (dropUnpacked lets go of them).
func (s *Session) unpackHooked(n *node) ([]*Tensor, error) {
	var ts []*Tensor
	for _, sv := range n.saved {
		if sv.hooks == nil {
			continue
		}
		t, err := sv.hooks.Unpack(sv.packed)
		if err != nil {
			dropAll(s, ts)
			return nil, err
		}
		ts = append(ts, t)
	}
	return ts, nil
}
