package engine

import (
	"fmt"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// The autograd graph, as memory. With grad enabled, an op on a tensor that
// requires grad records a node: the tensors PyTorch saves for that op's
// backward stay alive (their storages are referenced) until the node is
// released, by backward() or when the last tensor that reaches it goes.
// backward() runs the nodes as PyTorch's engine does (ready nodes by
// sequence number, newest first; gradient accumulation into leaves
// first), allocating gradients and temporaries in PyTorch's order and
// releasing each node's saved tensors once it has run.

// node is one recorded op (a grad_fn).
type node struct {
	name     string // PyTorch's name, e.g. "AddmmBackward0"
	seq      int
	refs     int    // tensors and downstream nodes that reach it
	inputs   []edge // one per input of the forward op
	saved    []savedTensor
	released bool     // backward ran through it: its saved tensors are gone
	bw       backward // its backward; nil for AccumulateGrad
	leaf     *gradSlot
	leafSt   *storage // AccumulateGrad: the leaf's storage, held while a graph uses it
	out      []int64  // the output's shape
	dtype    DType
	device   Device
	// stream is the stream current when the node was recorded (its
	// forward op's): PyTorch runs its backward there.
	stream uint64
	// grads, for a node of several outputs (split), is each output's
	// gradient come so far while backward runs (one InputBuffer slot
	// each); nil for a node of one output.
	grads []*Tensor
	// dropped lets go, with the saved tensors, of what else the node's
	// context holds (a custom Function's ctx: the reentrant
	// checkpoint's function and arguments); nil for most nodes.
	dropped func()
	// fn is a custom Function's call (customfn.go): its context, and
	// its backward unpacks the saved tensors itself when it reads
	// ctx.saved_tensors; nil for every other node.
	fn *FunctionCall
	// namesReversed: the node's generated class declares its saved
	// tensors in the sorted order of their names (torchgen's
	// gen_autograd_functions), the reverse of saved's (MulBackward0's
	// other_ and self_, saved self first). release_variables, as
	// backward runs the node, resets them in the declared order; the
	// destructor of a node that dies unrun destroys them in the
	// reverse, saved's.
	namesReversed bool
}

// edge leads from a node to the node of one of its inputs.
type edge struct {
	to    *node // nil when that input needs no gradient
	out   int   // which of to's outputs the input is
	shape []int64
	dtype DType
}

// savedTensor is one tensor a node keeps for backward (a
// SavedVariable): its storage, and the storage's version when it was
// saved, which backward checks. Inside a checkpointed region it is a
// holder of ckpt instead: no storage until backward recomputes it.
type savedTensor struct {
	st      *storage
	version int
	what    string // PyTorch's description, for the error
	ckpt    *Checkpoint
	holder  int // its place among the region's holders
	// like is the tensor saved, outside autograd: the shape, dtype and
	// layout over st that unpacking makes again (a custom Function's
	// ctx.saved_tensors).
	like Tensor
	// hooks, when saved-tensor hooks packed it, are those hooks and
	// packed what pack returned; st is then nil.
	hooks  SavedHooks
	packed any
}

// gradSlot is a leaf tensor's .grad, shared by every reference to the leaf.
type gradSlot struct {
	grad *Tensor
	acc  *node // its AccumulateGrad node, made on first use
	// holders are what keep the leaf (its TensorImpl) alive: each tensor
	// value of it (a reference, or a view made without a graph) and its
	// AccumulateGrad while a graph uses that. The last to go takes the
	// .grad with it.
	holders int
	// savers are the nodes that saved the leaf itself (PyTorch's
	// SavedVariable keeps a leaf's TensorImpl, not a copy): its storage
	// swapped by .data = follows into them.
	savers []*node
	// off is requires_grad_(False) of the leaf while a graph still
	// holds its AccumulateGrad: that node accumulates nothing from then
	// on (PyTorch's AccumulateGrad returns at once for a variable that
	// no longer requires grad).
	off bool
}

// newGradSlot is a new leaf's slot, held by the one tensor value made.
func newGradSlot() *gradSlot { return &gradSlot{holders: 1} }

// releaseSlot drops one holder of a leaf; the last frees its .grad.
func (s *Session) releaseSlot(slot *gradSlot) {
	if slot.holders--; slot.holders == 0 && slot.grad != nil {
		g := slot.grad
		slot.grad = nil
		s.dropTensor(g)
	}
}

// dropSlot makes t no longer a value of its leaf (a view that became a
// node's output, a detached copy, requires_grad_(False)).
func (s *Session) dropSlot(t *Tensor) {
	if t.slot != nil {
		s.releaseSlot(t.slot)
		t.slot = nil
	}
}

// backward computes the gradients of a node's inputs from the gradient of
// its output, allocating as PyTorch does; nil for an input that needs none.
type backward func(s *Session, n *node, g *Tensor) ([]*Tensor, error)

// requiresGrad reports whether t takes part in autograd.
func (t *Tensor) requiresGrad() bool { return t.fn != nil || t.slot != nil }

// record attaches a node to out when grad mode is on and an input
// requires grad; save lists the tensors its backward keeps.
func (s *Session) record(name string, out *Tensor, inputs, save []*Tensor, bw backward) {
	if !needsGraph(s, inputs) {
		return
	}
	n := s.newNode(name, out, inputs, bw)
	n.refs = 1
	if c := s.ckpt.forward; c != nil {
		c.pack(n, out, inputs, save)
		out.fn = n
		return
	}
	s.saveFor(n, out, save)
	if c := s.ckpt.recompute; c != nil {
		c.repack(out, save)
	}
	out.fn = n
}

// needsGraph reports whether an op on inputs records a node: grad mode
// is on and one of them requires grad.
func needsGraph(s *Session, inputs []*Tensor) bool {
	if !s.gradEnabled {
		return false
	}
	for _, in := range inputs {
		if in != nil && in.requiresGrad() {
			return true
		}
	}
	return false
}

// newNode makes a node named name, of output out, with an edge to each
// input's node (a leaf's AccumulateGrad, made when none is alive); no
// tensor refers to it yet.
func (s *Session) newNode(name string, out *Tensor, inputs []*Tensor, bw backward) *node {
	s.seq++
	n := &node{name: name, seq: s.seq, bw: bw, out: out.Shape, dtype: out.DType, device: out.Device(), stream: s.currentStream(out.Device())}
	for _, in := range inputs {
		e := edge{}
		if in != nil {
			e.shape, e.dtype = in.Shape, in.DType
			switch {
			case in.fn != nil:
				e.to, e.out = in.fn, in.out
			case in.slot != nil:
				if in.slot.acc == nil {
					in.slot.acc = &node{name: "torch::autograd::AccumulateGrad", leaf: in.slot, seq: -1}
				}
				e.to = in.slot.acc
			}
		}
		if e.to != nil {
			if e.to.leaf != nil && e.to.refs == 0 {
				// AccumulateGrad holds its leaf while a graph uses it;
				// PyTorch makes it anew for a graph when the last one
				// went, on the stream current now
				e.to.leaf.holders++
				e.to.leafSt = in.st
				in.st.refs++
				e.to.device, e.to.stream = in.Device(), s.currentStream(in.Device())
			}
			e.to.refs++
		}
		n.inputs = append(n.inputs, e)
	}
	return n
}

// saveFor keeps save for n's backward (out is n's output, as the
// version error names it): a reference to each storage, or, under
// saved-tensor hooks (savedhooks.go), what the pack hook made of it. A
// recomputation of a checkpointed region saves plainly: PyTorch runs it
// under the checkpoint's own hooks.
func (s *Session) saveFor(n *node, out *Tensor, save []*Tensor) {
	hooks := s.savedHooks()
	if s.ckpt.recompute != nil {
		hooks = nil
	}
	for _, t := range save {
		from := t.fn
		if t == out {
			from = n
		}
		if sv, ok := s.takePrepacked(t); ok {
			n.saved = append(n.saved, sv)
			continue
		}
		sv := savedTensor{version: t.st.version, what: savedWhat(t, from), like: plain(t)}
		if hooks != nil && !t.number && s.pack(n.name, n.fn != nil, t != out, &sv, hooks, t) {
			n.saved = append(n.saved, sv)
			continue
		}
		t.st.refs++
		t.st.saved++
		if t.st.savedBy == "" {
			t.st.savedBy = n.name
		}
		sv.st = t.st
		if t.fn == nil && t.slot != nil && t != out {
			t.slot.savers = append(t.slot.savers, n)
		}
		n.saved = append(n.saved, sv)
	}
}

// unref drops one reference to n; the last releases its saved tensors
// and its own references down the graph.
func (s *Session) unref(n *node) {
	if n == nil {
		return
	}
	n.refs--
	if n.refs > 0 {
		return
	}
	if n.leaf != nil { // the last graph using the leaf went: it lets go of it
		st := n.leafSt
		n.leafSt = nil
		s.releaseSlot(n.leaf)
		if st != nil {
			s.release(st)
		}
		return
	}
	s.releaseSaved(n, false)
	if c := n.fn; c != nil && c.Dropped != nil { // a custom Function's context goes with its node
		d := c.Dropped
		c.Dropped = nil
		d()
	}
	// PyTorch's deleteNode gathers a node's next functions onto a stack
	// and takes the last first: the inputs' graphs go last input first
	// (ops_matmul_nd.py's del of two leaves after their product's)
	for _, e := range slices.Backward(n.inputs) {
		s.unref(e.to)
	}
}

// savedWhat is how PyTorch names a saved tensor t made by node from
// (nil for a leaf) when it has been modified in place.
func savedWhat(t *Tensor, from *node) string {
	what := fmt.Sprintf("[%s %s]", tensorType(t), dimList(t.Shape))
	if from != nil {
		what += ", which is output 0 of " + from.name + ","
	}
	return what
}

// checkSaved is SavedVariable::unpack's check: a tensor saved for n's
// backward must not have been modified in place since.
func checkSaved(n *node) error {
	for _, sv := range n.saved {
		if sv.st != nil && sv.ckpt == nil && sv.st.version != sv.version { // hooks keep no version (SavedVariable::unpack)
			return Errorf(RuntimeError, "one of the variables needed for gradient computation has been modified by an inplace operation: %s is at version %d; expected version %d instead. Hint: enable anomaly detection to find the operation that failed to compute its gradient, with torch.autograd.set_detect_anomaly(True).", sv.what, sv.st.version, sv.version)
		}
	}
	return nil
}

// releaseSaved lets go of what n keeps for its backward: as backward
// ran it (ran) or as it dies.
func (s *Session) releaseSaved(n *node, ran bool) {
	s.unpackedGone(n)
	if f := n.dropped; f != nil {
		n.dropped = nil
		f()
	}
	saved := n.saved
	if ran && n.namesReversed {
		saved = slices.Clone(saved)
		slices.Reverse(saved)
	}
	for _, sv := range saved {
		switch {
		case sv.hooks != nil:
			sv.hooks.Drop(sv.packed)
		case sv.ckpt == nil:
			sv.st.saved--
			s.release(sv.st)
		}
	}
	n.saved = nil
}

// dropTensor lets go of a tensor value: its storage reference and its
// place in the graph.
func (s *Session) dropTensor(t *Tensor) bool {
	if t == nil || t.number { // nil: a node of several outputs has no one gradient
		return false
	}
	// TensorImpl::release_resources: the autograd metadata (grad_fn,
	// then a leaf's .grad) goes before the storage.
	s.unref(t.fn)
	if t.slot != nil {
		s.releaseSlot(t.slot)
	}
	return s.release(t.st)
}

// share returns another reference to t: the same storage, node and leaf.
func share(t *Tensor) *Tensor {
	if t.number {
		return t
	}
	t.st.refs++
	if t.fn != nil {
		t.fn.refs++
	}
	if t.slot != nil {
		t.slot.holders++
	}
	u := *t
	return &u
}

// Errors of backward, in PyTorch's words.
var (
	errNoGradFn   = Errorf(RuntimeError, "element 0 of tensors does not require grad and does not have a grad_fn")
	errNotScalar  = Errorf(RuntimeError, "grad can be implicitly created only for scalar outputs")
	errSecondPass = Errorf(RuntimeError, "Trying to backward through the graph a second time (or directly access saved tensors after they have already been freed). Saved intermediate values of the graph are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or if you need to access saved tensors after calling backward.")
)

// backward runs root.backward(retain_graph=retain).
func (s *Session) backward(root *Tensor, retain bool) error {
	_, err := s.runGraph(root, nil, nil, retain)
	return err
}

// pickReady takes the node PyTorch's ready queue would: AccumulateGrad
// first, then the highest sequence number.
func pickReady(ready *[]*node) *node {
	best := 0
	for i, n := range *ready {
		b := (*ready)[best]
		if n.leaf != nil && b.leaf == nil || (n.leaf == nil) == (b.leaf == nil) && n.seq > b.seq {
			best = i
		}
	}
	n := (*ready)[best]
	*ready = append((*ready)[:best], (*ready)[best+1:]...)
	return n
}

// sumToInputs is validate_outputs: a gradient whose shape is not its
// input's (a broadcast input) is summed down to that shape, a new tensor
// (a view of it when leading dimensions were summed away).
func (s *Session) sumToInputs(n *node, grads []*Tensor) error {
	for i, g := range grads {
		if g == nil || n.inputs[i].to == nil || slices.Equal(g.Shape, n.inputs[i].shape) {
			continue
		}
		r, err := s.alloc(n.inputs[i].shape, g.DType, g.Device())
		if err != nil {
			return err
		}
		if err := s.sumToTemps(g, n.inputs[i].shape); err != nil {
			s.dropTensor(r)
			return err
		}
		// sum_to views the sum (kept dims) as the input's shape when
		// leading dims went
		r.view = len(g.Shape) > len(n.inputs[i].shape)
		s.dropTensor(g)
		grads[i] = r
	}
	return s.castToInputs(n, grads)
}

// castToInputs is the rest of validate_outputs: a gradient of another
// dtype than its input's (a float32 sum's gradient for a bfloat16 operand
// under autocast) is converted to it, a new tensor (tfm_encoder_fast.py).
func (s *Session) castToInputs(n *node, grads []*Tensor) error {
	for i, g := range grads {
		e := n.inputs[i]
		if g == nil || e.to == nil || e.dtype.Name == "" || g.DType.Name == e.dtype.Name {
			continue
		}
		r, err := s.ToDType(g, e.dtype)
		if err != nil {
			return err
		}
		s.dropTensor(g)
		grads[i] = r
	}
	return nil
}

// addToBuffer adds g to the gradient waiting for node n (InputBuffer):
// the first is kept; a second is added in place into the first when
// it is dense in some order, a transposed one too, and its storage is
// held by it alone (input_buffer.cpp's can_accumulate_inplace:
// is_non_overlapping_and_dense, as clip_train's text blocks recorded,
// and a storage use count of one: a view's base holds the storage too,
// and so does every other view of a cuDNN RNN's weight-gradient buffer,
// as gru_seq2seq.py's decoder steps recorded), else the sum is a new tensor and
// the first goes (testdata/pyrules/autograd_buffer.py). kept reports whether the buffer took g itself; a
// g added into another stays with the node's outputs, which go once all
// of them are added (evaluate_function's outputs, in order).
func (s *Session) addToBuffer(buffers map[*node]*Tensor, n *node, g *Tensor) (kept bool, err error) {
	old, ok := buffers[n]
	switch {
	case !ok:
		buffers[n] = g
		return true, nil
	case !old.expanded && (old.strides != nil || !old.strided) && dense(old.Shape, old.Strides()) && old.st.refs == 1 && (!old.view || old.sole):
		return false, nil
	}
	sum, err := s.alloc(old.Shape, old.DType, old.Device())
	if err != nil {
		return false, err
	}
	layOut(sum, old, g) // old + g: a transposed first makes a transposed sum
	s.dropTensor(old)
	buffers[n] = sum
	return false, nil
}

// inputGrad is the gradient waiting for the input e leads to.
func inputGrad(buffers map[*node]*Tensor, e edge) *Tensor {
	if e.to.grads == nil {
		return buffers[e.to]
	}
	return e.to.grads[e.out]
}

// addToInput adds g to the gradient waiting for the input e leads to:
// its node's buffer, or for a node of several outputs that output's
// (the node's buffer entry is then nil: it is ready, its gradients are
// in n.grads). kept is addToBuffer's.
func (s *Session) addToInput(buffers map[*node]*Tensor, e edge, g *Tensor) (kept bool, err error) {
	if e.to.grads == nil {
		return s.addToBuffer(buffers, e.to, g)
	}
	buffers[e.to] = nil
	one := map[*node]*Tensor{}
	if old := e.to.grads[e.out]; old != nil {
		one[e.to] = old
	}
	kept, err = s.addToBuffer(one, e.to, g)
	e.to.grads[e.out] = one[e.to]
	return kept, err
}

// unshared reports whether t can be written in place (and a leaf's
// .grad be t itself): dense and in order, and its storage held by t
// alone.
func unshared(t *Tensor) bool { return !t.expanded && !t.strided && (t.st.refs == 1 || t.sole) }

// accumulateGrad is AccumulateGrad: the first gradient of a leaf is
// stolen when nothing else holds it (else copied); later ones are added
// in place.
func (s *Session) accumulateGrad(slot *gradSlot, g *Tensor) error {
	if slot.off {
		s.dropTensor(g)
		return s.estimate(nil, "backward", "a gradient reached a leaf set requires_grad=False while a graph held it, and was dropped as PyTorch's AccumulateGrad drops it (from its source, not recorded on the GPU)")
	}
	if slot.grad != nil {
		s.dropTensor(g)
		return nil
	}
	if unshared(g) {
		g.fn = nil
		slot.grad = g
		g.st.role = roleGrad
		return nil
	}
	c, err := s.alloc(g.Shape, g.DType, g.Device())
	if err != nil {
		return err
	}
	s.dropTensor(g)
	slot.grad = c
	c.st.role = roleGrad
	return nil
}

// alloc makes an uninitialised tensor (torch.empty): the gradients and
// temporaries of backward and of optimizers.
func (s *Session) alloc(shape []int64, dt DType, dev Device) (*Tensor, error) {
	s.kernelRan()
	t := &Tensor{Shape: shape, DType: dt}
	st, err := s.newStorage(dev, t.Bytes(), false)
	if err != nil {
		return nil, err
	}
	t.st = st
	if dev.CUDA {
		s.kernelDue = &dev
	}
	return t, nil
}

// ZeroGrad sets the .grad of params to None (setToNone) or zeroes them
// in place.
func (s *Session) ZeroGrad(params []*Tensor, setToNone bool) {
	if !setToNone {
		return
	}
	var n, bytes uint64
	for _, p := range params {
		if p.slot != nil && p.slot.grad != nil {
			n, bytes = n+1, bytes+p.slot.grad.Bytes()
			s.dropTensor(p.slot.grad)
			p.slot.grad = nil
		}
	}
	if n > 0 {
		s.event("freed %d .grad tensors (%s)", n, allocator.FormatSize(bytes))
	}
}

// shapeError is PyTorch's message for factors that do not multiply.
func shapeError(a, b []int64) error {
	return Errorf(RuntimeError, "mat1 and mat2 shapes cannot be multiplied (%s and %s)", joinDims(a, "x"), joinDims(b, "x"))
}
