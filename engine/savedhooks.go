package engine

import "slices"

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
// Held to PyTorch allocation by allocation (testdata/pyrules/
// saved_hooks.py, train_custom_fn.py): exact for the nodes packed there
// and custom Functions; a node whose saved tensors were not recorded
// under hooks, and a hook that allocates on the GPU (or fails) for an
// input packed after its op's output (PyTorch packs inputs first; linear
// and addmm do so here), are estimated.

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

// pack packs t into sv through hooks, under no_grad, for the node
// named name (custom: a custom Function's, which saves what its forward
// names); late when t is not the node's output and its op had made its
// output first. A hook that fails leaves t to be saved plainly, and its
// error is the op's (TakeHookError).
func (s *Session) pack(name string, custom, late bool, sv *savedTensor, hooks SavedHooks, t *Tensor) bool {
	if s.hookErr != nil {
		return false
	}
	if err := s.estimateHooks(name, custom, t); err != nil {
		s.hookErr = err
		return false
	}
	was, version, mark := s.SetGradEnabled(false), t.st.version, s.eventCount()
	p, err := hooks.Pack(s.Detach(t))
	s.SetGradEnabled(was)
	if err == nil && t.st.version != version {
		hooks.Drop(p)
		err = Errorf(RuntimeError, "A saved tensor pack hook is modifying its input in place. Tensors provided as input to pack hook can not be modified by in-place operations as this can lead to unexpected side-effects. Please open an issue if you need to perform in-place operations on the input to a pack hook.")
	}
	if late && (err != nil || s.eventCount() != mark) && !s.hooksNoted {
		// PyTorch packs an op's inputs before its kernel makes the
		// output: what the hook made (or the op it stopped) came first
		s.hooksNoted = true
		if e := s.estimate(nil, "torch.autograd.graph.saved_tensors_hooks", "%s saves its input %s %s: the pack hook allocated on the GPU or failed after the op's output was made, where PyTorch packs an op's inputs before its kernel runs (modelled so for linear and addmm only)", name, dimList(t.Shape), t.DType.Name); e != nil && err == nil {
			hooks.Drop(p)
			err = e
		}
	}
	if err != nil {
		s.hookErr = err
		return false
	}
	sv.hooks, sv.packed = hooks, p
	return true
}

// eventCount is how many allocator events every GPU has seen.
func (s *Session) eventCount() int {
	n := 0
	for _, g := range s.gpus {
		n += len(g.history.Events)
	}
	return n
}

// hooksRecorded are the nodes whose saved tensors went through hooks in
// the recordings (saved_hooks.py, train_custom_fn.py): what each saves,
// which without hooks shows in no figure when the tensor lives anyway,
// is held to PyTorch's there, as a custom Function's (its forward names
// them).
var hooksRecorded = map[string]bool{"AddmmBackward0": true, "MmBackward0": true, "MulBackward0": true, "ExpBackward0": true,
	"ReluBackward0": true, "SinBackward0": true, "TanhBackward0": true, "LogSoftmaxBackward0": true, "NllLossBackward0": true,
	"NativeLayerNormBackward0": true}

// estimateHooks marks the step's figures estimated the first time hooks
// pack a tensor for a node whose saved tensors were not recorded under
// hooks.
func (s *Session) estimateHooks(name string, custom bool, t *Tensor) error {
	if s.hooksNoted || custom || hooksRecorded[name] {
		return nil
	}
	s.hooksNoted = true
	return s.estimate(nil, "torch.autograd.graph.saved_tensors_hooks", "%s saves %s %s: a hook packs it (and every tensor saved after it in this statement); which tensors %s saves was not recorded under hooks (testdata/pyrules/saved_hooks.py, train_custom_fn.py)", name, dimList(t.Shape), t.DType.Name, name)
}

// prepacked is an input packed before its op made its output.
type prepacked struct {
	t  *Tensor
	sv savedTensor
}

// prepack packs, under saved-tensor hooks, the inputs save that the op
// name (of inputs) will save, before it makes its output: PyTorch's
// generated VariableType saves an op's inputs as it makes the node,
// before the kernel runs (its outputs after), so whatever a pack hook
// allocates comes first (save_on_cpu(pin_memory=True)'s dense GPU copy of
// a transposed weight: train_custom_fn.py). The op's node then takes
// them (saveFor); done lets go of any it did not take (the op failed).
// Only the products (linear, addmm) pack early; other ops pack as their
// node saves.
func (s *Session) prepack(name string, inputs, save []*Tensor) (done func()) {
	hooks := s.savedHooks()
	if hooks == nil || s.ckpt.recompute != nil || s.ckpt.forward != nil || !needsGraph(s, inputs) {
		return func() {}
	}
	for _, t := range save {
		sv := savedTensor{version: t.st.version, what: savedWhat(t, t.fn), like: plain(t)}
		if !t.number && s.pack(name, false, false, &sv, hooks, t) {
			s.prepacked = append(s.prepacked, prepacked{t, sv})
		}
	}
	return func() {
		for _, p := range s.prepacked {
			p.sv.hooks.Drop(p.sv.packed)
		}
		s.prepacked = nil
	}
}

// takePrepacked is t's value packed before its op made its output, if
// it was.
func (s *Session) takePrepacked(t *Tensor) (savedTensor, bool) {
	for i, p := range s.prepacked {
		if p.t == t {
			s.prepacked = slices.Delete(s.prepacked, i, i+1)
			return p.sv, true
		}
	}
	return savedTensor{}, false
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
