package engine

import "strings"

// GradNode is an autograd node as Python sees it: a tensor's grad_fn,
// or a node of its next_functions (AccumulateGrad for a leaf). Holding
// one does not keep the graph's saved tensors alive here.
type GradNode struct{ n *node }

// GradNode is t's grad_fn; nil for a leaf or a tensor outside autograd.
func (t *Tensor) GradNode() *GradNode {
	if t.fn == nil {
		return nil
	}
	return &GradNode{t.fn}
}

// Name is the node's PyTorch name(): "MulBackward0", or with its C++
// namespace for a node PyTorch writes by hand
// ("torch::autograd::CopySlices", "torch::autograd::AccumulateGrad").
func (g *GradNode) Name() string { return g.n.name }

// Class is the name of the node's Python class, which its repr and a
// tensor's print show: its name without the namespace ("CopySlices").
func (g *GradNode) Class() string { return className(g.n.name) }

// className is a node's name without its C++ namespace, as PyTorch's
// class of the node and _tensor_str (name().rsplit("::", 1)[-1]) have it.
func className(name string) string {
	if i := strings.LastIndex(name, "::"); i >= 0 {
		return name[i+2:]
	}
	return name
}

// Next are the nodes g's inputs lead to, and which of each node's
// outputs the input is (next_functions); a nil node where an input takes
// no gradient.
func (g *GradNode) Next() ([]*GradNode, []int) {
	nodes := make([]*GradNode, len(g.n.inputs))
	outs := make([]int, len(g.n.inputs))
	for i, e := range g.n.inputs {
		if e.to != nil {
			nodes[i], outs[i] = &GradNode{e.to}, e.out
		}
	}
	return nodes, outs
}
