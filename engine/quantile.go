package engine

import (
	"slices"
)

// torch.quantile(input, q, dim=None, keepdim=False, interpolation=) with
// a number q, as PyTorch 2.11 composes it (quantile_compute): q made a
// 0-d tensor of the input's dtype; the input sorted (flattened, or along
// dim moved last after an unsqueeze), the sort's indices freed unless
// its node saves them, and viewed as the reduced shape and the sorted
// line; the ranks: q times the last index (0-d), the sorted values'
// isnan and its any() along the line (the isnan freed), masked_fill of
// the two (the ranks, of the reduced shape and a 1), the 0-d and the
// any freed; lower, higher and nearest round the ranks in place, take
// them as int64 and gather the values below; linear and midpoint gather
// below and above (the ranks as int64 twice, ceil_ between) and lerp_
// the values below towards those above by the weights (ranks less
// their int64, or 0.5s), freeing the values above, then the int64
// ranks above, the weights, the ranks below, the ranks and the sorted
// values, where no node keeps them; the output is the values below with
// the line's 1 squeezed in place (SqueezeBackward4), q freed last.
//
// Under autograd the gathers save the sorted values and their int64
// ranks and lerp_ records LerpBackward1 saving the weights; backward
// makes, for the values above, the gradient times the weights, for the
// values below, 1 - weights and the gradient times it (the first freed),
// then each gather's zeros of the sorted shape, sort's gradient and the
// views'. testdata/pyrules/ops_census_misc.py recorded linear
// interpolation along a dimension, forward and backward; the other
// interpolations and the flattened input are estimated.

func init() {
	declare(&OpDef{Name: "quantile", Function: true, Method: true,
		Params: []Param{input, {Name: "q", Kind: NumberParam}, {Name: "dim", Kind: IntParam, Default: "None"}, keepdim, {Name: "interpolation", Kind: StringParam, Default: "'linear'", KeywordOnly: true}},
		Memory: "q as a 0-d tensor, sort's values and indices, the ranks (small tensors of the reduced shape), the values gathered below and above the ranks and their interpolation in place: the output; the rest freed; backward through the interpolation, the gathers and the sort (linear along a dimension recorded; the other cases estimated)",
		run: func(s *Session, a Args) (*Tensor, error) {
			return s.quantile(a.Tensor(0), a.Number(1), a[2], a.Bool(3), a.String(4))
		}})
}

// quantile is torch.quantile(x, q, dim, keepdim, interpolation=mode).
func (s *Session) quantile(x *Tensor, q float64, dim any, keep bool, mode string) (*Tensor, error) {
	switch {
	case !isFloat(x.DType):
		return nil, Errorf(RuntimeError, "quantile() input tensor must be either float or double dtype")
	case q < 0 || q > 1:
		return nil, Errorf(RuntimeError, "quantile() q must be in the range [0, 1] but got %g", q)
	case !slices.Contains([]string{"linear", "lower", "higher", "midpoint", "nearest"}, mode):
		return nil, Errorf(ValueError, "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. Got %s", mode)
	case len(x.Shape) == 0 || x.Numel() == 0:
		return nil, NotModelledError("torch.quantile of a 0-d or empty tensor")
	}
	made := func(...*Tensor) {}
	if mode != "linear" || dim == nil {
		var err error
		if made, err = s.estimateOp("torch.quantile", "%s interpolation=%s dim=%v: memory rule from PyTorch's composite, not recorded on the GPU (ops_census_misc.py records linear interpolation along a dimension)", argShapes(Args{x}), mode, dim); err != nil {
			return nil, err
		}
	}
	dev := x.Device()
	qt, err := s.alloc(nil, x.DType, dev)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(qt)
	var out []int64 // the reduced shape
	var lined *Tensor
	if dim == nil {
		if keep {
			out = slices.Repeat([]int64{1}, len(x.Shape))
		}
		lined, err = s.Flatten(x, 0, -1)
	} else {
		d, derr := dimIndex(dim.(int64), len(x.Shape))
		if derr != nil {
			return nil, derr
		}
		if out, err = reducedShape(x.Shape, []int64{int64(d)}, keep); err != nil {
			return nil, err
		}
		lined, err = s.lineLast(x, d)
	}
	if err != nil {
		return nil, err
	}
	sortedOuts, err := s.Sort(lined, -1, false)
	s.dropTensor(lined)
	if err != nil {
		return nil, err
	}
	s.dropTensor(sortedOuts[1])
	n := x.Numel()
	if dim != nil {
		n = uint64(x.Shape[dimOf(dim, x)])
	}
	sorted, err := s.View(sortedOuts[0], append(slices.Clone(out), int64(n)))
	s.dropTensor(sortedOuts[0])
	if err != nil {
		return nil, err
	}
	var held []*Tensor // the locals PyTorch frees at its end, in order
	defer func() {
		for _, t := range held {
			s.dropTensor(t)
		}
	}()
	held = append(held, sorted)
	ranksShape := append(slices.Clone(out), 1)
	ranks, err := s.quantileRanks(sorted, ranksShape)
	if err != nil {
		return nil, err
	}
	held = append([]*Tensor{ranks}, held...)
	long := DTypes["int64"]
	below, err := s.alloc(slices.Clone(ranksShape), long, dev)
	if err != nil {
		return nil, err
	}
	held = append([]*Tensor{below}, held...)
	vals, err := s.Gather(sorted, -1, below)
	if err != nil {
		return nil, err
	}
	if mode == "linear" || mode == "midpoint" {
		if err := s.quantileInterpolate(vals, sorted, ranksShape); err != nil {
			s.dropTensor(vals)
			return nil, err
		}
	}
	y, err := s.view(vals, out, "SqueezeBackward4")
	s.dropTensor(vals)
	if err == nil {
		made(sorted, y)
	}
	return y, err
}

// dimOf is dim, an int64 argument, as an index into x's dimensions
// (checked before).
func dimOf(dim any, x *Tensor) int {
	d, _ := dimIndex(dim.(int64), len(x.Shape))
	return d
}

// lineLast is x.unsqueeze(-1).transpose(d, -1): x with dimension d moved
// last and a 1 in its place, views recorded as autograd does.
func (s *Session) lineLast(x *Tensor, d int) (*Tensor, error) {
	u, err := s.Unsqueeze(x, -1)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(u)
	return s.Run(Ops["transpose"], Args{u, int64(d), int64(-1)})
}

// quantileRanks are quantile's ranks of shape for the sorted values:
// q * last (0-d), isnan of sorted and its any along the line (isnan
// freed), then the masked_fill of the two, the 0-d and the any freed in
// that order (broadcast_tensors' vector of them, destroyed first to
// last).
func (s *Session) quantileRanks(sorted *Tensor, shape []int64) (*Tensor, error) {
	dev := sorted.Device()
	scaled, err := s.alloc(nil, sorted.DType, dev)
	if err != nil {
		return nil, err
	}
	nan, err := s.alloc(slices.Clone(sorted.Shape), boolDType, dev)
	if err != nil {
		s.dropTensor(scaled)
		return nil, err
	}
	found, _, err := s.RunTuple(Ops["any"], Args{nan, int64(-1), true})
	s.dropTensor(nan)
	if err != nil {
		s.dropTensor(scaled)
		return nil, err
	}
	ranks, err := s.alloc(shape, sorted.DType, dev)
	s.dropTensor(scaled)
	s.dropAll(found)
	return ranks, err
}

// quantileInterpolate is linear and midpoint interpolation into vals, the values
// gathered below the ranks: the weights, the int64 ranks above and the
// values gathered there, then lerp_ (LerpBackward1 under autograd,
// saving the weights); the values above, the ranks above and the
// weights freed in that order where no node keeps them.
func (s *Session) quantileInterpolate(vals, sorted *Tensor, shape []int64) error {
	dev := vals.Device()
	ts, err := s.allocAll(dev, tensorShape{shape, vals.DType}, tensorShape{slices.Clone(shape), DTypes["int64"]})
	if err != nil {
		return err
	}
	weights, above := ts[0], ts[1]
	defer s.dropTensor(weights)
	defer s.dropTensor(above)
	end, err := s.Gather(sorted, -1, above)
	if err != nil {
		return err
	}
	defer s.dropTensor(end)
	s.written(vals)
	if s.gradEnabled && (vals.requiresGrad() || end.requiresGrad()) {
		old := vals.fn
		s.record("LerpBackward1", vals, []*Tensor{vals, end, weights}, []*Tensor{weights}, lerpBackward)
		s.replaced(vals, old)
	}
	return nil
}

// lerpBackward is LerpBackward1's backward where the weight needs no
// gradient, in the sorted order of the inputs' names: end's, the
// gradient times the weight; self's, 1 - weight, then the gradient
// times it, the first freed.
func lerpBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	grads := make([]*Tensor, len(n.inputs))
	shape := n.out
	if n.inputs[2].to != nil {
		return grads, NotModelledError("the backward of lerp_ into a weight that requires grad")
	}
	if n.inputs[1].to != nil {
		t, err := s.alloc(slices.Clone(shape), g.DType, g.Device())
		if err != nil {
			return grads, err
		}
		grads[1] = t
	}
	if n.inputs[0].to != nil {
		ts, err := s.allocAll(g.Device(), tensorShape{shape, g.DType}, tensorShape{slices.Clone(shape), g.DType})
		if err != nil {
			s.dropTensor(grads[1])
			return make([]*Tensor, len(n.inputs)), err
		}
		s.dropTensor(ts[0])
		grads[0] = ts[1]
	}
	return grads, nil
}
