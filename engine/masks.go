package engine

import (
	"errors"
	"math"
	"slices"
)

// Ops whose output's size is a count of true (nonzero) values:
// torch.nonzero and argwhere, indexing by a bool mask, masked_select
// (testdata/pyrules/ops_mask.py, scripts/probe_sort.py's table in
// testdata/pyrules/sort_probe.txt). The tool computes them when it
// knows the mask's values, and otherwise says the size depends on values
// it does not compute.
//
// PyTorch's nonzero on a GPU (Nonzero.cu): a 4-byte count per chunk of
// 2^30 elements, CUB's DeviceReduce::Sum of the nonzero flags with its
// scratch (made and freed), a copy of the count to the host (a sync),
// the int64 output [count, ndim], CUB's DeviceSelect::Flagged with its
// scratch (made and freed), then the count freed.

// nonzeroChunk is the most elements one CUB call of nonzero takes.
const nonzeroChunk = 1 << 30

// cubTemporaries is what CUB asks for to hold allocations of sizes:
// each rounded up to 256 bytes, and 255 more to align the first
// (AliasTemporaries).
func cubTemporaries(sizes ...uint64) uint64 {
	var n uint64
	for _, s := range sizes {
		n += ceilDiv(s, 256) * 256
	}
	return n + 255
}

// cubSumScratch is DeviceReduce::Sum's scratch for n flags counted into
// an int: 1 byte when one tile of 4096 holds them, else a partial sum of
// 4 bytes for each block of its even share, 5 waves of as many 256-thread
// blocks as the GPU runs at once.
func cubSumScratch(n uint64, sms, threadsPerSM int) uint64 {
	if n <= 4096 {
		return 1
	}
	return cubTemporaries(4 * uint64(sms*threadsPerSM/256*5))
}

// cubSelectScratch is DeviceSelect::Flagged's scratch for n items: a
// 16-byte tile status for each tile of selectTile items and 32 more.
func cubSelectScratch(n uint64) uint64 {
	return cubTemporaries(16 * (ceilDiv(max(n, 1), selectTile) + 32))
}

// selectTile is the items one tile of DeviceSelect takes on the H200.
const selectTile = 8448

// valueSizedError is the error for an op whose output's size depends on
// values the tool does not know: a NotImplementedError.
type valueSizedError struct{ err error }

func (e valueSizedError) Error() string { return e.err.Error() }
func (e valueSizedError) Unwrap() error { return e.err }

// errValueSized is op's valueSizedError.
func errValueSized(op string) error {
	return valueSizedError{NotModelledError("the size of " + op + "'s output, which depends on values the tool does not compute,")}
}

// Nonzero is torch.nonzero(x): the int64 indices [count, ndim] of x's
// nonzero elements, which the tool computes from x's known values.
// Where the values are not known but the share of them that is nonzero
// is (a view of a one-hot mask: moe_train.py's expert mask), the count
// is that share of x's elements, an estimate, and a strided x is copied
// dense first, as PyTorch's kernel reads it.
func (s *Session) Nonzero(x *Tensor) (*Tensor, error) { return s.nonzeroAs("torch.nonzero", x) }

// nonzeroAs is Nonzero called as op (torch.where of a condition alone).
func (s *Session) nonzeroAs(op string, x *Tensor) (*Tensor, error) {
	vals, ok := x.Values()
	if ok {
		return s.nonzero(x.Device(), x.Shape, vals, false)
	}
	if x.number || x.st.share == 0 {
		return nil, errValueSized(op)
	}
	count := int64(math.Round(x.st.share * float64(x.Numel())))
	if err := s.estimate(errValueSized(op), op, "%s %s: its count depends on values the tool does not know; taken as %d, the mean of a one-hot mask's (1 in %d of its elements)", dimList(x.Shape), x.DType.Name, count, int64(math.Round(1/x.st.share))); err != nil {
		return nil, err
	}
	var dense uint64
	if !x.IsContiguous() {
		dense = x.Numel() * x.DType.Size
	}
	return s.nonzeroOf(x.Device(), x.Shape, nil, count, dense)
}

// nonzero is nonzero of a tensor of shape on dev whose values are vals,
// copied into a dense tensor first when copied (an expanded mask).
func (s *Session) nonzero(dev Device, shape []int64, vals []float64, copied bool) (*Tensor, error) {
	idx, count := nonzeroIndices(shape, vals)
	var dense uint64
	if copied {
		dense = numel(shape) // a bool mask's bytes
	}
	return s.nonzeroOf(dev, shape, idx, count, dense)
}

// nonzeroOf is nonzero's output of count indices (idx their values, nil
// where not known) and CUDA's temporaries around it, after a dense copy
// of the input of dense bytes (none where 0).
func (s *Session) nonzeroOf(dev Device, shape []int64, idx knownValues, count int64, dense uint64) (*Tensor, error) {
	out := []int64{count, int64(len(shape))}
	if !dev.CUDA {
		t, err := s.alloc(out, DTypes["int64"], dev)
		if err == nil {
			t.st.vals = idx
		}
		return t, err
	}
	n := numel(shape)
	if dense > 0 {
		dense, err := s.newStorage(dev, dense, false)
		if err != nil {
			return nil, err
		}
		defer s.release(dense)
	}
	chunks := max(ceilDiv(n, nonzeroChunk), 1)
	counts, err := s.newStorage(dev, 4*chunks, false)
	if err != nil {
		return nil, err
	}
	defer s.release(counts)
	sms, threads := s.gpus[dev.Index].b.grid()
	for c := range chunks {
		if err := s.libScratch(dev, "CUB's sum", cubSumScratch(min(n-c*nonzeroChunk, nonzeroChunk), sms, threads)); err != nil {
			return nil, err
		}
	}
	t, err := s.alloc(out, DTypes["int64"], dev)
	if err != nil {
		return nil, err
	}
	t.st.vals = idx
	for c := range chunks {
		if err := s.libScratch(dev, "CUB's select", cubSelectScratch(min(n-c*nonzeroChunk, nonzeroChunk))); err != nil {
			s.dropTensor(t)
			return nil, err
		}
	}
	return t, nil
}

// nonzeroIndices are the multi-indices of the nonzero values vals of a
// tensor of shape, row after row, and how many there are.
func nonzeroIndices(shape []int64, vals []float64) (idx knownValues, count int64) {
	at := make([]int64, len(shape))
	for _, v := range vals {
		if v != 0 {
			count++
			for _, i := range at {
				idx = append(idx, float64(i))
			}
		}
		nextIndex(at, shape)
	}
	return idx, count
}

// MaskIndexSpecs are a bool mask over the dimensions of x from at, as
// the index tensors it stands for (its nonzero's columns, one a mask
// dimension: testdata/pyrules/index_mask_mixed.py): their dimensions,
// shape [count] and values; PyTorch's IndexError when its shape does not
// match those dimensions, and an error when its values are not known.
func MaskIndexSpecs(x, mask *Tensor, at int) ([]IndexSpec, error) {
	if err := checkMaskShape(x, mask, at); err != nil {
		return nil, err
	}
	vals, ok := mask.Values()
	if !ok {
		return nil, errValueSized("indexing by a bool mask")
	}
	idx, count := nonzeroIndices(mask.Shape, vals)
	k := len(mask.Shape)
	specs := make([]IndexSpec, k)
	for j := range specs {
		col := make([]float64, count)
		for i := range col {
			col[i] = idx[i*k+j]
		}
		specs[j] = IndexSpec{Dim: at + j, Shape: []int64{count}, Values: col}
	}
	return specs, nil
}

// maskOf checks mask against the dimensions of x from at, as indexing
// by it does, and returns its values (an error when not known).
func maskOf(op string, x, mask *Tensor, at int) ([]float64, error) {
	if err := checkMaskShape(x, mask, at); err != nil {
		return nil, err
	}
	if x.Device() != mask.Device() {
		return nil, NotModelledError(op + " with a mask on another device")
	}
	vals, ok := mask.Values()
	if !ok {
		return nil, errValueSized(op)
	}
	return vals, nil
}

// MaskIndex is x[mask] for a bool mask over x's leading dimensions:
// nonzero of the mask, then the selected elements (rows) of x, a new
// tensor [count, x's other dimensions...]; nonzero's output is freed.
// Under autograd the forward is the same (ops_mask_grad.py) and
// IndexBackward0 saves the mask (maskIndexBackward).
func (s *Session) MaskIndex(x, mask *Tensor) (*Tensor, error) {
	ms, err := maskOf("x[mask]", x, mask, 0)
	if err != nil {
		return nil, err
	}
	out, err := s.selectByMask(x, x.Shape, mask.Shape, ms, false)
	if err == nil {
		s.record("IndexBackward0", out, []*Tensor{x}, []*Tensor{mask}, maskIndexBackward(mask.Shape, ms, uint64(out.Shape[0])))
	}
	return out, err
}

// selectByMask is x (of shape, maybe expanded to it) indexed by a mask
// of shape mshape and values ms, copied dense first when copied.
func (s *Session) selectByMask(x *Tensor, shape, mshape []int64, ms []float64, copied bool) (*Tensor, error) {
	nz, err := s.nonzero(x.Device(), mshape, ms, copied)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(nz)
	out, err := s.alloc(slices.Concat(nz.Shape[:1], shape[len(mshape):]), x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	if xs, ok := x.Values(); ok && slices.Equal(x.Shape, shape) && len(xs) <= maxKnownValues {
		row := int(numel(shape[len(mshape):]))
		vals := knownValues{}
		for i, m := range ms {
			if m != 0 {
				vals = append(vals, xs[i*row:(i+1)*row]...)
			}
		}
		out.st.vals = vals
	}
	return out, nil
}

// MaskedSelect is torch.masked_select(x, mask): x and mask broadcast,
// then indexed as x[mask]; a mask of fewer elements than the broadcast
// shape is first copied dense at it (testdata/pyrules/ops_mask.py). Under
// autograd MaskedSelectBackward0 saves x and the mask
// (maskedSelectBackward).
func (s *Session) MaskedSelect(x, mask *Tensor) (*Tensor, error) {
	if mask.DType.Name != "bool" {
		return nil, Errorf(RuntimeError, "masked_select: expected BoolTensor for mask")
	}
	dev, shape, err := operands(x, mask)
	if err != nil {
		return nil, err
	}
	if !dev.CUDA {
		return nil, NotModelledError("torch.masked_select on the host")
	}
	ms, ok := mask.Values()
	if !ok {
		return nil, errValueSized("torch.masked_select")
	}
	if !slices.Equal(mask.Shape, shape) {
		ms = broadcastValues(ms, mask.Shape, shape)
	}
	// the mask expanded to shape is a view that is not contiguous, which
	// nonzero and masked_scatter_ copy dense, unless only dimensions of
	// size 1 were added (ops_mask_grad_shapes.py line 108; a mask whose
	// values the tool knows is contiguous)
	copied := numel(mask.Shape) != numel(shape)
	out, err := s.selectByMask(x, shape, shape, ms, copied)
	if err != nil {
		return nil, err
	}
	out.Shape = []int64{int64(numel(out.Shape))}
	s.record("MaskedSelectBackward0", out, []*Tensor{x}, []*Tensor{x, mask}, maskedSelectBackward(shape, x.IsContiguous(), copied))
	return out, nil
}

// broadcastValues are vals, of a tensor of shape from, expanded to shape
// to.
func broadcastValues(vals []float64, from, to []int64) []float64 {
	out := make([]float64, numel(to))
	lead := len(to) - len(from)
	at := make([]int64, len(to))
	for i := range out {
		j := int64(0)
		for d, n := range from {
			j = j*n + at[lead+d]%n
		}
		out[i] = vals[j]
		nextIndex(at, to)
	}
	return out
}

// MaskAssign is x[mask] = value: a Python number (value nil, num its
// value) is PyTorch's masked_fill_, with no memory; a tensor on x's
// device goes through index_put_, whose nonzero of the mask is made and
// freed. x's values stay known where the mask's and the value's are.
func (s *Session) MaskAssign(x, mask, value *Tensor, num float64) error {
	ms, err := maskOf("x[mask] = tensor", x, mask, 0)
	if err != nil && value == nil && errors.As(err, new(valueSizedError)) {
		ms, err = nil, nil // masked_fill_ needs no count
	}
	if err != nil {
		return err
	}
	fill, filled := num, value == nil
	if value != nil {
		if value.Device() != x.Device() {
			return NotModelledError("assigning a tensor of another device through a bool mask")
		}
		nz, err := s.nonzero(x.Device(), mask.Shape, ms, false)
		if err != nil {
			return err
		}
		s.dropTensor(nz)
		if err := ValueShapeError(value.Shape, slices.Concat(nz.Shape[:1], x.Shape[len(mask.Shape):])); err != nil {
			return err // index_broadcast.py
		}
		if vs, ok := value.Values(); ok && len(vs) == 1 {
			fill, filled = vs[0], true
		}
	}
	xs, ok := x.Values()
	if err := s.writeUntracked("index_put_", x); err != nil {
		return err
	}
	if !ok || !filled || ms == nil || x.Bytes() != x.st.bytes {
		return nil
	}
	row := int(numel(x.Shape[len(mask.Shape):]))
	vals := slices.Clone(xs)
	for i, m := range ms {
		if m != 0 {
			for j := range row {
				vals[i*row+j] = fill
			}
		}
	}
	x.st.vals = convertValues(vals, x.DType)
	return nil
}

// MaskFill is x[key] = number where the key's one advanced item is a
// bool mask of x's device over x's dimensions from at (the key's ints,
// slices, None and ... beside it): PyTorch's masked_fill_ of the view,
// which allocates nothing and needs neither the mask's count nor its
// values (testdata/pyrules/index_mask_mixed.py lines 62, 63 and 67;
// ops_mask.py); x's values are no longer known.
func (s *Session) MaskFill(x, mask *Tensor, at int) error {
	if err := checkMaskShape(x, mask, at); err != nil {
		return err
	}
	s.written(x)
	return nil
}

// columns are nonzero's output as_tuple: a view of each column, the
// output's own reference dropped.
func (s *Session) columns(nz *Tensor) []*Tensor {
	cols := make([]*Tensor, nz.Shape[1])
	for j := range cols {
		cols[j] = restrided(nz, nz.Shape[:1], nz.Shape[1:], uint64(j))
	}
	s.dropTensor(nz)
	return cols
}

func init() {
	declare(&OpDef{Name: "nonzero", Function: true, Method: true, Params: []Param{input, {Name: "as_tuple", Kind: BoolParam, Default: "False", KeywordOnly: true}},
		Memory: "int64 [count, ndim] of the input's known values: a 4-byte count, CUB's sum scratch, the output, CUB's select scratch (made and freed); as_tuple: views of it; values not known: refused",
		runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
			nz, err := s.Nonzero(a.Tensor(0))
			if err != nil || !a.Bool(1) {
				return []*Tensor{nz}, false, err
			}
			return s.columns(nz), true, nil
		}},
		&OpDef{Name: "argwhere", Function: true, Method: true, Params: []Param{input},
			Memory: "nonzero: int64 [count, ndim] of the input's known values",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.Nonzero(a.Tensor(0)) }},
		&OpDef{Name: "masked_select", Function: true, Method: true, Params: []Param{input, {Name: "mask", Kind: TensorParam}},
			Memory: "1-d of the mask's count of true values: the mask's nonzero (a smaller mask copied dense to the broadcast shape first), the output, nonzero's freed; values not known: refused; saves the input and mask; backward makes zeros of the broadcast shape, then masked_scatter_'s int64 offsets, the mask's dense copy (a smaller mask), CUB's scan scratch and the gradient's dense copy, freed, and sums to the input's shape",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.MaskedSelect(a.Tensor(0), a.Tensor(1)) }},
	)
}
