package engine

import (
	"slices"
)

// Tensor.repeat, tile and repeat_interleave (testdata/pyrules/
// ops_repeat_shape.py, held statement by statement by
// TestRecordedStatements; repeat_interleave by a tensor of counts,
// pyrules/ops_repeat_more.py, its cases beside the recorded one
// estimated: interleaveIndices). PyTorch's repeat makes the output and copies the input,
// expanded, into a view of it: one tensor. Its backward (RepeatBackward0:
// the gradient summed over the repeats, repeatBackward) is modelled
// where the sums are reductions whose buffers are recorded rules. repeat_interleave by an int is PyTorch's
// composite of recorded ops (unsqueeze, expand, a contiguous clone,
// flatten): one tensor, its backward expand's sum; by a tensor of counts
// it is index_select by repeat_interleave(counts), whose size is the
// counts' sum: known when the tool knows their values or output_size
// is given, else refused.

func init() {
	declare(
		&OpDef{Name: "repeat", Method: true, Params: []Param{input, {Name: "repeats", Kind: DimsParam}}, Usage: "Tensor.repeat(*repeats)",
			Memory: "one tensor of the repeated shape; backward sums the gradient over the repeats (a new tensor of the input's shape)",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.repeat(a.Tensor(0), a.Ints(1)) }},
		&OpDef{Name: "tile", Function: true, Method: true, Params: []Param{input, {Name: "dims", Kind: DimsParam}},
			Memory: "repeat, with leading 1s for dimensions dims lacks",
			run: func(s *Session, a Args) (*Tensor, error) {
				x, dims := a.Tensor(0), a.Ints(1)
				for len(dims) < len(x.Shape) {
					dims = append([]int64{1}, dims...)
				}
				return s.repeat(x, dims)
			}},
		&OpDef{Name: "repeat_interleave", Function: true, Method: true,
			Params: []Param{input, {Name: "repeats", Kind: OperandParam, Default: "None"}, {Name: "dim", Kind: IntParam, Default: "None"},
				{Name: "output_size", Kind: IntParam, Default: "None", KeywordOnly: true}},
			Memory: "by an int: one tensor (unsqueeze, expand, a contiguous clone), backward expand's sum; by a tensor of counts: their int64 cumsum, CUB's scan scratch, the check that none is negative (a bool tensor and a bool, freed), the indices, the cumsum freed, then index_select's output and the indices freed; the output's size is the counts' sum, refused when their values are not known and output_size is not given",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.repeatInterleave(a.Tensor(0), a.Tensor(1), a[2], a[3])
			}},
	)
}

// repeatInterleave is torch.repeat_interleave(x, repeats, dim,
// output_size=size); repeats nil is torch.repeat_interleave(counts).
func (s *Session) repeatInterleave(x, repeats *Tensor, dim, size any) (*Tensor, error) {
	if repeats == nil {
		if len(x.Shape) > 1 {
			return nil, Errorf(RuntimeError, "repeats must be 0-dim or 1-dim tensor")
		}
		return s.interleaveIndices(x, int64(x.Numel()), size)
	}
	in := share(x)
	if dim == nil {
		flat, err := s.Flatten(x, 0, -1)
		s.dropTensor(in)
		if err != nil {
			return nil, err
		}
		in, dim = flat, int64(0)
	}
	defer s.dropTensor(in)
	d, err := dimIndex(dim.(int64), len(in.Shape))
	if err != nil {
		return nil, err
	}
	if len(in.Shape) == 0 {
		return nil, NotModelledError("torch.repeat_interleave of a 0-d tensor along a dimension")
	}
	if !repeats.number {
		switch {
		case len(repeats.Shape) > 1:
			return nil, Errorf(RuntimeError, "repeats must be 0-dim or 1-dim tensor")
		case repeats.Numel() != 1 && int64(repeats.Numel()) != in.Shape[d]:
			return nil, Errorf(RuntimeError, "repeats must have the same size as input along dim, but got repeats.size(0) = %d and input.size(%d) = %d", repeats.Numel(), d, in.Shape[d])
		}
		idx, err := s.interleaveIndices(repeats, in.Shape[d], size)
		if err != nil {
			return nil, err
		}
		defer s.dropTensor(idx)
		return s.IndexSelect(in, int64(d), idx)
	}
	n := int64(repeats.num)
	if n < 0 {
		return nil, Errorf(RuntimeError, "Repeats must be non-negative")
	}
	if size != nil && size.(int64) != n*in.Shape[d] {
		return nil, Errorf(RuntimeError, "repeat_interleave: Invalid output_size, expected %d but got %d", n*in.Shape[d], size.(int64))
	}
	u, err := s.Unsqueeze(in, int64(d+1))
	if err != nil {
		return nil, err
	}
	shape := slices.Clone(u.Shape)
	shape[d+1] = n
	e, err := s.Expand(u, shape)
	s.dropTensor(u)
	if err != nil {
		return nil, err
	}
	c, err := s.Contiguous(e)
	s.dropTensor(e)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(c)
	return s.Flatten(c, int64(d), int64(d+1))
}

// interleaveIndices is torch.repeat_interleave(counts) over n counts
// (one count is expanded to n), PyTorch's repeat_interleave_common: each
// index repeated its count of times, in the counts' dtype. It makes the
// counts' int64 cumsum (on the GPU int32 counts copied as int64 first
// and CUB's scan scratch, made and freed); without output_size, the total read from it and the check
// that no count is negative, (counts >= 0).all() (a bool tensor of n, a
// bool, the reduction's buffer across blocks; freed newest first); then
// the indices, and frees the cumsum. Its size is the counts' sum, or
// output_size.
//
// ops_repeat_more.py recorded n int64 counts on the GPU without
// output_size, scripts/probe_unique.py (testdata/pyrules/
// unique_probe.txt) int64 and int32 ones from 1 to 2^22 (int32 counts
// copied as int64 for the scan); one count expanded (the scan copies it
// dense), counts not contiguous (copied first) and given output_size
// follow PyTorch's source and are estimated on the GPU.
func (s *Session) interleaveIndices(counts *Tensor, n int64, size any) (*Tensor, error) {
	if why := interleaveUnrecorded(counts, n, size); why != "" {
		if err := s.estimate(nil, "torch.repeat_interleave", "%s by a tensor of counts (%s): memory rule from PyTorch's formula, not recorded on the GPU", argShapes(Args{counts}), why); err != nil {
			return nil, err
		}
	}
	var total int64
	var idx knownValues
	vals, known := counts.Values()
	if size != nil {
		total = size.(int64)
	} else {
		if !known {
			return nil, NotModelledError("torch.repeat_interleave by a tensor of counts whose values the tool does not know, without output_size= (the output's size is their sum)")
		}
		for _, v := range vals {
			if v < 0 {
				return nil, Errorf(RuntimeError, "repeats can not be negative")
			}
			total += int64(v)
		}
		if len(vals) == 1 {
			total *= n
		}
		if total <= 1<<20 {
			for i := range n {
				idx = append(idx, slices.Repeat([]float64{float64(i)}, int(vals[min(int(i), len(vals)-1)]))...)
			}
		}
	}
	dt := counts.DType
	if dt.Name != "int32" {
		dt = DTypes["int64"]
	}
	dev := counts.Device()
	if n == 0 {
		return s.alloc([]int64{0}, dt, dev)
	}
	cumsum, err := s.alloc([]int64{n}, DTypes["int64"], dev)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(cumsum)
	if dev.CUDA {
		if err := s.int64Scan(counts, n); err != nil {
			return nil, err
		}
	}
	if size == nil {
		if err := s.nonNegativeCheck(dev, n); err != nil {
			return nil, err
		}
	}
	out, err := s.alloc([]int64{total}, dt, dev)
	if err != nil {
		return nil, err
	}
	if len(idx) > 1 {
		out.st.vals = idx
	}
	return out, nil
}

// int64Scan is the GPU cumsum of n counts into int64, after its output:
// int32 counts copied as int64 first (freed after), then CUB's scan
// scratch.
func (s *Session) int64Scan(counts *Tensor, n int64) error {
	if counts.DType.Name == "int64" {
		return s.libScratch(counts.Device(), "CUB's scan", int64ScanScratch(uint64(n)))
	}
	wide, err := s.alloc([]int64{n}, DTypes["int64"], counts.Device())
	if err != nil {
		return err
	}
	defer s.dropTensor(wide)
	return s.libScratch(counts.Device(), "CUB's scan", int64ScanScratch(uint64(n)))
}

// interleaveUnrecorded is why repeat_interleave_common over counts, n of
// them, and output_size size departs from what ops_repeat_more.py
// recorded, or "".
func interleaveUnrecorded(counts *Tensor, n int64, size any) string {
	switch {
	case !counts.Device().CUDA:
		return ""
	case counts.DType.Name != "int64" && counts.DType.Name != "int32":
		return "of " + counts.DType.Name
	case int64(counts.Numel()) != n:
		return "one count expanded"
	case !counts.IsContiguous():
		return "not contiguous"
	case uint64(n) > scanDTypesProbed:
		return "more than CUB's scan was measured at"
	case size != nil:
		return "with output_size"
	}
	return ""
}

// nonNegativeCheck is (counts >= 0).all() over n counts on dev, as
// PyTorch checks them: the comparison's bool tensor, all's bool and its
// buffer across blocks, all freed newest first.
func (s *Session) nonNegativeCheck(dev Device, n int64) error {
	ts, err := s.allocAll(dev, tensorShape{[]int64{n}, boolDType}, tensorShape{nil, boolDType})
	if err != nil {
		return err
	}
	defer s.dropAll(ts)
	return s.reductionTemps(ts[0], elem(boolDType))
}

// repeat is x.repeat(repeats).
func (s *Session) repeat(x *Tensor, repeats []int64) (*Tensor, error) {
	if len(repeats) < len(x.Shape) {
		return nil, Errorf(RuntimeError, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
	}
	shape := slices.Clone(repeats)
	lead := len(repeats) - len(x.Shape)
	for i, n := range x.Shape {
		shape[lead+i] *= n
	}
	if err := checkSize(shape, x.DType.Size); err != nil {
		return nil, err
	}
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	s.record("RepeatBackward0", out, []*Tensor{x}, nil, repeatBackward(slices.Clone(repeats)))
	return out, nil
}

// repeatBackward is RepeatBackward0 (PyTorch's repeat_backward): the
// gradient summed over each leading dimension the repeats added
// (sum(0), one at a time, each a new tensor, the previous freed), then,
// where a dimension of the input was repeated, viewed with that
// dimension split into (repeat, size) and summed over the repeats, a
// new tensor of the input's shape. The sums' buffers across blocks are
// the reductions' rules (an outer dimension reduced, or every element),
// taken as for a contiguous gradient where it is an expanded one
// (sum()'s, which views as any shape); a sum over other dimensions, or
// of a strided gradient, is refused.
func repeatBackward(repeats []int64) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		in := n.inputs[0].shape
		if g.strided {
			return []*Tensor{nil}, NotModelledError("the backward of Tensor.repeat of a gradient that is not contiguous")
		}
		lead := len(repeats) - len(in)
		cur, own := g, false
		drop := func() {
			if own {
				s.dropTensor(cur)
			}
		}
		for range lead {
			r, err := s.alloc(cur.Shape[1:], cur.DType, cur.Device())
			if err == nil {
				err = s.sumRowsTemps(cur, cur.Shape[0])
			}
			if err != nil {
				if r != nil {
					s.dropTensor(r)
				}
				drop()
				return []*Tensor{nil}, err
			}
			drop()
			cur, own = r, true
		}
		var summed []int
		for i, r := range repeats[lead:] {
			if r != 1 {
				summed = append(summed, i)
			}
		}
		if len(summed) == 0 {
			if !own {
				cur = share(cur)
			}
			return []*Tensor{cur}, nil
		}
		r, err := s.alloc(in, cur.DType, cur.Device())
		if err == nil {
			switch {
			case numel(in) == 1:
				err = s.reductionTemps(cur, opmath(cur.DType))
			case len(summed) == 1 && summed[0] == 0:
				err = s.sumRowsTemps(cur, repeats[lead])
			default:
				err = NotModelledError("the backward of Tensor.repeat over an inner dimension")
			}
		}
		drop()
		if err != nil {
			if r != nil {
				s.dropTensor(r)
			}
			return []*Tensor{nil}, err
		}
		return []*Tensor{r}, nil
	}
}

// sumRowsTemps allocates and frees what summing a contiguous tensor,
// viewed as rows of its leading elements, over its rows takes: the
// outer reduction's buffer across blocks, when it splits them.
func (s *Session) sumRowsTemps(t *Tensor, rows int64) error {
	v := &Tensor{Shape: []int64{rows, int64(t.Numel()) / rows}, DType: t.DType, st: t.st, offset: t.offset}
	return s.outerReductionTemps(v, []int{0}, opmath(t.DType))
}
