package engine

import (
	"slices"
)

// torch.amp.GradScaler's tensors (PyTorch 2.11's torch/amp/grad_scaler.py,
// recorded in testdata/pyrules/amp_scaler.py): the first scale() makes
// the scale (a float32 0-d tensor) and the growth tracker (an int32
// one), both kept for the scaler's life, and multiplies the loss by the
// scale (a new tensor, in the graph); unscale_ makes the scale's
// inverse through float64 (two 0-d temporaries, freed by its end) and
// found_inf, a float32 0-d tensor the optimizer's state holds until
// update(); the non-finite check, the unscaling and the scale's update
// run in place and allocate nothing. Values are not computed, so no
// gradient is taken to overflow: every step runs, and the scale grows
// by its factor after every growth_interval steps.

// GradScaler is one torch.amp.GradScaler.
type GradScaler struct {
	InitScale, GrowthFactor, BackoffFactor float64
	GrowthInterval                         int64
	scale, growth                          *Tensor // nil until the first Scale
	value                                  float64 // the scale's value
	tracker                                int64   // steps since the scale last grew
	// optimizers are the per-optimizer states since the last update,
	// in the order they were first unscaled.
	optimizers []*scalerState
}

// scalerState is one optimizer's state in a scaler: found_inf, and
// whether step() ran.
type scalerState struct {
	opt      any
	foundInf *Tensor
	stepped  bool
}

// NewGradScaler is a scaler with PyTorch's parameters; it holds no
// tensor until its first Scale.
func NewGradScaler(initScale, growthFactor, backoffFactor float64, growthInterval int64) *GradScaler {
	return &GradScaler{InitScale: initScale, GrowthFactor: growthFactor, BackoffFactor: backoffFactor,
		GrowthInterval: growthInterval, value: initScale}
}

// Scale is get_scale(): the initial scale until the first Scale, then
// the scale's value.
func (g *GradScaler) Scale() float64 { return g.value }

// ScaleOutput is scaler.scale(t) of a CUDA tensor: t times the scale, a
// new tensor; the first call makes the scale and the growth tracker on
// t's device.
func (s *Session) ScaleOutput(g *GradScaler, t *Tensor) (*Tensor, error) {
	if g.scale == nil {
		ts, err := s.scalars(t.Device(), Float32, DTypes["int32"])
		if err != nil {
			return nil, err
		}
		g.scale, g.growth = ts[0], ts[1]
		g.scale.st.vals = knownValues{g.value}
	}
	return s.Op("mul", t, g.scale)
}

// scalars makes a 0-d tensor of each dtype on dev, in order.
func (s *Session) scalars(dev Device, dts ...DType) ([]*Tensor, error) {
	want := make([]tensorShape, len(dts))
	for i, dt := range dts {
		want[i] = tensorShape{nil, dt}
	}
	return s.allocAll(dev, want...)
}

// errScaleNone is _check_scale_growth_tracker's assertion.
func errScaleNone(fn string) error {
	return Errorf(AssertionError, "Attempted %s but _scale is None.  This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration.", fn)
}

// state is opt's state in g, made when first asked for.
func (g *GradScaler) state(opt any) *scalerState {
	for _, st := range g.optimizers {
		if st.opt == opt {
			return st
		}
	}
	st := &scalerState{opt: opt}
	g.optimizers = append(g.optimizers, st)
	return st
}

// Unscale is scaler.unscale_(opt): the scale's inverse (through float64:
// double(), reciprocal(), float(), each 0-d, the temporaries freed as
// each next one exists), then found_inf, then a copy of each for the
// device (_MultiDeviceReplicator.get copies even to the same device):
// the optimizer keeps found_inf's copy; the others go at the end.
func (s *Session) Unscale(g *GradScaler, opt any) error {
	if g.scale == nil {
		return errScaleNone("unscale_")
	}
	st := g.state(opt)
	switch {
	case st.stepped:
		return Errorf(RuntimeError, "unscale_() is being called after step().")
	case st.foundInf != nil:
		return Errorf(RuntimeError, "unscale_() has already been called on this optimizer since the last update().")
	}
	dev := g.scale.Device()
	f64 := DTypes["float64"]
	var inv *Tensor
	for _, dt := range []DType{f64, f64, Float32} {
		next, err := s.alloc(nil, dt, dev)
		if err != nil {
			if inv != nil {
				s.dropTensor(inv)
			}
			return err
		}
		if inv != nil {
			s.dropTensor(inv)
		}
		inv = next
	}
	defer s.dropTensor(inv)
	ts, err := s.scalars(dev, Float32, Float32, Float32)
	if err != nil {
		return err
	}
	s.dropTensor(ts[0])
	s.dropTensor(ts[2])
	ts[1].st.vals = knownValues{0}
	st.foundInf = ts[1]
	return nil
}

// ScalerStep is scaler.step(opt): unscale_ when it has not run, then
// the optimizer's step (no gradient is taken to overflow).
func (s *Session) ScalerStep(g *GradScaler, opt any, step func() error) error {
	if g.scale == nil {
		return errScaleNone("step")
	}
	st := g.state(opt)
	if st.stepped {
		return Errorf(RuntimeError, "step() has already been called since the last update().")
	}
	if st.foundInf == nil {
		if err := s.Unscale(g, opt); err != nil {
			return err
		}
	}
	if err := step(); err != nil {
		return err
	}
	st.stepped = true
	return nil
}

// ScalerUpdate is scaler.update(): the scale and tracker change in
// place; every optimizer's found_inf goes.
func (s *Session) ScalerUpdate(g *GradScaler) error {
	if g.scale == nil {
		return errScaleNone("update")
	}
	states := slices.DeleteFunc(g.optimizers, func(st *scalerState) bool { return st.foundInf == nil })
	if len(states) == 0 {
		return Errorf(AssertionError, "No inf checks were recorded prior to update.")
	}
	g.optimizers = nil
	for _, st := range states {
		s.dropTensor(st.foundInf)
	}
	if g.tracker++; g.tracker == g.GrowthInterval {
		g.value *= g.GrowthFactor
		g.tracker = 0
	}
	g.scale.st.vals = knownValues{g.value}
	return nil
}

// Tracker is the growth tracker's value: the updates since the scale
// last grew.
func (g *GradScaler) Tracker() int64 { return g.tracker }

// Load is scaler.load_state_dict's effect: the initial and current
// scale, the factors, the interval and the tracker take the saved
// values; an existing scale and tracker are filled in place, so
// nothing is allocated (testdata/experiments/tutorial_amp_recipe).
func (g *GradScaler) Load(scale, growthFactor, backoffFactor float64, growthInterval, tracker int64) {
	g.InitScale, g.value = scale, scale
	g.GrowthFactor, g.BackoffFactor, g.GrowthInterval = growthFactor, backoffFactor, growthInterval
	g.tracker = tracker
	if g.scale != nil {
		g.scale.st.vals = knownValues{scale}
	}
}

// FreeGradScaler lets go of a scaler's tensors (its object died).
func (s *Session) FreeGradScaler(g *GradScaler) {
	for _, st := range g.optimizers {
		if st.foundInf != nil {
			s.dropTensor(st.foundInf)
		}
	}
	g.optimizers = nil
	for _, t := range []*Tensor{g.scale, g.growth} {
		if t != nil {
			s.dropTensor(t)
		}
	}
	g.scale, g.growth = nil, nil
}
