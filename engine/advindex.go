package engine

import (
	"fmt"
	"slices"
)

// Advanced indexing by int64 index tensors of one shape along
// dimensions d, d+1..., the dimensions before them whole (x[idx],
// x[:, idx], x[idx, idx2]; testdata/pyrules/ops_alias.py): a new dense
// tensor of x.shape[:d] + idx.shape + the dimensions after the indexed
// ones. Autograd (IndexBackward0) saves the indices; its backward
// is index_put_ with accumulate into zeros of x's shape, which on the
// GPU flattens the index (a wrapped copy, then that times the
// dimension's stride, the copy freed), copies a gradient that is not
// contiguous, then sorts: the sorted indices, their original positions
// and a range, each as large as the index, and CUB's scratch, 1 byte
// for its sort of one tile, up to 2304 indices (index_sort_probe.txt;
// more are refused: the scratch of a sort of several tiles is not
// modelled); all but the zeros freed, newest first, the flattened index
// last (ops_index_grad.py, ops_index_grad_more.py).

// maxOneTileSort is the most int64 indices CUB's radix sort sorts in one
// tile on the H200 (scripts/probe_index_sort.py).
const maxOneTileSort = 2304

// IndexTensor is x[..., idxs...] with the index tensors idxs (of one
// shape) along dimensions d, d+1...
func (s *Session) IndexTensor(x *Tensor, d int, idxs []*Tensor) (*Tensor, error) {
	for _, idx := range idxs {
		if idx.DType.Name != "int64" {
			return nil, NotModelledError("advanced indexing with an index of " + idx.DType.Name)
		}
		if _, err := sameDevice(x, idx); err != nil && x.Device().CUDA {
			return nil, err
		}
		if !slices.Equal(idx.Shape, idxs[0].Shape) {
			return nil, NotModelledError("advanced indexing by index tensors of different shapes (broadcast)")
		}
	}
	k := len(idxs)
	if d+k > len(x.Shape) {
		return nil, fmt.Errorf("IndexError: too many indices for tensor of dimension %d", len(x.Shape))
	}
	shape := slices.Concat(x.Shape[:d], idxs[0].Shape, x.Shape[d+k:])
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	if k == 1 {
		out.st.vals = indexValues(x, d, idxs[0])
	}
	s.record("IndexBackward0", out, []*Tensor{x}, idxs, indexBackward(idxs[0].Numel(), k))
	return out, nil
}

// indexBackward is IndexBackward0's backward for k index tensors of n
// elements each: zeros of the input's shape, then index_put_'s
// temporaries on the GPU (indexPutTemps).
func indexBackward(n uint64, k int) backward {
	return func(s *Session, nd *node, g *Tensor) ([]*Tensor, error) {
		dev := g.Device()
		if dev.CUDA && n > maxOneTileSort {
			return []*Tensor{nil}, NotModelledError(fmt.Sprintf("the backward of advanced indexing by more than %d indices (CUB's radix sort of several tiles)", maxOneTileSort))
		}
		grad, err := s.alloc(nd.inputs[0].shape, g.DType, dev)
		if err != nil || !dev.CUDA || n == 0 {
			return []*Tensor{grad}, err
		}
		return []*Tensor{grad}, s.indexPutTemps(g, n, k, nil)
	}
}

// indexPutTemps allocates and frees what index_put_ with accumulate
// takes on the GPU to put the values g at k index tensors of n (> 0)
// elements each: each index's wrapped copy, then that times its
// dimension's stride, the copy freed; from the second on, that product
// added into the first's and freed; then expanded (a bool mask's
// nonzero, whose columns were the indices; nil for index tensors) let
// go; g's dense copy when it is not contiguous, the sort's three int64
// temporaries and CUB's scratch, freed newest first, and the flattened
// index last.
func (s *Session) indexPutTemps(g *Tensor, n uint64, k int, expanded *Tensor) error {
	dev := g.Device()
	var flat *storage
	defer func() { s.release(flat) }() // last
	err := func() error {
		for i := range k {
			wrapped, err := s.newStorage(dev, 8*n, false)
			if err != nil {
				return err
			}
			scaled, err := s.newStorage(dev, 8*n, false)
			s.release(wrapped)
			if err != nil {
				return err
			}
			if i == 0 {
				flat = scaled
			} else {
				s.release(scaled)
			}
		}
		return nil
	}()
	if expanded != nil {
		s.dropTensor(expanded)
	}
	if err != nil {
		return err
	}
	var temps []*storage
	defer func() { // newest first: the scratch, the sort's, the values
		for i := len(temps) - 1; i >= 0; i-- {
			s.release(temps[i])
		}
	}()
	sizes := []uint64{8 * n, 8 * n, 8 * n, 1} // sorted, positions, range; CUB's scratch
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

// indexValues are x[..., idx]'s values when x's and idx's are known and
// every index is in range (negative ones from the end).
func indexValues(x *Tensor, d int, idx *Tensor) knownValues {
	xs, okx := x.Values()
	is, oki := idx.Values()
	if !okx || !oki || len(xs) == 0 || len(xs) > maxKnownValues {
		return nil
	}
	outer, n, inner := int(numel(x.Shape[:d])), x.Shape[d], int(numel(x.Shape[d+1:]))
	var vals knownValues
	for o := range outer {
		for _, k := range is {
			i := int64(k)
			if i < 0 {
				i += n
			}
			if i < 0 || i >= n {
				return nil
			}
			start := (o*int(n) + int(i)) * inner
			vals = append(vals, xs[start:start+inner]...)
		}
	}
	return vals
}
