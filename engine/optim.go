package engine

import (
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// The optimizers of torch.optim, as memory: PyTorch 2.11's SGD, Adam and
// AdamW on CUDA, each in its three implementations, with the state each
// makes at its first step and the temporaries each step makes and frees,
// in PyTorch's order (testdata/pyrules/optim_sgd.py, optim_adam.py and
// optim_groups.py, recorded with allocator events).

// OptimImpl is the implementation a param group's step runs.
type OptimImpl int

const (
	// Foreach is the _multi_tensor_ implementation, CUDA's default: the
	// parameters are bucketed by device and dtype, and each bucket's
	// intermediates are lists of new tensors.
	Foreach OptimImpl = iota
	// ForLoop is foreach=False: one parameter at a time.
	ForLoop
	// Fused is fused=True: one kernel per bucket, no intermediates; its
	// step counters live on the GPU.
	Fused
)

// GroupOptions are the options of a param group that decide what its
// step allocates (lr, betas, eps and dampening change only numbers).
type GroupOptions struct {
	Momentum    float64 // SGD
	WeightDecay float64
	Nesterov    bool // SGD
	AMSGrad     bool // Adam, AdamW
	Decoupled   bool // AdamW's weight decay (param *= 1 - lr * wd, in place)
	Centered    bool // RMSprop
	Maximize    bool
	Impl        OptimImpl
}

// ParamGroup is one of an optimizer's param_groups as a step reads it.
type ParamGroup struct {
	Params []*Tensor
	GroupOptions
}

// Optimizer is torch.optim.SGD, Adam or RMSprop (AdamW is Adam with
// decoupled weight decay): its per-parameter state,
// made at the parameter's first step with a gradient, as in PyTorch.
type Optimizer struct {
	kind  string
	state map[*Tensor]*ParamState
	order []*Tensor // the parameters with state, in the order it was made (opt.state's order)
}

// ParamState is one parameter's entry of optimizer.state: its tensors,
// by PyTorch's names, in PyTorch's order.
type ParamState struct {
	Names   []string
	Tensors []*Tensor
	listed  bool // in Optimizer.order
}

// NewOptimizer is an optimizer of kind "SGD", "Adam" or "RMSprop" with
// no state yet.
func (s *Session) NewOptimizer(kind string) *Optimizer {
	s.processEvent(device.Library)
	return &Optimizer{kind: kind, state: map[*Tensor]*ParamState{}}
}

// State is the state of each parameter that has one, in the order it was
// made; the tensors are the optimizer's own (not new references).
func (o *Optimizer) State() ([]*Tensor, []*ParamState) {
	sts := make([]*ParamState, len(o.order))
	for i, p := range o.order {
		sts[i] = o.state[p]
	}
	return slices.Clone(o.order), sts
}

// Step is optimizer.step() over groups, one after the other, as PyTorch
// runs it: a parameter without a gradient is skipped (and gets no
// state); the updates themselves are in place.
func (s *Session) Step(o *Optimizer, groups []ParamGroup) error {
	for _, g := range groups {
		var ps []*Tensor
		for _, p := range g.Params {
			if gradOf(p) != nil {
				ps = append(ps, p)
			}
		}
		if len(ps) == 0 {
			continue
		}
		var err error
		switch o.kind {
		case "SGD":
			err = s.sgdStep(o, g.GroupOptions, ps)
		case "RMSprop":
			err = s.rmspropStep(o, g.GroupOptions, ps)
		default:
			err = s.adamStep(o, g.GroupOptions, ps)
		}
		o.list(ps)
		if err != nil {
			return err
		}
	}
	return nil
}

// FreeOptimizer drops an optimizer's state, in the order the state was
// made (the state dict's order), each parameter's tensors in order.
func (s *Session) FreeOptimizer(o *Optimizer) {
	for _, p := range o.order {
		for _, t := range o.state[p].Tensors {
			s.dropTensor(t)
		}
	}
	o.state, o.order = map[*Tensor]*ParamState{}, nil
}

// newState makes p's state: a tensor like p for each name, except
// "step", the 0-d step counter _init_group makes first: on the host, of
// _get_scalar_dtype() (float64 under a float64 default dtype, else
// float32), or with fused on p's device in float32, as the fused
// kernels read it there.
func (s *Session) newState(o *Optimizer, p *Tensor, fused bool, names ...string) error {
	st := &ParamState{}
	for _, name := range names {
		shape, dt, dev := p.Shape, p.DType, p.Device()
		if name == "step" {
			shape, dt = nil, Float32
			if !fused {
				dev = CPU
				if f64 := DTypes["float64"]; s.defaults.dtype == f64 {
					dt = f64
				}
			}
		}
		t, err := s.alloc(shape, dt, dev)
		if err != nil {
			for _, t := range st.Tensors {
				s.dropTensor(t)
			}
			return err
		}
		t.st.role = roleOptimizer
		if name == "step" {
			t.st.vals = knownValues{0}
		}
		st.Names = append(st.Names, name)
		st.Tensors = append(st.Tensors, t)
	}
	o.state[p] = st
	return nil
}

// countSteps adds one to the step counter of each of ps's state, as
// every Adam and RMSprop step does (in place: no memory).
func (o *Optimizer) countSteps(ps []*Tensor) {
	for _, p := range ps {
		st := o.state[p]
		if i := slices.Index(st.Names, "step"); i >= 0 {
			if v := st.Tensors[i].st.vals; len(v) == 1 {
				st.Tensors[i].st.vals = knownValues{v[0] + 1}
			}
		}
	}
}

// list enters the state made for ps into opt.state's order, in ps's
// order (SGD makes its buffers bucket by bucket but stores them
// parameter by parameter).
func (o *Optimizer) list(ps []*Tensor) {
	for _, p := range ps {
		if st := o.state[p]; st != nil && !st.listed {
			st.listed = true
			o.order = append(o.order, p)
		}
	}
}

// temps is a Python list of new tensors (a _foreach_ op's result, or one
// parameter's locals): it frees its items last first, as CPython's list
// deallocation does.
type temps []*Tensor

func (s *Session) freeTemps(ts *temps) {
	for i := len(*ts) - 1; i >= 0; i-- {
		s.dropTensor((*ts)[i])
	}
	*ts = nil
}

// likeEach makes a new tensor like each of ts (a _foreach_ op's result).
func (s *Session) likeEach(ts []*Tensor) (temps, error) {
	out := make(temps, 0, len(ts))
	for _, t := range ts {
		r, err := s.alloc(t.Shape, t.DType, t.Device())
		if err != nil {
			s.freeTemps(&out)
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

func (s *Session) like(t *Tensor) (*Tensor, error) { return s.alloc(t.Shape, t.DType, t.Device()) }

// buckets groups parameters by device and dtype, as
// _group_tensors_by_device_and_dtype does, in the order its C++ map
// (std::unordered_map) yields them: the reverse of each key's first
// appearance (recorded with float32, float16 and bfloat16 together).
func buckets(ps []*Tensor) [][]*Tensor {
	type key struct {
		dev Device
		dt  string
	}
	var keys []key
	by := map[key][]*Tensor{}
	for _, p := range ps {
		k := key{p.Device(), p.DType.Name}
		if _, ok := by[k]; !ok {
			keys = append(keys, k)
		}
		by[k] = append(by[k], p)
	}
	out := make([][]*Tensor, len(keys))
	for i, k := range keys {
		out[len(keys)-1-i] = by[k]
	}
	return out
}

func gradsOf(ps []*Tensor) []*Tensor {
	gs := make([]*Tensor, len(ps))
	for i, p := range ps {
		gs[i] = gradOf(p)
	}
	return gs
}

// HasGrad reports whether t has a .grad.
func (t *Tensor) HasGrad() bool { return gradOf(t) != nil }
