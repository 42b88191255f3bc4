package engine

import (
	"slices"
)

// The fused cell kernels of nn.LSTMCell and nn.GRUCell on the GPU
// (native/cuda/RNN.cu), as memory. torch.lstm_cell and gru_cell
// (PyTorch's composites, torchpy's rnn_cells.py) multiply the input and
// the hidden state by the weights, then call these.
// _thnn_fused_lstm_cell(input_gates, hidden_gates, cx, b_ih, b_hh) makes
// its workspace (the gates' shape), h' and c' (c's); the node saves both
// gates, c, the biases, c' and the workspace, and its backward (grad
// mode off: _thnn_fused_lstm_cell_backward) makes the gates' gradient
// (given to both products) and c's, then with biases their sum over the
// batch (given to both biases). _thnn_fused_gru_cell(...) makes its
// workspace (batch x 5 hidden) then h'; the node saves the gates, h, the
// biases and the workspace; its backward makes the input gates' and the
// hidden gates' gradients and h's, then with biases each gates' sum. A
// gradient made for an input that takes none goes as the backward
// returns, before the node's saved tensors. Recorded on the GPU machine
// (an H100 lent for the H200): testdata/pyrules/rnn_cells.py, event by
// event.

func init() {
	cell := func(name string, outs string, run func(s *Session, a Args) ([]*Tensor, error)) *OpDef {
		return &OpDef{Name: name, Function: true,
			Params: []Param{{Name: "input_gates", Kind: TensorParam}, {Name: "hidden_gates", Kind: TensorParam}, {Name: "cx", Kind: TensorParam},
				optTensor("input_bias"), optTensor("hidden_bias")},
			Memory: outs,
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				ts, err := run(s, a)
				return ts, true, err
			}}
	}
	lstm := cell("_thnn_fused_lstm_cell", "the workspace, h' and c'; saves both gates, c, the biases, c' and the workspace; backward makes the gates' gradient, c's and the biases' sum", func(s *Session, a Args) ([]*Tensor, error) {
		return s.fusedCell("_thnn_fused_lstm_cell", 4, a)
	})
	gru := cell("_thnn_fused_gru_cell", "the workspace (batch x 5 hidden) and h'; saves the gates, h, the biases and the workspace; backward makes both gates' gradients, h's and the biases' sums", func(s *Session, a Args) ([]*Tensor, error) {
		return s.fusedCell("_thnn_fused_gru_cell", 3, a)
	})
	gru.Params[2].Name = "hx"
	declare(lstm, gru)
}

// fusedCell runs _thnn_fused_lstm_cell (gates 4) or
// _thnn_fused_gru_cell (gates 3).
func (s *Session) fusedCell(op string, gates int64, a Args) ([]*Tensor, error) {
	ig, hg, h, bi, bh := a.Tensor(0), a.Tensor(1), a.Tensor(2), a.Tensor(3), a.Tensor(4)
	if len(h.Shape) != 2 || !slices.Equal(ig.Shape, hg.Shape) || len(ig.Shape) != 2 || ig.Shape[1] != gates*h.Shape[1] || ig.Shape[0] != h.Shape[0] {
		return nil, Errorf(RuntimeError, "%s: gates %s and %s do not fit a hidden state %s", op, dimList(ig.Shape), dimList(hg.Shape), dimList(h.Shape))
	}
	if !ig.Device().CUDA {
		return nil, NotModelledError("torch." + op + " on the host")
	}
	batch, hidden, dev := h.Shape[0], h.Shape[1], h.Device()
	ws := []int64{batch, gates * hidden}
	if gates == 3 {
		ws[1] = 5 * hidden
	}
	shapes := []tensorShape{{ws, ig.DType}, {slices.Clone(h.Shape), h.DType}}
	if gates == 4 {
		shapes = append(shapes, tensorShape{slices.Clone(h.Shape), h.DType})
	}
	ts, err := s.allocAll(dev, shapes...)
	if err != nil {
		return nil, err
	}
	work, hy := ts[0], ts[1]
	inputs := []*Tensor{ig, hg, h, bi, bh}
	if !needsGraph(s, inputs) {
		if gates == 4 {
			return []*Tensor{hy, ts[2], work}, nil
		}
		return []*Tensor{hy, work}, nil
	}
	hasBias := bi != nil
	if gates == 4 {
		cy := ts[2]
		s.record("ThnnFusedLstmCellBackward0", hy, inputs, nonNil(h, bh, hg, bi, ig, cy, work), lstmCellBackward(ws, hasBias))
		cy.fn, cy.out = hy.fn, 1
		hy.fn.refs++
		hy.fn.grads = make([]*Tensor, 2)
		return []*Tensor{hy, cy, work}, nil
	}
	s.record("ThnnFusedGruCellBackward0", hy, inputs, nonNil(bh, hg, h, bi, ig, work), gruCellBackward(batch, hidden, hasBias))
	return []*Tensor{hy, work}, nil
}

// biasSum is grad_gates.sum(0): a bias's gradient, a reduction over the
// batch.
func (s *Session) biasSum(g *Tensor) (*Tensor, error) {
	sum := Ops["sum"]
	a := make(Args, len(sum.Params))
	for i, p := range sum.Params {
		a[i] = p.DefaultValue()
	}
	a[0], a[1], a[2] = g, int64(0), false
	ts, _, err := sum.runTuple(s, a)
	if err != nil {
		return nil, err
	}
	return ts[0], nil
}

// lstmCellBackward is _thnn_fused_lstm_cell_backward: the gates'
// gradient (both gates take it), c's, then the biases' (both take it).
func lstmCellBackward(ws []int64, hasBias bool) backward {
	return func(s *Session, n *node, _ *Tensor) ([]*Tensor, error) {
		grads := n.grads
		n.grads = make([]*Tensor, len(grads))
		defer dropAll(s, nonNil(grads...))
		dev := grads[slices.IndexFunc(grads, func(t *Tensor) bool { return t != nil })].Device()
		cx := n.inputs[2]
		gg, err := s.alloc(slices.Clone(ws), n.inputs[0].dtype, dev)
		if err != nil {
			return nil, err
		}
		gc, err := s.alloc(slices.Clone(cx.shape), cx.dtype, dev)
		if err != nil {
			s.dropTensor(gg)
			return nil, err
		}
		out := []*Tensor{gg, share(gg), gc, nil, nil}
		if hasBias {
			gb, err := s.biasSum(gg)
			if err != nil {
				dropAll(s, nonNil(out...))
				return nil, err
			}
			out[3], out[4] = gb, share(gb)
		}
		return dropUnneeded(s, n, out), nil
	}
}

// dropUnneeded lets go of the gradients a fused cell's backward made
// for inputs that take none (a zero state made by the module, an input
// autograd.grad does not ask for), first to last, as the generated
// node's result goes at its apply's end: before the node releases what
// it saved (rnn_cells.py: c's gradient freed before the gates).
func dropUnneeded(s *Session, n *node, out []*Tensor) []*Tensor {
	for i, e := range n.inputs {
		if e.to == nil && out[i] != nil {
			s.dropTensor(out[i])
			out[i] = nil
		}
	}
	return out
}

// gruCellBackward is _thnn_fused_gru_cell_backward: the input gates'
// and the hidden gates' gradients and h's, then each gates' sum.
func gruCellBackward(batch, hidden int64, hasBias bool) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		gates := []int64{batch, 3 * hidden}
		ts, err := s.allocAll(g.Device(), tensorShape{gates, g.DType}, tensorShape{slices.Clone(gates), g.DType}, tensorShape{[]int64{batch, hidden}, g.DType})
		if err != nil {
			return nil, err
		}
		out := []*Tensor{ts[0], ts[1], ts[2], nil, nil}
		if hasBias {
			for i := range 2 {
				if out[3+i], err = s.biasSum(ts[i]); err != nil {
					dropAll(s, nonNil(out...))
					return nil, err
				}
			}
		}
		return dropUnneeded(s, n, out), nil
	}
}
