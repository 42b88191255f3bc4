package engine

import (
	"math/bits"
	"slices"
	"sort"
)

// sort, argsort and median over every element (testdata/pyrules/
// ops_sort.py, ops_sort_large.py; the table of scripts/probe_sort.py in
// testdata/pyrules/sort_probe.txt). PyTorch 2.11's sort on a GPU makes
// the values, then the int64 indices, laid out as a dense input, then:
//
//   - a dimension of at most 4096: an arange of its length (int64),
//     freed; the sort runs in place;
//   - a longer one: the input copied with the dimension innermost, where
//     it is not so already, and values and indices to sort into where
//     theirs are laid out otherwise (freed last: indices, values, input);
//     then one segment, or segments of a million or more, each a CUB
//     radix sort of (key, int64 index) pairs after an arange of the
//     segment's length; under 128 segments one radix sort of every pair
//     (two int64 buffers, the keys' output, its scratch) and a sort of
//     the segment numbers (keys only); 128 or more, a reverse-index
//     buffer and CUB's segmented radix sort.
//
// Its node, SortBackward0, saves the indices; backward makes the input's
// gradient (zeros and a scatter): one tensor.

// smallSort is the longest dimension sorted in place.
const smallSort = 4096

// onesweepTile is CUB's onesweep radix sort's tile, in items, by key
// size, for int64 values, on the H200 (sort_probe.txt: 1-byte keys
// 3456, 2-byte 5632, 4-byte 5376, 8-byte 4608); keysOnlyTile the same
// for int64 keys alone.
var onesweepTile = map[uint64]uint64{1: 3456, 2: 5632, 4: 5376, 8: 4608}

const keysOnlyTile = 5760

// onesweepScratch is CUB's DeviceRadixSort scratch for n keys of
// keySize bytes (their bits, 8 a pass, in passes passes) with int64
// values (pairs) or without, a tile of tile items: per portion of under
// 2^28 items, the passes' 256 8-byte bins and 8-byte counters; a
// 256-digit 4-byte lookback for each block of the largest portion; with
// more than one pass, a second buffer of keys and one of values.
func onesweepScratch(n, keySize, passes, tile uint64, pairs bool) uint64 {
	portion := (1<<28 - 1) / tile * tile
	portions := ceilDiv(n, portion)
	var keys, values uint64
	if passes > 1 {
		keys = n * keySize
		if pairs {
			values = n * 8
		}
	}
	return cubTemporaries(portions*passes*256*8, ceilDiv(min(n, portion), tile)*256*4, keys, values, portions*passes*8)
}

// pairsScratch is radix_sort_pairs' scratch for n keys of keySize bytes
// with int64 values.
func pairsScratch(n, keySize uint64) uint64 {
	return onesweepScratch(n, keySize, keySize, onesweepTile[keySize], true)
}

// sortOutputs are sort's values and indices of x, laid out as x when x
// is dense (sortedByLayout).
func (s *Session) sortOutputs(x *Tensor, shape []int64) ([]*Tensor, error) {
	outs, err := s.allocAll(x.Device(), tensorShape{shape, x.DType}, tensorShape{shape, DTypes["int64"]})
	if err != nil {
		return nil, err
	}
	if denseTensor(x) && slices.Equal(shape, x.Shape) {
		layOut(outs[0], x)
		layOut(outs[1], x)
	}
	return outs, nil
}

// denseTensor reports whether t's elements cover a range of its
// storage once each (not expanded, no gaps).
func denseTensor(t *Tensor) bool { return !t.expanded && dense(t.Shape, t.Strides()) }

// Sort is x.sort(dim, descending, stable): values and int64 indices, and
// the GPU temporaries of PyTorch's kernels (the package comment above).
func (s *Session) Sort(x *Tensor, dim int64, desc bool) ([]*Tensor, error) {
	d, err := dimIndex(dim, len(x.Shape))
	if err != nil {
		return nil, err
	}
	if len(x.Shape) == 0 || x.DType.Name == "bool" || x.Numel() > 1<<31-1 {
		return nil, NotModelledError("torch.sort of a 0-d or bool tensor, or of more than 2^31-1 elements")
	}
	if s.gradEnabled && x.requiresGrad() && !isFloat(x.DType) {
		return nil, Errorf(RuntimeError, "only Tensors of floating point dtype can require gradients")
	}
	outs, err := s.sortOutputs(x, x.Shape)
	if err != nil {
		return nil, err
	}
	if err := s.sortTemps(x, d); err != nil {
		s.dropAll(outs)
		return nil, err
	}
	outs[0].st.vals, outs[1].st.vals = orderValues(x, d, desc, 0)
	s.record("SortBackward0", outs[0], []*Tensor{x}, outs[1:], likeInput(1))
	return outs, nil
}

// sortTemps makes and frees what sort of x along dimension d takes
// beside its outputs.
func (s *Session) sortTemps(x *Tensor, d int) error {
	dev := x.Device()
	nsort := uint64(x.Shape[d])
	if !dev.CUDA || x.Numel() == 0 {
		return nil
	}
	if nsort <= smallSort {
		return s.scratch(dev, 8*nsort)
	}
	n, key := x.Numel(), x.DType.Size
	var copies []*Tensor // the input dense with d innermost, then values and indices to sort into
	defer func() { s.dropAll(copies) }()
	var want []tensorShape
	switch st := x.Strides(); {
	case denseTensor(x) && st[d] == 1:
	case denseTensor(x): // its values and indices are laid out as it, not as the copy
		want = []tensorShape{{x.Shape, x.DType}, {x.Shape, x.DType}, {x.Shape, DTypes["int64"]}}
	case d == len(st)-1 && slices.IsSortedFunc(st, func(a, b int64) int { return int(b - a) }):
		want = []tensorShape{{x.Shape, x.DType}} // a slice: copied contiguous, as its outputs are
	default:
		return NotModelledError("torch.sort along a dimension longer than 4096 of this layout")
	}
	if len(want) > 0 {
		ts, err := s.allocAll(dev, want...)
		if err != nil {
			return err
		}
		copies = ts
	}
	segments := n / nsort
	switch {
	case segments == 1 || nsort >= 1000000:
		iota, err := s.newStorage(dev, 8*nsort, false)
		if err != nil {
			return err
		}
		defer s.release(iota)
		for range segments {
			if err := s.libScratch(dev, "CUB's radix sort", pairsScratch(nsort, key)); err != nil {
				return err
			}
		}
	case segments < 128:
		ts, err := s.allocAll(dev, tensorShape{[]int64{int64(n)}, DTypes["int64"]}, tensorShape{[]int64{int64(n)}, DTypes["int64"]}, tensorShape{[]int64{int64(n)}, x.DType})
		if err != nil {
			return err
		}
		defer s.dropAll(ts[:2])
		err = s.libScratch(dev, "CUB's radix sort", pairsScratch(n, key))
		s.dropTensor(ts[2])
		if err != nil {
			return err
		}
		segmentBits := max(1, uint64(bits.Len64(segments-1)))
		return s.libScratch(dev, "CUB's radix sort", onesweepScratch(n, 8, ceilDiv(segmentBits, 8), keysOnlyTile, false))
	default:
		reverse, err := s.newStorage(dev, 8*n, false)
		if err != nil {
			return err
		}
		defer s.release(reverse)
		return s.libScratch(dev, "CUB's segmented sort", cubTemporaries(n*key, n*8))
	}
	return nil
}

// orderValues are x's values along d reordered ascending (descending
// when desc), the first k of each line (all when k is 0), with their
// indices, when x's values are known; ties keep their order.
func orderValues(x *Tensor, d int, desc bool, k int) (vals, indices knownValues) {
	xs, ok := x.Values()
	if !ok || len(xs) == 0 || len(xs) > maxKnownValues {
		return nil, nil
	}
	outer, n, inner := int(numel(x.Shape[:d])), int(x.Shape[d]), int(numel(x.Shape[d+1:]))
	if k == 0 {
		k = n
	}
	vals, indices = make(knownValues, outer*k*inner), make(knownValues, outer*k*inner)
	order := make([]int, n)
	for o := range outer {
		for i := range inner {
			at := func(j int) float64 { return xs[(o*n+j)*inner+i] }
			for j := range order {
				order[j] = j
			}
			sort.SliceStable(order, func(a, b int) bool {
				if desc {
					return at(order[a]) > at(order[b])
				}
				return at(order[a]) < at(order[b])
			})
			for j := range k {
				vals[(o*k+j)*inner+i], indices[(o*k+j)*inner+i] = at(order[j]), float64(order[j])
			}
		}
	}
	return vals, indices
}

// medianAll is x.median(): the flattened input sorted (its indices freed
// at once), then where(sorted[-1].isnan(), sorted[-1], sorted[(n-1)/2]):
// a 0-d bool and the 0-d median, the bool and the sorted values freed.
// MedianBackward0 saves input and result.
func (s *Session) medianAll(x *Tensor) (*Tensor, error) {
	n := x.Numel()
	if n == 0 || !x.IsContiguous() {
		return nil, NotModelledError("torch.median over every element of an empty or non-contiguous tensor")
	}
	flat := &Tensor{Shape: []int64{int64(n)}, DType: x.DType, st: x.st, offset: x.offset}
	sorted, err := s.Sort(flat, 0, false)
	if err != nil {
		return nil, err
	}
	s.dropTensor(sorted[1])
	defer s.dropTensor(sorted[0])
	ts, err := s.allocAll(x.Device(), tensorShape{nil, boolDType}, tensorShape{nil, x.DType})
	if err != nil {
		return nil, err
	}
	s.dropTensor(ts[0])
	if vals := sorted[0].st.vals; vals != nil {
		ts[1].st.vals = knownValues{vals[(n-1)/2]}
	}
	s.record("MedianBackward0", ts[1], []*Tensor{x}, []*Tensor{x, ts[1]}, medianBackward)
	return ts[1], nil
}

// medianBackward is evenly_distribute_backward(grad, self, result) on a
// GPU: self.isnan() and result.isnan() (a bool of the input's shape, a
// 0-d bool), mask = self == result (a bool of the input's shape),
// mask.sum() (0-d int64; the mask cast to int64 first, and the sum's
// buffers), grad / it (0-d) and mask * that, the gradient; all but it
// freed newest first (testdata/pyrules/ops_sort.py, 4096 elements;
// ops_sort_large.py, 2^20).
func medianBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	in, dev := n.inputs[0].shape, g.Device()
	i64 := DTypes["int64"]
	ts, err := s.allocAll(dev, tensorShape{in, boolDType}, tensorShape{nil, boolDType}, tensorShape{in, boolDType}, tensorShape{nil, i64}, tensorShape{in, i64})
	if err != nil {
		return []*Tensor{nil}, err
	}
	defer s.dropAll(ts[:4])
	err = s.reductionTemps(&Tensor{Shape: in, DType: i64, st: ts[4].st}, 8)
	s.dropTensor(ts[4])
	if err != nil {
		return []*Tensor{nil}, err
	}
	q, err := s.allocAll(dev, tensorShape{nil, g.DType}, tensorShape{in, g.DType})
	if err != nil {
		return []*Tensor{nil}, err
	}
	s.dropTensor(q[0])
	return q[1:], nil
}

func init() {
	dim := Param{Name: "dim", Kind: IntParam, Default: "-1"}
	descending := Param{Name: "descending", Kind: BoolParam, Default: "False"}
	stable := Param{Name: "stable", Kind: BoolParam, Default: "False", KeywordOnly: true}
	memory := "values, then int64 indices; up to 4096 along dim an arange of that length, freed; longer: CUB's radix sort and its buffers (by segments, key size and layout), freed"
	declare(&OpDef{Name: "sort", Function: true, Method: true, ReturnType: "sort", Params: []Param{input, dim, descending, stable},
		Memory: memory + "; saves the indices; backward makes one tensor of the input's shape",
		runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
			outs, err := s.Sort(a.Tensor(0), a.Int(1), a.Bool(2))
			return outs, true, err
		}},
		&OpDef{Name: "argsort", Function: true, Method: true, Params: []Param{input, dim, descending, {Name: "stable", Kind: BoolParam, Default: "False"}},
			Memory: "sort, then its values freed: " + memory,
			run: func(s *Session, a Args) (*Tensor, error) {
				outs, err := s.Sort(s.Detach(a.Tensor(0)), a.Int(1), a.Bool(2))
				if err != nil {
					return nil, err
				}
				s.dropTensor(outs[0])
				return outs[1], nil
			}})
}
