package engine

import (
	"slices"
	"sort"
)

// kthvalue, median and mode along a dimension (testdata/pyrules/
// ops_structseq.py, ops_sort.py): the values, then their int64 indices,
// nothing else; torch.return_types structseqs. Their nodes save the
// indices; backward makes the input's gradient, one tensor. topk
// (topk.go) and sort (sort.go) are their own.

// selectAlong is op (kthvalue, median, mode) of x along dimension dim:
// values and indices; vals, when x's values are known, the values of
// each line (nil: not computed).
func (s *Session) selectAlong(op string, x *Tensor, dim int64, keep bool, pick func(line []float64) float64) ([]*Tensor, error) {
	d, err := dimIndex(dim, len(x.Shape))
	if err != nil {
		return nil, err
	}
	shape := slices.Clone(x.Shape)
	if len(shape) > 0 {
		if keep {
			shape[d] = 1
		} else {
			shape = slices.Delete(shape, d, d+1)
		}
	}
	outs, err := s.allocAll(x.Device(), tensorShape{shape, x.DType}, tensorShape{shape, DTypes["int64"]})
	if err != nil {
		return nil, err
	}
	if pick != nil && len(x.Shape) > 0 {
		outs[0].st.vals = lineValues(x, d, pick, x.DType)
	}
	node := map[string]string{"kthvalue": "KthvalueBackward0", "median": "MedianBackward1", "mode": "ModeBackward0"}[op]
	s.record(node, outs[0], []*Tensor{x}, outs[1:], likeInput(1))
	return outs, nil
}

// lineValues are pick of each line of x along dimension d, when x's
// values are known.
func lineValues(x *Tensor, d int, pick func([]float64) float64, out DType) knownValues {
	xs, ok := x.Values()
	if !ok || len(xs) == 0 || len(xs) > maxKnownValues {
		return nil
	}
	outer, n, inner := int(numel(x.Shape[:d])), int(x.Shape[d]), int(numel(x.Shape[d+1:]))
	var vals knownValues
	line := make([]float64, n)
	for o := range outer {
		for i := range inner {
			for k := range n {
				line[k] = xs[(o*n+k)*inner+i]
			}
			vals = append(vals, pick(slices.Clone(line)))
		}
	}
	return convertValues(vals, out)
}

// kthSmallest is the k-th smallest of line (k from 1).
func kthSmallest(line []float64, k int) float64 {
	sort.Float64s(line)
	return line[k-1]
}

func init() {
	dim := Param{Name: "dim", Kind: IntParam, Default: "-1"}
	memory := "values, then int64 indices, along dim; nothing else; saves the indices; backward makes one tensor of the input's shape"
	declare(
		&OpDef{Name: "kthvalue", Function: true, Method: true, ReturnType: "kthvalue",
			Params: []Param{input, {Name: "k", Kind: IntParam}, dim, keepdim}, Memory: memory,
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				x, k := a.Tensor(0), int(a.Int(1))
				d, err := dimIndex(a.Int(2), len(x.Shape))
				if err != nil {
					return nil, false, err
				}
				if n := 1; len(x.Shape) > 0 && (k < 1 || k > int(x.Shape[d])) || len(x.Shape) == 0 && k != n {
					return nil, false, Errorf(IndexError, "kthvalue(): selected number k out of range for dimension %d", d)
				}
				outs, err := s.selectAlong("kthvalue", x, a.Int(2), a.Bool(3), func(l []float64) float64 { return kthSmallest(l, k) })
				return outs, true, err
			}},
		&OpDef{Name: "median", Function: true, Method: true, ReturnType: "median",
			Params: []Param{input, {Name: "dim", Kind: IntParam, Default: "None"}, keepdim},
			Memory: "along dim: " + memory + "; over every element: sort of the flattened input (the indices freed), a 0-d bool and the 0-d median, the sorted values freed; saves input and result",
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				if a[1] == nil {
					m, err := s.medianAll(a.Tensor(0))
					return []*Tensor{m}, false, err
				}
				outs, err := s.selectAlong("median", a.Tensor(0), a.Int(1), a.Bool(2), func(l []float64) float64 { return kthSmallest(l, (len(l)+1)/2) })
				return outs, true, err
			}},
		&OpDef{Name: "mode", Function: true, Method: true, ReturnType: "mode",
			Params: []Param{input, dim, keepdim}, Memory: memory,
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				outs, err := s.selectAlong("mode", a.Tensor(0), a.Int(1), a.Bool(2), nil)
				return outs, true, err
			}},
	)
}
