package engine

import (
	"fmt"
	"slices"
	"strings"
)

// Reductions whose dim is a list (sum, mean, std, var and norm, as
// PyTorch declares them: int[1]? dim): over every element (None or ()),
// along one dimension, or along several. Several adjacent dimensions of
// a contiguous tensor are one dimension to PyTorch's kernel (its
// TensorIterator coalesces them), so they follow the rule of a
// reduction along their product; dimensions that are not adjacent are
// estimated. Their signatures are PyTorch's: std and var take unbiased
// (positional) and correction (keyword), norm is Tensor.norm(p='fro',
// dim=None, keepdim=False, dtype=None), which PyTorch runs as
// torch.linalg.vector_norm (its node LinalgVectorNormBackward0).

// reduceCall is a reduction's arguments: dims nil for every element;
// correction is std's and var's (1 unless given); p is norm's order.
type reduceCall struct {
	x          *Tensor
	dims       []int64
	keep       bool
	correction float64
	p          float64
}

// params are r's parameters, as PyTorch's signature has them.
func (r reduceOp) params() []Param {
	dim := Param{Name: "dim", Kind: IntParam, Default: "None"}
	if r.dims {
		dim.Kind = DimsParam
	}
	switch r.name {
	case "std", "var":
		return []Param{input, dim, boolParam("unbiased", "True"), keepdim, {Name: "correction", Kind: NumberParam, Default: "None", KeywordOnly: true}}
	case "norm":
		return []Param{input, {Name: "p", Kind: NumberOrStringParam, Default: "'fro'"}, dim, keepdim, {Name: "dtype", Kind: DTypeParam, Default: "None"}}
	}
	return []Param{input, dim, keepdim}
}

// call reads r's arguments a, bound to r.params().
func (r reduceOp) call(a Args) (reduceCall, error) {
	c := reduceCall{x: a.Tensor(0), correction: 1, p: 2}
	at := 1 // dim's position
	switch r.name {
	case "std", "var":
		c.keep = a.Bool(3)
		switch {
		case a[4] != nil:
			c.correction = a.Number(4)
		case !a.Bool(2):
			c.correction = 0
		}
	case "norm":
		at = 2
		c.keep = a.Bool(3)
		switch p := a[1].(type) {
		case string:
			if p != "fro" {
				return c, NotModelledError(fmt.Sprintf("torch.norm with p='%s'", p))
			}
		default:
			c.p = a.Number(1)
		}
		if a[4] != nil {
			return c, NotModelledError("torch.norm with dtype=")
		}
	default:
		c.keep = a.Bool(2)
	}
	if a[at] != nil {
		if r.dims {
			c.dims = a.Ints(at)
		} else {
			c.dims = []int64{a.Int(at)}
		}
	}
	return c, nil
}

// reduceDims is r of c: over every element (no dims, or an empty list),
// along one dimension, or along several.
func (s *Session) reduceDims(r reduceOp, c reduceCall) ([]*Tensor, error) {
	x := c.x
	if r.name == "norm" && c.p != 2 && c.p != 1 && x.Device().CUDA {
		if err := s.estimate(nil, "torch.norm", "%s with p=%v: its kernel and backward taken as the recorded p=2's (the 2-norm's backward makes a temporary of the input's size, a bool of the norm's shape, then the gradient)", argShapes(Args{x}), c.p); err != nil {
			return nil, err
		}
	}
	var outs []*Tensor
	var err error
	switch {
	case len(c.dims) == 0:
		var shape []int64
		if c.keep {
			shape = slices.Repeat([]int64{1}, len(x.Shape))
		}
		var t *Tensor
		t, err = s.reduceAll(r, x, shape)
		outs = []*Tensor{t}
	case len(c.dims) == 1:
		outs, err = s.reduceDim(r, x, c.dims[0], c.keep)
	default:
		outs, err = s.reduceSeveral(r, x, c.dims, c.keep)
	}
	if err == nil && c.p != 2 {
		outs[0].st.vals = nil // the values computed are the 2-norm's
		if c.p == 1 && outs[0].fn != nil {
			outs[0].fn.bw = l1NormBackward
		}
	}
	return outs, err
}

// reduceSeveral is r of x along two or more of its dimensions.
func (s *Session) reduceSeveral(r reduceOp, x *Tensor, dims []int64, keep bool) ([]*Tensor, error) {
	shape, err := reducedShape(x.Shape, dims, keep)
	if err != nil {
		return nil, err
	}
	ds := make([]int, len(dims))
	for i, dim := range dims {
		ds[i], _ = dimIndex(dim, len(x.Shape))
	}
	slices.Sort(ds)
	if len(ds) == len(x.Shape) {
		// every dimension: the kernel of a reduction over every element,
		// autograd's node the one of the dim overload
		all := r
		all.node = r.dimNode
		return wrap(s.reduceAll(all, x, shape))
	}
	names := make([]string, len(dims))
	for i, d := range dims {
		names[i] = fmt.Sprint(d)
	}
	named := "(" + strings.Join(names, ", ") + ")"
	first, last := ds[0], ds[len(ds)-1]
	if last-first == len(ds)-1 {
		merged := slices.Concat(x.Shape[:first], []int64{int64(numel(x.Shape[first : last+1]))}, x.Shape[last+1:])
		geom := &Tensor{Shape: merged, DType: x.DType, st: x.st, offset: x.offset, strided: x.strided, expanded: x.expanded}
		return s.reduceAlong(r, x, geom, first, shape, named)
	}
	var kept, reduced int64 = 1, 1
	for d, n := range x.Shape {
		if slices.Contains(ds, d) {
			reduced *= n
		} else {
			kept *= n
		}
	}
	if x.Device().CUDA {
		if err := s.estimate(nil, "torch."+r.name, "%s along dims %s: a reduction along dimensions that are not adjacent was not recorded; taken as one along an innermost dimension of their %d elements", argShapes(Args{x}), named, reduced); err != nil {
			return nil, err
		}
	}
	geom := &Tensor{Shape: []int64{kept, reduced}, DType: x.DType, st: x.st, offset: x.offset}
	outs, err := s.reduceAlong(r, x, geom, 1, shape, named)
	if err == nil {
		outs[0].st.vals = nil // geom's order is not x's
	}
	return outs, err
}

// wrap is one tensor and its error as a list.
func wrap(t *Tensor, err error) ([]*Tensor, error) {
	if err != nil {
		return nil, err
	}
	return []*Tensor{t}, nil
}
