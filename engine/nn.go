package engine

import (
	"fmt"
	"strings"
)

// Module is a torch.nn module: Linear, ReLU, GELU or Sequential. Its
// parameters are leaf tensors that require grad; they are made on the
// host (initialised, so written) and moved by .cuda() / .to(), in
// parameters() order, as PyTorch does.
type Module struct {
	Kind     string
	W, B     *Tensor // Linear's weight [out, in] and bias [out] (nil with bias=False)
	Children []*Module
}

// parameters lists the module's parameters in PyTorch's order.
func (m *Module) parameters() []*Tensor {
	var ps []*Tensor
	if m.W != nil {
		ps = append(ps, m.W)
	}
	if m.B != nil {
		ps = append(ps, m.B)
	}
	for _, c := range m.Children {
		ps = append(ps, c.parameters()...)
	}
	return ps
}

// String is the module as PyTorch prints it, on one line.
func (m *Module) String() string {
	switch m.Kind {
	case "Linear":
		return fmt.Sprintf("Linear(in_features=%d, out_features=%d, bias=%s)", m.W.Shape[1], m.W.Shape[0], map[bool]string{true: "True", false: "False"}[m.B != nil])
	case "Sequential":
		var cs []string
		for _, c := range m.Children {
			cs = append(cs, c.String())
		}
		return "Sequential(" + strings.Join(cs, ", ") + ")"
	}
	return m.Kind + "()"
}

// newModule builds a module from its description, on the host.
func (s *Session) newModule(e *ModuleNew) (*Module, error) {
	m := &Module{Kind: e.Kind}
	switch e.Kind {
	case "Linear":
		w, err := s.newParam([]int64{e.Out, e.In}, CPU)
		if err != nil {
			return nil, err
		}
		m.W = w
		if e.Bias {
			if m.B, err = s.newParam([]int64{e.Out}, CPU); err != nil {
				s.freeModule(m)
				return nil, err
			}
		}
	case "Sequential":
		for _, c := range e.Children {
			cm, err := s.newModule(c)
			if err != nil {
				s.freeModule(m)
				return nil, err
			}
			m.Children = append(m.Children, cm)
		}
	}
	return m, nil
}

// newParam makes an initialised float32 parameter on the host.
func (s *Session) newParam(shape []int64, dev Device) (*Tensor, error) {
	t := &Tensor{Shape: shape, DType: Float32, slot: &gradSlot{}}
	if err := checkSize(shape, Float32.Size); err != nil {
		return nil, err
	}
	st, err := s.newStorage(dev, t.Bytes(), true)
	if err != nil {
		return nil, err
	}
	t.st = st
	return t, nil
}

// freeModule drops a module's parameters and their grads.
func (s *Session) freeModule(m *Module) { s.freeParams(m.parameters()) }

func (s *Session) freeParams(ps []*Tensor) {
	s.zeroGrad(ps, true)
	for _, p := range ps {
		s.dropTensor(p)
	}
}

// moduleTo moves every parameter (and gradient) to dev, in order: each
// copy is made before the old storage goes.
func (s *Session) moduleTo(m *Module, dev Device, at Pos) error {
	for _, p := range m.parameters() {
		for _, t := range []*Tensor{p, p.slot.grad} {
			if t == nil || t.Device() == dev {
				continue
			}
			st, err := s.newStorage(dev, t.st.bytes, false)
			if err == nil {
				if err = s.copyBytes(st, t.st, 0, t.st.bytes); err != nil {
					s.release(st)
				}
			}
			if err != nil {
				return &EvalError{Pos: at, Err: err}
			}
			s.release(t.st)
			t.st = st
		}
	}
	return nil
}

// callModule runs m(x).
func (s *Session) callModule(m *Module, x *Tensor) (*Tensor, error) {
	switch m.Kind {
	case "Linear":
		return s.linear(x, m.W, m.B)
	case "ReLU":
		return s.elementwise("relu", x)
	case "GELU":
		return s.elementwise("gelu", x)
	}
	y := share(x)
	for _, c := range m.Children {
		z, err := s.callModule(c, y)
		s.dropTensor(y)
		if err != nil {
			return nil, err
		}
		y = z
	}
	return y, nil
}

// Optimizer is torch.optim.SGD, Adam or AdamW over a module's parameters.
// Its state tensors are allocated at the first step, as in PyTorch.
type Optimizer struct {
	Kind     string
	Params   []*Tensor
	Momentum float64
	state    map[*Tensor][]*Tensor
}

// step is opt.step() as PyTorch's default (foreach) implementation does
// it on CUDA: parameters without a gradient are skipped; Adam(W) makes
// exp_avg and exp_avg_sq per parameter on its first step, then each
// step a temporary per parameter (the square roots of exp_avg_sq), freed
// newest first; SGD with momentum clones each gradient into its
// momentum buffer on the first step. The updates themselves are in place.
func (s *Session) step(o *Optimizer) error {
	var params []*Tensor
	for _, p := range o.Params {
		if p.slot.grad != nil {
			params = append(params, p)
		}
	}
	for _, p := range params {
		if _, ok := o.state[p]; ok {
			continue
		}
		n := 0
		switch {
		case o.Kind == "SGD" && o.Momentum != 0:
			n = 1
		case o.Kind != "SGD":
			n = 2
		}
		var st []*Tensor
		for range n {
			t, err := s.alloc(p.Shape, p.DType, p.Device())
			if err != nil {
				for _, t := range st {
					s.dropTensor(t)
				}
				return err
			}
			st = append(st, t)
		}
		o.state[p] = st
	}
	if o.Kind == "SGD" {
		return nil
	}
	var tmp []*Tensor
	defer func() {
		for i := len(tmp) - 1; i >= 0; i-- {
			s.dropTensor(tmp[i])
		}
	}()
	for _, p := range params {
		t, err := s.alloc(p.Shape, p.DType, p.Device())
		if err != nil {
			return err
		}
		tmp = append(tmp, t)
	}
	return nil
}

// freeOptimizer drops an optimizer's state.
func (s *Session) freeOptimizer(o *Optimizer) {
	for _, p := range o.Params {
		for _, t := range o.state[p] {
			s.dropTensor(t)
		}
	}
	o.state = nil
}
