package engine

import (
	"slices"
)

// The autograd API over the graph: backward with or without a given
// gradient, and torch.autograd.grad, which runs only the nodes that lead
// to its inputs, computes only the gradients those need, and returns the
// inputs' gradients instead of accumulating them into .grad
// (testdata/pyrules/autograd_api.py, recorded with allocator events).

// errUnused is autograd.grad's error for an input the outputs do not
// reach, raised after the graph has run.
var errUnused = Errorf(RuntimeError, "One of the differentiated Tensors appears to not have been used in the graph. Set allow_unused=True if this is the desired behavior.")

// BackwardWith is t.backward(gradient): gradient (nil: ones, for a
// scalar) is the seed, used as it is, not copied.
func (s *Session) BackwardWith(t, gradient *Tensor, retainGraph bool) error {
	s.inBackward = true
	defer func() { s.inBackward = false }()
	_, err := s.runGraph(t, gradient, nil, retainGraph)
	return err
}

// AutogradGrad is torch.autograd.grad(output, inputs, grad_outputs,
// retain_graph): the gradient of output with respect to each input, new
// references that nothing else holds; no .grad changes.
func (s *Session) AutogradGrad(output, gradOutput *Tensor, inputs []*Tensor, retainGraph bool) ([]*Tensor, error) {
	s.inBackward, s.ckpt.grad = true, true
	defer func() { s.inBackward, s.ckpt.grad = false, false }()
	return s.runGraph(output, gradOutput, inputs, retainGraph)
}

// rootNode is the node backward starts from: the tensor's grad_fn, or a
// leaf's AccumulateGrad.
func rootNode(t *Tensor) *node {
	if t.fn != nil || t.slot == nil {
		return t.fn
	}
	if t.slot.acc == nil {
		t.slot.acc = &node{name: "torch::autograd::AccumulateGrad", leaf: t.slot, seq: -1}
	}
	return t.slot.acc
}

// inputNode is the node whose incoming gradient is an input's gradient.
func inputNode(t *Tensor) *node {
	if t.fn != nil {
		return t.fn
	}
	if t.slot == nil {
		return nil
	}
	return t.slot.acc
}

// runGraph runs the graph from root as PyTorch's engine does (ready nodes
// by sequence number, newest first; AccumulateGrad first), seeded with
// seed (nil: ones). With inputs nil it is backward(): every node runs and
// leaves accumulate. With inputs it is autograd.grad: only nodes that
// lead to an input run, each computing only the gradients that lead
// there, and the gradient reaching each input is captured and returned.
// A node runs again after a backward freed its saved tensors only if it
// saved none (PyTorch fails when a freed tensor is unpacked).
func (s *Session) runGraph(root, seed *Tensor, inputs []*Tensor, retain bool) ([]*Tensor, error) {
	was := s.retaining
	s.retaining = retain
	defer func() { s.retaining = was }()
	start := rootNode(root)
	switch {
	case start == nil:
		return nil, errNoGradFn
	case seed == nil && root.Numel() != 1:
		return nil, errNotScalar
	case seed != nil && !slices.Equal(seed.Shape, root.Shape):
		return nil, Errorf(RuntimeError, "Mismatch in shape: grad_output[0] has a shape of torch.Size(%s) and output[0] has a shape of torch.Size(%s).", dimList(seed.Shape), dimList(root.Shape))
	}
	if start.leaf != nil && start.refs == 0 {
		// a leaf's own backward: no graph holds its AccumulateGrad, which
		// PyTorch makes now, on the current stream
		start.device, start.stream = root.Device(), s.currentStream(root.Device())
	}
	deps := dependencies(start)
	if err := checkGraphStreams(start, deps); err != nil {
		return nil, err
	}
	var want map[*node]int // each input's node: its place in inputs
	var needed map[*node]bool
	if inputs != nil {
		want = map[*node]int{}
		for i, in := range inputs {
			if n := inputNode(in); n != nil {
				want[n] = i
			}
		}
		needed = leadsTo(start, want)
	}
	if seed == nil {
		ones, err := s.alloc(root.Shape, root.DType, root.Device())
		if err != nil {
			return nil, err
		}
		seed = ones // the graph root holds it to the end
	} else {
		seed = share(seed)
	}
	defer s.dropTensor(seed)
	// The seed, made on the caller's stream, goes to the first node.
	flow := s.newGradFlow()
	buffers := map[*node]*Tensor{}
	first := share(seed)
	if _, err := flow.add(start, 0, first, s.currentStream(root.Device()), nil, func() (bool, error) {
		buffers[start] = first
		return true, nil
	}); err != nil {
		s.dropTensor(first)
		return nil, err
	}
	captured := make([]*Tensor, len(inputs))
	ran, leaves := 0, 0
	err := s.execute(start, deps, buffers, flow, func(n *node, g *Tensor) (bool, error) {
		if i, ok := want[n]; ok {
			captured[i] = share(g)
			flow.leaf(n)
		}
		if needed != nil && (n.leaf != nil || !leadsOn(n, needed)) {
			s.dropTensor(g)
			return false, nil
		}
		if n.leaf != nil {
			leaves++
			flow.leaf(n)
			return false, s.accumulateGrad(n.leaf, g)
		}
		ran++
		return true, nil
	}, needed, retain)
	flow.finish()
	for _, g := range buffers {
		s.dropTensor(g)
	}
	if err == nil && slices.Contains(captured, nil) {
		err = errUnused // PyTorch finds it once the graph has run
	}
	if err != nil {
		for _, c := range captured {
			if c != nil {
				s.dropTensor(c)
			}
		}
		return nil, err
	}
	switch {
	case inputs != nil:
		s.event("autograd.grad: %d nodes run, %d gradients returned", ran, len(inputs))
	case retain:
		s.event("backward: %d nodes run, %d leaves' .grad written; the graph is kept (retain_graph)", ran, leaves)
	default:
		s.event("backward: %d nodes run, %d leaves' .grad written; their saved tensors are freed", ran, leaves)
	}
	return captured, nil
}

// dependencies counts, for every node reachable from start, the edges
// that lead to it.
func dependencies(start *node) map[*node]int {
	deps := map[*node]int{}
	seen := map[*node]bool{start: true}
	stack := []*node{start}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, e := range n.inputs {
			if e.to == nil {
				continue
			}
			deps[e.to]++
			if !seen[e.to] {
				seen[e.to] = true
				stack = append(stack, e.to)
			}
		}
	}
	return deps
}

// leadsTo marks the nodes from which one of want is reachable (want
// included): autograd.grad's exec_info.
func leadsTo(start *node, want map[*node]int) map[*node]bool {
	needed := map[*node]bool{}
	var visit func(n *node) bool
	done := map[*node]bool{}
	visit = func(n *node) bool {
		if done[n] {
			return needed[n]
		}
		done[n] = true
		_, hit := want[n]
		for _, e := range n.inputs {
			if e.to != nil && visit(e.to) {
				hit = true
			}
		}
		needed[n] = hit
		return hit
	}
	visit(start)
	return needed
}

// leadsOn reports whether one of n's inputs leads to a wanted node: the
// nodes autograd.grad runs.
func leadsOn(n *node, needed map[*node]bool) bool {
	for _, e := range n.inputs {
		if e.to != nil && needed[e.to] {
			return true
		}
	}
	return false
}

// execute pops ready nodes in PyTorch's order and hands each its
// gradient: take says whether the node's backward runs (it may keep or
// drop the gradient itself when not). A running node computes the
// gradients of the inputs needed leads to (all with needed nil), then
// drops its own gradient and, unless retain, its saved tensors. Each
// node runs on its own stream (flow).
func (s *Session) execute(start *node, deps map[*node]int, buffers map[*node]*Tensor, flow *gradFlow, take func(n *node, g *Tensor) (bool, error), needed map[*node]bool, retain bool) error {
	ready := []*node{start}
	for len(ready) > 0 {
		n := pickReady(&ready)
		g := buffers[n]
		delete(buffers, n)
		flow.take(n)
		restore := flow.onStream(n.device, n.stream)
		next, err := s.evaluate(n, g, deps, buffers, flow, take, needed, retain)
		restore()
		if err != nil {
			return err
		}
		ready = append(ready, next...)
	}
	return nil
}

// evaluate is one node's turn (evaluate_function): its backward, its
// gradients added to the inputs' buffers; it returns the nodes that
// became ready.
func (s *Session) evaluate(n *node, g *Tensor, deps map[*node]int, buffers map[*node]*Tensor, flow *gradFlow, take func(n *node, g *Tensor) (bool, error), needed map[*node]bool, retain bool) ([]*node, error) {
	runs, err := take(n, g)
	if err != nil || !runs {
		return nil, err
	}
	if err := checkSaved(n); n.fn == nil && (err != nil || n.released) {
		// a custom Function's backward checks its saved tensors only as
		// it reads them (ctx.saved_tensors)
		s.dropTensor(g)
		if err == nil {
			err = errSecondPass
		}
		return nil, err
	}
	grads, err := s.runNode(n, g, needed)
	s.dropTensor(g)
	if err != nil {
		return nil, err
	}
	if !retain && len(n.saved) > 0 {
		s.releaseSaved(n, true)
		n.released = true
	}
	// the gradients not taken by a buffer go once all are added, in
	// order (evaluate_function's outputs)
	var added []*Tensor
	var ready []*node
	for i, e := range n.inputs {
		gi := grads[i]
		if e.to == nil || gi == nil {
			if gi != nil {
				s.dropTensor(gi)
			}
			continue
		}
		kept, err := flow.add(e.to, e.out, gi, n.stream, func() *Tensor { return inputGrad(buffers, e) }, func() (bool, error) {
			return s.addToInput(buffers, e, gi)
		})
		if !kept {
			added = append(added, gi)
		}
		if err != nil {
			dropAll(s, added)
			return nil, err
		}
		if deps[e.to]--; deps[e.to] == 0 {
			ready = append(ready, e.to)
		}
	}
	dropAll(s, added)
	return ready, nil
}

// dropAll lets go of ts in order.
func dropAll(s *Session, ts []*Tensor) {
	for _, t := range ts {
		s.dropTensor(t)
	}
}

// runNode is one node's backward, computing the gradients only of the
// inputs whose nodes are needed (with needed nil, all).
func (s *Session) runNode(n *node, g *Tensor, needed map[*node]bool) ([]*Tensor, error) {
	var masked []int
	if needed != nil {
		for i, e := range n.inputs {
			if e.to != nil && !needed[e.to] {
				masked = append(masked, i)
			}
		}
	}
	var unpacked []*Tensor
	if n.fn == nil {
		var err error
		if unpacked, err = s.unpackHooked(n); err != nil {
			return nil, err
		}
	}
	keep := make([]*node, len(masked))
	for j, i := range masked {
		keep[j], n.inputs[i].to = n.inputs[i].to, nil
	}
	grads, err := n.bw(s, n, g)
	// the tensors unpacked go as the backward returns, the last unpacked
	// first (the generated apply's locals: train_custom_fn.py's
	// NllLossBackward0 frees total_weight, target, then self)
	slices.Reverse(unpacked)
	dropAll(s, unpacked)
	if err == nil {
		err = s.sumToInputs(n, grads)
	}
	for j, i := range masked {
		n.inputs[i].to = keep[j]
	}
	if err != nil {
		for _, gi := range grads {
			if gi != nil {
				s.dropTensor(gi)
			}
		}
		return nil, err
	}
	return grads, nil
}

// errLeafFlag is PyTorch's error for requires_grad_ on a non-leaf.
var errLeafFlag = Errorf(RuntimeError, "you can only change requires_grad flags of leaf variables. If you want to use a computed variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach().")

// ClearRequiresGrad is t.requires_grad_(False) of a leaf: it takes part
// in no graph made from now on. A live graph keeps the leaf's
// AccumulateGrad, and with it the leaf, as before, but accumulates
// nothing into it (an EMA teacher's weight_norm'd weight, computed from
// its parameters as the module was built, before they were frozen). A
// leaf with a .grad keeps it in PyTorch; the tool does not model that
// yet.
func (s *Session) ClearRequiresGrad(t *Tensor) error {
	switch {
	case t.fn != nil:
		return errLeafFlag
	case t.slot == nil:
		return nil
	case t.slot.grad != nil:
		return Refusef(NotImplementedError, "requires_grad_(False) of a tensor that has a .grad is not modelled by gpumemrepl")
	case t.slot.acc != nil && t.slot.acc.refs > 0:
		t.slot.off = true
	}
	s.dropSlot(t)
	return nil
}

// Detach is t.detach(): t's storage without its graph.
func (s *Session) Detach(t *Tensor) *Tensor {
	d := share(t)
	s.unref(d.fn)
	d.fn = nil
	s.dropSlot(d)
	return d
}

// DetachInPlace is t.detach_(): t leaves its graph (its reference to the
// node that made it goes, which may free the graph) and requires no grad.
func (s *Session) DetachInPlace(t *Tensor) error {
	if t.fn == nil {
		return s.ClearRequiresGrad(t)
	}
	n := t.fn
	t.fn = nil
	s.unref(n)
	return nil
}

func init() {
	declare(&OpDef{Name: "detach", Function: true, Method: true, InPlace: "detach_", Params: []Param{input}, Detached: true,
		Memory:  "the input's storage, outside the graph (no view: _base is None); in place, the input leaves its graph, which may free it",
		run:     func(s *Session, a Args) (*Tensor, error) { return s.Detach(a.Tensor(0)), nil },
		inPlace: func(s *Session, a Args) error { return s.DetachInPlace(a.Tensor(0)) }})
}
