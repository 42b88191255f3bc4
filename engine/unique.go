package engine

import (
	"slices"
)

// torch.unique and unique_consecutive of the flattened input (dim=None;
// a dim is refused), as PyTorch 2.11's CUDA kernel (UniqueCub) runs
// them. The output keeps the input's count of elements whatever the
// values (PyTorch resizes it down in place), so only its shape depends
// on them: the tool takes that count from the values it knows; where it
// knows none it takes every element as distinct (the largest shape),
// and the estimate says so.
//
// What it makes, in order: a contiguous copy of an input that is not
// contiguous (freed last); unique's sorted copy (unique_consecutive
// reads the input) and CUB's radix sort of the keys, or with
// return_inverse of (key, int64 position) pairs, after an int64 arange
// and the sorted positions (the arange freed after the sort); with
// return_inverse the int64 inverse of the input's shape, then the scan
// of where the sorted values change (into an int64 buffer for unique,
// the inverse itself for unique_consecutive after an int buffer of the
// flags), CUB's scan scratch, the buffer freed; the output, an int64
// length, with return_counts the int64 counts (the input's count),
// CUB's unique or run-length encoding scratch, the length freed; then
// the sorted positions and the sorted copy freed.
//
// testdata/pyrules/ops_census_misc.py and ops_census_more.py recorded
// int64 inputs of 5 elements and of 2^20, and scripts/probe_unique.py
// (testdata/pyrules/unique_probe.txt, TestUniqueProbeTable) every form
// over int64, float32 and int32 inputs of 1 to 2^22 elements around
// the kernels' tiles: CUB's radix sort of one tile takes 1 byte (up to
// 2304 pairs or int64 keys, at least 4609 4-byte keys), past it the
// onesweep sort's scratch (keys alone: tiles of 5760 int64, 6912
// float32, 7296 int32 keys; pairs: onesweepTile); the scan of the
// inverse a 16-byte tile status for each tile of 6144 flags and 32
// more; DeviceSelect's unique the same for tiles of 8448 int64 items
// (cubSelectScratch) or 12501 to 12945 4-byte ones; the run-length
// encoding for tiles of 768 items of any of the three. Other dtypes,
// larger inputs, 4-byte keys alone between one tile and 5759, a 4-byte
// select whose scratch the tile's range leaves open, and bool inputs
// (PyTorch's count of true values) are estimated; so are values the
// tool does not know (the output's count depends on them).

// keysOnlyTiles are the items of a tile of CUB's onesweep radix sort of
// keys alone by dtype on the H200 (unique_probe.txt).
var keysOnlyTiles = map[string]uint64{"int64": keysOnlyTile, "float32": 6912, "int32": 7296}

// keysOneTile is the most keys of size bytes CUB's radix sort of keys
// alone sorts in one tile: 2304 8-byte keys (maxOneTileSort), 4864
// 4-byte ones (its policy's 19 items a thread for 4-byte keys, 9 for
// 8-byte, of 256 threads; unique_probe.txt measured one tile at 4609
// and several at 5759).
func keysOneTile(size uint64) uint64 {
	return 256 * (76 / size)
}

// uniqueProbed is the most elements unique_probe.txt measured.
const uniqueProbed = 1 << 22

// selectTiles4 are the least and most items a tile of DeviceSelect's
// unique of 4-byte items can take, by unique_probe.txt.
var selectTiles4 = [2]uint64{12501, 12945}

// tileStatus is the scratch of a CUB kernel that keeps a 16-byte status
// for each tile of n items and 32 more.
func tileStatus(n, tile uint64) uint64 {
	return cubTemporaries(16 * (ceilDiv(max(n, 1), tile) + 32))
}

func init() {
	params := []Param{input, boolParam("return_inverse", "False"), boolParam("return_counts", "False"), {Name: "dim", Kind: IntParam, Default: "None"}}
	memory := ": the output keeps the input's count of elements (PyTorch resizes it down), its shape the distinct values' count when the tool knows the values, else the input's count (estimated); CUB's scratch; int64 inverse and counts when asked"
	declare(
		&OpDef{Name: "unique", Function: true, Method: true,
			Params: append([]Param{input, boolParam("sorted", "True")}, params[1:]...),
			Memory: "unique values, sorted (a sorted copy and CUB's sort)" + memory,
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

// uniqueValues are op's outputs of x's values vals: the unique values,
// each element's place among them and their counts.
func uniqueValues(vals []float64, consecutive bool) (out, inv, cnt knownValues) {
	sorted := slices.Clone(vals)
	if !consecutive {
		slices.Sort(sorted)
	}
	out = knownValues(slices.Compact(sorted))
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
	return out, inv, cnt
}

// uniqueUnrecorded is why op over x (n elements, values known or not;
// consecutive, inverse and counts as asked) departs from the recorded
// rules, or "".
func uniqueUnrecorded(x *Tensor, n int64, known, consecutive, inverse, counts bool) string {
	size, un := x.DType.Size, uint64(n)
	switch {
	case !x.Device().CUDA:
		return ""
	case x.DType.Name == "bool":
		return "of bools (PyTorch counts the true values)"
	case keysOnlyTiles[x.DType.Name] == 0:
		return "of " + x.DType.Name + " (CUB's kernels for it not recorded)"
	case un > uniqueProbed:
		return "of more elements than CUB's kernels were measured at"
	case size == 4 && !consecutive && !inverse && un > 4609 && un < 5759:
		return "of 4-byte keys between CUB's sort of one tile and of several, as measured"
	case size == 4 && !counts && tileStatus(un, selectTiles4[0]) != tileStatus(un, selectTiles4[1]):
		return "of 4-byte items where DeviceSelect's scratch depends on its tile, not measured exactly"
	case !known:
		return "values unknown: the output's shape taken as every element distinct, the largest it can be"
	}
	return ""
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
		out, inv, cnt = uniqueValues(vals, consecutive)
		distinct = int64(len(out))
	}
	if why := uniqueUnrecorded(x, n, known, consecutive, inverse, counts); why != "" {
		if err := s.estimate(nil, op, "%s: memory rule from PyTorch's kernel, %s", argShapes(Args{x}), why); err != nil {
			return nil, false, err
		}
	}
	dev := x.Device()
	var held []*Tensor // freed when the call returns, the last made first
	defer func() { s.dropAll(held) }()
	keep := func(shape []int64, dt DType) error {
		t, err := s.alloc(slices.Clone(shape), dt, dev)
		if err == nil {
			held = append(held, t)
		}
		return err
	}
	if !x.IsContiguous() {
		if err := keep(x.Shape, x.DType); err != nil {
			return nil, false, err
		}
	}
	var results []*Tensor
	var err error
	switch {
	case n == 0: // empty outputs
		results, err = s.allocAll(dev, tensorShape{[]int64{0}, x.DType}, tensorShape{slices.Clone(x.Shape), DTypes["int64"]}, tensorShape{[]int64{0}, DTypes["int64"]})
	case x.DType.Name == "bool" && !consecutive:
		results, err = s.uniqueBools(x, inverse, &held)
	default:
		results, err = s.uniqueSorted(x, consecutive, inverse, counts, keep)
	}
	if err != nil {
		return nil, false, err
	}
	o := results[0]
	o.Shape = []int64{distinct}
	if known && distinct > 1 {
		o.st.vals = out
	}
	kept := []*Tensor{o}
	for i, asked := range []bool{inverse, counts} {
		t := results[i+1]
		if !asked { // empty: PyTorch's has no storage
			s.dropTensor(t)
			continue
		}
		kept = append(kept, t)
		if i == 1 {
			t.Shape = []int64{distinct}
		}
		if v := []knownValues{inv, cnt}[i]; len(v) > 1 {
			t.st.vals = v
		}
	}
	return kept, len(kept) > 1, nil
}

// uniqueSorted is UniqueCub for a type CUB sorts: the output, the
// inverse and the counts (empty where not asked), made by keep's
// tensors and CUB's kernels as the package comment above says.
func (s *Session) uniqueSorted(x *Tensor, consecutive, inverse, counts bool, keep func([]int64, DType) error) ([]*Tensor, error) {
	n, dev := uint64(x.Numel()), x.Device()
	flat, long := []int64{int64(n)}, DTypes["int64"]
	if !consecutive {
		if err := keep(x.Shape, x.DType); err != nil {
			return nil, err
		}
		scratch := uint64(1)
		var arange *Tensor
		if inverse {
			var err error
			if arange, err = s.alloc(flat, long, dev); err != nil {
				return nil, err
			}
			if err := keep(flat, long); err != nil {
				s.dropTensor(arange)
				return nil, err
			}
			if n > maxOneTileSort {
				scratch = pairsScratch(n, x.DType.Size)
			}
		} else if n > keysOneTile(x.DType.Size) {
			tile := keysOnlyTiles[x.DType.Name]
			if tile == 0 {
				tile = keysOnlyTile
			}
			scratch = onesweepScratch(n, x.DType.Size, x.DType.Size, tile, false)
		}
		err := s.libScratch(dev, "CUB's radix sort", scratch)
		if arange != nil {
			s.dropTensor(arange)
		}
		if err != nil {
			return nil, err
		}
	}
	var made []*Tensor
	fail := func(err error) ([]*Tensor, error) {
		s.dropAll(made)
		return nil, err
	}
	ishape := []int64{0}
	if inverse {
		ishape = slices.Clone(x.Shape)
	}
	inv, err := s.alloc(ishape, long, dev)
	if err != nil {
		return nil, err
	}
	made = append(made, inv)
	if inverse {
		buf := tensorShape{flat, long} // unique scans into a buffer, then scatters it
		if consecutive {
			buf = tensorShape{flat, DTypes["int32"]} // the flags; the scan writes the inverse
		}
		ts, err := s.allocAll(dev, buf)
		if err != nil {
			return fail(err)
		}
		err = s.libScratch(dev, "CUB's scan", tileStatus(n, 6144))
		s.dropAll(ts)
		if err != nil {
			return fail(err)
		}
	}
	o, err := s.alloc(slices.Clone(flat), x.DType, dev)
	if err != nil {
		return fail(err)
	}
	made = append(made, o)
	length, err := s.alloc([]int64{1}, long, dev)
	if err != nil {
		return fail(err)
	}
	defer s.dropTensor(length)
	cshape := []int64{0}
	if counts {
		cshape = flat
	}
	c, err := s.alloc(cshape, long, dev)
	if err != nil {
		return fail(err)
	}
	made = append(made, c)
	scratch := cubSelectScratch(n)
	switch {
	case counts:
		scratch = tileStatus(n, 768)
	case x.DType.Size == 4:
		scratch = tileStatus(n, selectTiles4[0])
	}
	if err := s.libScratch(dev, "CUB's unique", scratch); err != nil {
		return fail(err)
	}
	return []*Tensor{o, inv, c}, nil
}

// uniqueBools is UniqueCub for bools (not consecutive): a 4-byte count
// of the true values (freed last, with held) and CUB's sum's scratch,
// then the output of 2 and the int64 counts of 2, and with
// return_inverse the int64 inverse of the input's shape; returned as
// the output, the inverse and the counts.
func (s *Session) uniqueBools(x *Tensor, inverse bool, held *[]*Tensor) ([]*Tensor, error) {
	dev := x.Device()
	count, err := s.alloc(nil, DTypes["int32"], dev)
	if err != nil {
		return nil, err
	}
	*held = append(*held, count)
	sms, threads := s.gpus[dev.Index].b.grid()
	if err := s.libScratch(dev, "CUB's sum", cubSumScratch(x.Numel(), sms, threads)); err != nil {
		return nil, err
	}
	ishape := []int64{0}
	if inverse {
		ishape = slices.Clone(x.Shape)
	}
	ts, err := s.allocAll(dev, tensorShape{[]int64{2}, boolDType}, tensorShape{[]int64{2}, DTypes["int64"]}, tensorShape{ishape, DTypes["int64"]})
	if err != nil {
		return nil, err
	}
	return []*Tensor{ts[0], ts[2], ts[1]}, nil
}
