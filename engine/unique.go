package engine

import (
	"slices"
)

// torch.unique and unique_consecutive (testdata/pyrules/
// ops_census_misc.py and ops_census_more.py, not yet held to them: their
// steps say "estimated"), of the flattened input (dim=None; a dim is refused).
// PyTorch's CUDA kernel sorts a copy of the input (unique always sorts
// on the GPU; unique_consecutive does not), finds the unique values in
// it and resizes its output down to their count: the output's storage
// keeps the input's element count whatever the values, so only its
// shape depends on them. The tool takes that count from the values it
// knows; where it knows none it takes every element as distinct (the
// largest shape), and the estimate says so.
//
// What it makes: a contiguous copy of an input that is not contiguous;
// the sorted copy (unique only); with return_inverse an int64 arange
// and the sorted positions, CUB's sort of the pairs (keys alone
// without), the arange freed; the output (the input's count of
// elements, its dtype); with return_inverse the int64 inverse of the
// input's shape (its scan's int64 buffer made and freed first); with
// return_counts the int64 counts (the input's count plus one); then the
// sorted copy, the positions and the contiguous copy freed.

func init() {
	params := []Param{input, boolParam("return_inverse", "False"), boolParam("return_counts", "False"), {Name: "dim", Kind: IntParam, Default: "None"}}
	memory := " (estimated: " + recording("ops_census_more.py") + "): the output keeps the input's count of elements (PyTorch resizes it down), its shape the distinct values' count when the tool knows the values, else the input's count; a sorted copy, CUB's sort scratch; int64 inverse and counts when asked"
	declare(
		&OpDef{Name: "unique", Function: true, Method: true,
			Params: append([]Param{input, boolParam("sorted", "True")}, params[1:]...),
			Memory: "unique values, sorted" + memory,
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				return s.unique("torch.unique", a.Tensor(0), false, a.Bool(2), a.Bool(3), a[4])
			}},
		&OpDef{Name: "unique_consecutive", Function: true, Method: true, Params: params,
			Memory: "values unlike the one before" + memory,
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				return s.unique("torch.unique_consecutive", a.Tensor(0), true, a.Bool(1), a.Bool(2), a[3])
			}},
	)
}

// unique is op (torch.unique, or unique_consecutive when consecutive) of
// x: the output, with the inverse and the counts when asked (a tuple
// then).
func (s *Session) unique(op string, x *Tensor, consecutive, inverse, counts bool, dim any) ([]*Tensor, bool, error) {
	if dim != nil {
		return nil, false, NotModelledError(op + " with dim=")
	}
	n := int64(x.Numel())
	vals, known := x.Values()
	distinct := n
	var out, inv, cnt knownValues
	if known {
		sorted := slices.Clone(vals)
		if !consecutive {
			slices.Sort(sorted)
		}
		out = knownValues(slices.Compact(sorted))
		distinct = int64(len(out))
		// each element's place among the unique values, and their counts
		cnt = make(knownValues, len(out))
		j := 0
		for _, v := range vals {
			if consecutive {
				for out[j] != v {
					j++
				}
			} else {
				j, _ = slices.BinarySearch(out, v)
			}
			inv = append(inv, float64(j))
			cnt[j]++
		}
	}
	cause := "the output's shape from the values the tool knows"
	if !known {
		cause = "values unknown: the output's shape taken as every element distinct, the largest it can be"
	}
	if err := s.estimate(nil, op, "%s: memory rule from PyTorch's kernel, %s; %s", argShapes(Args{x}), recording("ops_census_more.py"), cause); err != nil {
		return nil, false, err
	}
	dev, flat := x.Device(), []int64{n}
	var held []*Tensor // freed when the call returns, the last made first
	defer func() { s.dropAll(held) }()
	keep := func(shape []int64, dt DType) (*Tensor, error) {
		t, err := s.alloc(slices.Clone(shape), dt, dev)
		if err == nil {
			held = append(held, t)
		}
		return t, err
	}
	if !x.IsContiguous() {
		if _, err := keep(x.Shape, x.DType); err != nil {
			return nil, false, err
		}
	}
	if !consecutive {
		if _, err := keep(flat, x.DType); err != nil {
			return nil, false, err
		}
		scratch := onesweepScratch(uint64(n), x.DType.Size, x.DType.Size, keysOnlyTile, false)
		if inverse {
			ts, err := s.allocAll(dev, tensorShape{flat, DTypes["int64"]}, tensorShape{slices.Clone(flat), DTypes["int64"]})
			if err != nil {
				return nil, false, err
			}
			held = append(held, ts[1])
			defer s.dropTensor(ts[0])
			scratch = pairsScratch(uint64(n), x.DType.Size)
		}
		if dev.CUDA && n > 0 {
			if err := s.libScratch(dev, "CUB's radix sort", scratch); err != nil {
				return nil, false, err
			}
		}
	}
	var results []*Tensor
	fail := func(err error) ([]*Tensor, bool, error) {
		s.dropAll(results)
		return nil, false, err
	}
	o, err := s.alloc(slices.Clone(flat), x.DType, dev)
	if err != nil {
		return fail(err)
	}
	o.Shape = []int64{distinct}
	if known && distinct > 1 {
		o.st.vals = out
	}
	results = append(results, o)
	if inverse {
		ts, err := s.allocAll(dev, tensorShape{flat, DTypes["int64"]}, tensorShape{slices.Clone(x.Shape), DTypes["int64"]})
		if err != nil {
			return fail(err)
		}
		s.dropTensor(ts[0])
		if len(inv) > 1 {
			ts[1].st.vals = inv
		}
		results = append(results, ts[1])
	}
	if counts {
		c, err := s.alloc([]int64{n + 1}, DTypes["int64"], dev)
		if err != nil {
			return fail(err)
		}
		c.Shape = []int64{distinct}
		if len(cnt) > 1 {
			c.st.vals = cnt
		}
		results = append(results, c)
	}
	return results, len(results) > 1, nil
}
