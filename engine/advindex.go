package engine

import (
	"fmt"
	"slices"
)

// Advanced indexing by int64 index tensors of one shape along
// dimensions dims of x (x[idx], x[:, idx], x[idx, idx2]; testdata/
// pyrules/ops_alias.py): a new dense tensor of x.shape[:d] + idx.shape +
// the dimensions after the indexed ones when the indexed dimensions are
// side by side from d, and of idx.shape + the dimensions not indexed
// when they are apart (x[idx, :, idx]: index_mixed.py). A key's ints,
// slices, None and ... are views of x made before (the caller's). Autograd (IndexBackward0) saves the indices; its backward
// is index_put_ with accumulate into zeros of x's shape, which on the
// GPU flattens the index (a wrapped copy, then that times the
// dimension's stride, the copy freed), copies a gradient that is not
// contiguous, then sorts: the sorted indices, their original positions
// and a range, each as large as the index, and CUB's scratch
// (indexSortScratch, radixsort.go); all but the zeros freed, newest
// first, the flattened index last (ops_index_grad.py,
// ops_index_grad_dense.py); indices apart add a contiguous copy of the
// zeros after the gradient's (index_mixed.py). Indices on the host
// of a CUDA x, and a bool mask there, are copied over (IndexTensor,
// HostMaskIndex). What PyTorch refuses is checked in indexcheck.go.

// IndexTensor is x[..., idxs...] with the index tensors idxs along
// dimensions dims of x (ascending, a bool mask's as many as it has), made
// ready on x's device (a mask's nonzero: MaskColumns; IndexOperands) and
// let go after the output exists; IndexBackward0 keeps the indices as
// they were given (a host index itself: index_host_probe.txt; a mask
// itself, whose nonzero its backward takes again: index_mask_mixed.py),
// and its backward flattens them expanded to the shape they broadcast to
// (index_broadcast.py).
func (s *Session) IndexTensor(x *Tensor, dims []int, idxs []*Tensor) (*Tensor, error) {
	cols, drop, err := s.MaskColumns(x, dims, idxs)
	if err != nil {
		return nil, err
	}
	defer drop()
	out, n, err := s.indexBy(x, dims, cols)
	if err != nil {
		return nil, err
	}
	var host []bool
	var mask *maskKey
	bw := backward(nil)
	for _, idx := range idxs {
		switch {
		case idx.DType.Name != "bool":
			host = append(host, idx.Device() != x.Device())
		case idx.Device() != x.Device():
			bw = func(*Session, *node, *Tensor) ([]*Tensor, error) {
				return []*Tensor{nil}, NotModelledError("the backward of indexing by a bool mask on the host beside other items of the key")
			}
		default:
			vals, _ := idx.Values()
			mask = &maskKey{idx.Shape, vals}
			host = append(host, make([]bool, len(idx.Shape))...)
		}
	}
	if bw == nil {
		bw = indexBackward(n, host, dims[len(dims)-1]+1, !sideBySide(dims), mask)
	}
	s.record("IndexBackward0", out, []*Tensor{x}, idxs, bw)
	return out, nil
}

// MaskColumns are idxs, index tensors of x along dims (ascending, a bool
// mask's as many as it has), with the bool mask among them made its
// nonzero's columns on x's device, as PyTorch's index and index_put_ do
// before anything else (index_mask_mixed.py): the nonzero of a mask on
// x's device (its count, CUB's sum scratch, the output, CUB's select
// scratch), one on the host of a CUDA x taken there and copied whole.
// drop lets go of the columns.
func (s *Session) MaskColumns(x *Tensor, dims []int, idxs []*Tensor) (cols []*Tensor, drop func(), err error) {
	var made []*Tensor
	drop = func() { s.dropInOrder(made) }
	p := 0 // the index of the next item's first dimension in dims
	for _, idx := range idxs {
		if idx.DType.Name != "bool" {
			cols = append(cols, idx)
			p++
			continue
		}
		var mc []*Tensor
		if x.Device().CUDA && !idx.Device().CUDA {
			mc, err = s.hostMaskColumns(x, idx, dims[p], "x[..., mask]")
		} else {
			mc, err = s.maskColumns(x, idx, dims[p])
		}
		if err != nil {
			drop()
			return nil, nil, err
		}
		made, cols = append(made, mc...), append(cols, mc...)
		p += len(idx.Shape)
	}
	return cols, drop, nil
}

// maskColumns are the columns of the nonzero of a mask of x's device
// over x's dimensions from at (new references, views of it).
func (s *Session) maskColumns(x, mask *Tensor, at int) ([]*Tensor, error) {
	ms, err := maskOf("x[..., mask]", x, mask, at)
	if err != nil {
		return nil, err
	}
	nz, err := s.nonzero(x.Device(), mask.Shape, ms, false)
	if err != nil {
		return nil, err
	}
	return s.columns(nz), nil
}

// sideBySide reports whether dims (ascending) follow each other.
func sideBySide(dims []int) bool {
	return dims[len(dims)-1]-dims[0] == len(dims)-1
}

// AdvancedShape is the shape of x[key] for x of shape x after the key's
// basic items, its advanced indices along dims (ascending) broadcast to
// idx: PyTorch puts idx in place of the indexed dimensions when they
// are side by side, else in front of the dimensions not indexed
// (index_mixed.py).
func AdvancedShape(x []int64, dims []int, idx []int64) []int64 {
	if sideBySide(dims) {
		return slices.Concat(x[:dims[0]], idx, x[dims[len(dims)-1]+1:])
	}
	out := slices.Clone(idx)
	for d, n := range x {
		if !slices.Contains(dims, d) {
			out = append(out, n)
		}
	}
	return out
}

// indexBy is x[..., idxs...]'s output, its node not recorded, and the
// number of elements of the shape the indices broadcast to.
func (s *Session) indexBy(x *Tensor, dims []int, idxs []*Tensor) (*Tensor, uint64, error) {
	dev := x.Device()
	specs := make([]IndexSpec, len(idxs))
	for i, idx := range idxs {
		if idx.DType.Name != "int64" {
			return nil, 0, NotModelledError("advanced indexing with an index of " + idx.DType.Name)
		}
		switch at := idx.Device(); {
		case at == dev, dev.CUDA && !at.CUDA:
		case !dev.CUDA:
			return nil, 0, Errorf(RuntimeError, "indices should be either on cpu or on the same device as the indexed tensor (%s)", dev)
		default:
			_, err := sameDevice(x, idx)
			return nil, 0, err
		}
		specs[i].Shape = idx.Shape
	}
	shape, err := IndexShape(specs)
	if err != nil {
		return nil, 0, err
	}
	if dims[len(dims)-1] >= len(x.Shape) {
		return nil, 0, Errorf(IndexError, "too many indices for tensor of dimension %d", len(x.Shape))
	}
	release, err := s.IndexOperands(x, idxs)
	if err != nil {
		return nil, 0, err
	}
	defer release()
	out, err := s.alloc(AdvancedShape(x.Shape, dims, shape), x.DType, dev)
	if err == nil && len(idxs) == 1 {
		out.st.vals = indexValues(x, dims[0], idxs[0])
	}
	return out, numel(shape), err
}

// IndexOperands makes the index tensors idxs of x[...] ready on x's
// device as PyTorch's AdvancedIndex does (index_host.py,
// index_broadcast.py): those on the host of a CUDA x copied over, in
// order; where their shapes differ, each not already of the shape they
// broadcast to expanded to it and copied, in order, and the host copies
// of those let go. release lets go of what is left, in order.
func (s *Session) IndexOperands(x *Tensor, idxs []*Tensor) (release func(), err error) {
	dev := x.Device()
	ready := make([]*Tensor, len(idxs))
	release = func() { s.dropInOrder(ready) }
	specs := make([]IndexSpec, len(idxs))
	for i, idx := range idxs {
		specs[i].Shape = idx.Shape
		if dev.CUDA && !idx.Device().CUDA {
			if ready[i], err = s.copyTo(idx, dev); err != nil {
				release()
				return nil, err
			}
		}
	}
	shape, err := IndexShape(specs)
	if err != nil {
		release()
		return nil, err
	}
	var copies []*Tensor // host copies replaced by their expansions
	for i, idx := range idxs {
		if slices.Equal(idx.Shape, shape) {
			continue
		}
		expanded, err := s.alloc(shape, idx.DType, dev)
		if err != nil {
			release()
			s.dropInOrder(copies)
			return nil, err
		}
		copies = append(copies, ready[i])
		ready[i] = expanded
	}
	s.dropInOrder(copies)
	return release, nil
}

// dropInOrder lets go of ts, the first first (nil ones skipped).
func (s *Session) dropInOrder(ts []*Tensor) {
	for _, t := range ts {
		s.dropTensor(t)
	}
}

// HostMaskIndex is x[mask] for a CUDA x and a bool mask on the host:
// the mask's nonzero taken on the host and copied to the GPU whole,
// [count, mask dims], x indexed by its columns there, the copy freed
// after the output; IndexBackward0 keeps the mask, and its backward is
// that of host indices of count elements, one a mask dimension
// (index_host.py, index_host_two.py, index_broadcast.py).
func (s *Session) HostMaskIndex(x, mask *Tensor) (*Tensor, error) {
	cols, err := s.hostMaskColumns(x, mask, 0, "x[mask]")
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, c := range cols {
			s.dropTensor(c)
		}
	}()
	dims := make([]int, len(cols))
	for i := range dims {
		dims[i] = i
	}
	out, _, err := s.indexBy(x, dims, cols)
	if err != nil {
		return nil, err
	}
	host := make([]bool, len(cols))
	for i := range host {
		host[i] = true
	}
	s.record("IndexBackward0", out, []*Tensor{x}, []*Tensor{mask}, indexBackward(cols[0].Numel(), host, len(cols), false, nil))
	return out, nil
}

// hostMaskColumns are the columns of the nonzero of a host mask over
// x's dimensions from at, copied to x's GPU (new references, views of
// one copy).
func (s *Session) hostMaskColumns(x, mask *Tensor, at int, op string) ([]*Tensor, error) {
	if err := checkMaskShape(x, mask, at); err != nil {
		return nil, err
	}
	ms, ok := mask.Values()
	if !ok {
		return nil, errValueSized(op)
	}
	nz, err := s.nonzero(mask.Device(), mask.Shape, ms, false)
	if err != nil {
		return nil, err
	}
	c, err := s.copyTo(nz, x.Device())
	s.dropTensor(nz)
	if err != nil {
		return nil, err
	}
	return s.columns(c), nil
}

// HostMaskAssign is x[mask] = value for a CUDA x and a bool mask on the
// host: index_put_, not masked_fill_: a Python number (value nil) made
// a 0-d tensor of x's dtype, the mask's nonzero taken on the host and
// copied over, then both freed, newest first (index_host_two.py). A
// value that does not broadcast to [count, x's other dimensions...] is
// PyTorch's shape mismatch, once the copy exists.
func (s *Session) HostMaskAssign(x, mask, value *Tensor) error {
	if value == nil {
		scalar, err := s.alloc(nil, x.DType, x.Device())
		if err != nil {
			return err
		}
		defer s.dropTensor(scalar)
	}
	cols, err := s.hostMaskColumns(x, mask, 0, "x[mask] = value")
	if err != nil {
		return err
	}
	for _, c := range cols {
		s.dropTensor(c)
	}
	if value != nil {
		if err := ValueShapeError(value.Shape, slices.Concat(cols[0].Shape, x.Shape[len(mask.Shape):])); err != nil {
			return err
		}
	}
	return s.writeUntracked("index_put_", x)
}

// maskKey is a bool mask of a key as IndexBackward0 keeps it: its shape
// and values.
type maskKey struct {
	shape []int64
	vals  []float64
}

// indexBackward is IndexBackward0's backward for index tensors of n
// elements each, host[i] when the i-th was on the host, the indexed
// dimensions before after, apart when they are not side by side, mask
// the key's bool mask (nil: none), whose columns are among the indices:
// zeros of the input's shape, then the mask's nonzero again
// (ops_mask_grad.py, index_mask_mixed.py) and index_put_'s temporaries
// on the GPU (indexPutTemps; with indices apart, it transposes the zeros
// to put their dimensions first and works on a contiguous copy; more
// than one tile's sort of those, whose keys the transpose changes, is
// not recorded, and refused).
func indexBackward(n uint64, host []bool, after int, apart bool, mask *maskKey) backward {
	return func(s *Session, nd *node, g *Tensor) ([]*Tensor, error) {
		dev := g.Device()
		switch {
		case mask != nil && !dev.CUDA:
			return []*Tensor{nil}, NotModelledError("the backward of indexing by a bool mask on the host")
		case mask != nil && numel(nd.inputs[0].shape) == 0:
			return []*Tensor{nil}, NotModelledError("the backward of indexing an empty tensor by a bool mask")
		}
		scratch, err := indexSortScratch(n, nd.inputs[0].shape, after)
		if apart && n > maxOneTileSort {
			err = NotModelledError(fmt.Sprintf("the backward of indexing by indices apart (x[idx, :, idx]) of more than %d elements (CUB's sort of several tiles of the transposed index)", maxOneTileSort))
		}
		if dev.CUDA && err != nil {
			return []*Tensor{nil}, err
		}
		grad, err := s.alloc(nd.inputs[0].shape, g.DType, dev)
		if err != nil || !dev.CUDA {
			return []*Tensor{grad}, err
		}
		var nz *Tensor
		if mask != nil {
			if nz, err = s.nonzero(dev, mask.shape, mask.vals, false); err != nil {
				return []*Tensor{grad}, err
			}
		}
		if n == 0 {
			s.dropTensor(nz)
			return []*Tensor{grad}, nil
		}
		var copied *Tensor
		if apart {
			copied = grad
		}
		return []*Tensor{grad}, s.indexPutTemps(g, n, host, nz, copied, scratch)
	}
}

// indexPutTemps allocates and frees what index_put_ with accumulate
// takes on the GPU to put the values g at index tensors of n (> 0)
// elements each, host[i] when the i-th is on the host: the flattened
// index (linearIndex); then expanded (a bool mask's nonzero, whose
// columns were the indices; nil for index tensors) let go; g's dense
// copy when it is not contiguous, a contiguous copy of copied (the
// target, when the indices are apart: nil when it is written in place;
// index_mixed.py line 98), the sort's three int64 temporaries and CUB's
// scratch of scratch bytes, freed newest first, and the flattened index
// last.
func (s *Session) indexPutTemps(g *Tensor, n uint64, host []bool, expanded, copied *Tensor, scratch uint64) error {
	dev := g.Device()
	flat, err := s.linearIndex(dev, n, host)
	defer s.release(flat) // last
	if expanded != nil {
		s.dropTensor(expanded)
	}
	if err != nil {
		return err
	}
	if err := s.scratchOnCard(dev, "CUB's radix sort", scratch); err != nil {
		return err
	}
	var temps []*storage
	defer func() { // newest first: the scratch, the sort's, the values
		for i := len(temps) - 1; i >= 0; i-- {
			s.release(temps[i])
		}
	}()
	sizes := []uint64{8 * n, 8 * n, 8 * n, scratch} // sorted, positions, range; CUB's scratch
	if copied != nil {
		sizes = append([]uint64{copied.Bytes()}, sizes...)
	}
	if !g.IsContiguous() {
		sizes = append([]uint64{g.Bytes()}, sizes...)
	}
	for _, b := range sizes {
		st, err := s.newStorage(dev, b, false)
		if err != nil {
			return err
		}
		temps = append(temps, st)
	}
	return nil
}

// linearIndex is index_put_'s flattened index of index tensors of n
// elements, host[i] when the i-th is on the host: for each in order, on
// the GPU its wrapped copy, then that times its dimension's stride, the
// copy freed; from the host one copy of what the host computed; from the
// second on, that added into the first's and freed (index_host_two.py).
func (s *Session) linearIndex(dev Device, n uint64, host []bool) (*storage, error) {
	var flat *storage
	for i, h := range host {
		part, err := s.newStorage(dev, 8*n, false)
		if err == nil && !h {
			wrapped := part
			part, err = s.newStorage(dev, 8*n, false)
			s.release(wrapped)
		}
		if err != nil {
			s.release(flat)
			return nil, err
		}
		if i == 0 {
			flat = part
		} else {
			s.release(part)
		}
	}
	return flat, nil
}

// indexValues are x[..., idx]'s values when x's storage's and idx's are
// known and every index is in range (negative ones from the end); x may
// be a strided view (c[mask, 1:3]: index_mask_mixed.py line 94).
func indexValues(x *Tensor, d int, idx *Tensor) knownValues {
	is, oki := idx.Values()
	n := x.Numel()
	if x.number || x.st.vals == nil || !oki || n == 0 || n > maxKnownValues {
		return nil
	}
	strides := x.Strides()
	// element m (a multi-index) of x, read from its storage
	at := func(m []int64) float64 {
		off := int64(x.offset)
		for j, i := range m {
			off += i * strides[j]
		}
		return x.st.vals.at(uint64(off))
	}
	m := make([]int64, len(x.Shape))
	var vals knownValues
	for range numel(x.Shape[:d]) {
		for _, k := range is {
			i := int64(k)
			if i < 0 {
				i += x.Shape[d]
			}
			if i < 0 || i >= x.Shape[d] {
				return nil
			}
			m[d] = i
			for range numel(x.Shape[d+1:]) {
				vals = append(vals, at(m))
				nextIndex(m[d+1:], x.Shape[d+1:])
			}
		}
		nextIndex(m[:d], x.Shape[:d])
	}
	return vals
}

// nextIndex steps the multi-index m within shape, the last dimension
// fastest, back to all zeros after the last.
func nextIndex(m, shape []int64) {
	for j := len(m) - 1; j >= 0; j-- {
		if m[j]++; m[j] < shape[j] {
			return
		}
		m[j] = 0
	}
}
