package engine

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

// Name is the node's PyTorch name ("MulBackward0").
func (g *GradNode) Name() string { return g.n.name }

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
