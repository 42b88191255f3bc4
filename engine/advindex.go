package engine

import (
	"fmt"
	"slices"
)

// Advanced indexing by one int64 index tensor along dimension d, the
// dimensions before it whole (x[idx], x[:, idx]; testdata/pyrules/
// ops_alias.py): a new dense tensor of x.shape[:d] + idx.shape +
// x.shape[d+1:]. Autograd (IndexBackward0) saves the index; its backward
// (index_put_ with accumulate: a sort of the indices and its scratch) is
// not modelled and says so when it runs.

// IndexTensor is x[..., idx] with idx along dimension d.
func (s *Session) IndexTensor(x *Tensor, d int, idx *Tensor) (*Tensor, error) {
	if idx.DType.Name != "int64" {
		return nil, NotModelledError("advanced indexing with an index of " + idx.DType.Name)
	}
	if _, err := sameDevice(x, idx); err != nil && x.Device().CUDA {
		return nil, err
	}
	if d >= len(x.Shape) {
		return nil, fmt.Errorf("IndexError: too many indices for tensor of dimension %d", len(x.Shape))
	}
	shape := slices.Concat(x.Shape[:d], idx.Shape, x.Shape[d+1:])
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	out.st.vals = indexValues(x, d, idx)
	s.record("IndexBackward0", out, []*Tensor{x}, []*Tensor{idx}, func(*Session, *node, *Tensor) ([]*Tensor, error) {
		return []*Tensor{nil}, NotModelledError("the backward of advanced indexing (IndexBackward0)")
	})
	return out, nil
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
