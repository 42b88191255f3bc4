package torchpy

import (
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// advancedIndex is t[key] where the key's items hold lists of ints or
// int64 tensors (of shapes that broadcast together) beside ints,
// slices, None and ...: PyTorch makes each list an int64 tensor on t's
// device, in the key's order (testdata/pyrules/ops_alias.py,
// ops_index_grad.py), applies the basic items as views (nothing
// allocated; their autograd nodes recorded), then indexes the view
// (engine.IndexTensor): an int between indices takes its dimension
// away, so they stay side by side; a slice or None between them moves
// them to the front (index_mixed.py). An index tensor on the host of a
// CUDA t is copied over (index_host.py). Indices out of range are
// refused before anything is made (engine.CheckIndexRange,
// index_errors.py). A bool mask alone over the leading dimensions
// selects by its known values (engine.MaskIndex; one on the host of a
// CUDA t, engine.HostMaskIndex); a mask beside other items stands for
// its nonzero's columns, one a dimension it covers, made when the key
// is applied (engine.MaskColumns, index_mask_mixed.py), within what
// checkMasks lets through.
func (b *Binding) advancedIndex(t *Tensor, items []eval.Value, tuple bool) (eval.Value, error) {
	if err := b.checkMasks(t, items); err != nil {
		return nil, err
	}
	if mask := loneMask(items); mask != nil {
		maskIndex := b.S.MaskIndex
		if t.T.Device().CUDA && !mask.T.Device().CUDA {
			maskIndex = b.S.HostMaskIndex
		}
		r, err := maskIndex(t.T, mask.T)
		if err != nil {
			return nil, b.pyErr(err)
		}
		return b.wrap(r), nil
	}
	specs, err := b.indexSpecs(t, items)
	if err != nil {
		return nil, err
	}
	if _, err := engine.IndexShape(specs); err == nil {
		if err := b.pyErr(b.S.CheckIndexRange(t.T, specs)); err != nil {
			return nil, err
		}
	}
	var made []*Tensor
	defer func() { // the key's tensors go in its order
		for _, idx := range made {
			b.in.Decref(idx)
		}
	}()
	var idxs []*engine.Tensor
	for _, item := range items {
		if !isIndexItem(item) {
			continue
		}
		idx, err := b.indexTensor(t, item)
		if err != nil {
			return nil, err
		}
		made, idxs = append(made, idx), append(idxs, idx.T)
	}
	view, dims, err := b.basicView(t, items, tuple)
	if err != nil {
		return nil, err
	}
	x := t.T
	if view != nil {
		x = view
		defer b.S.Release(view)
	}
	r, err := b.S.IndexTensor(x, dims, idxs)
	if err != nil {
		return nil, b.pyErr(err)
	}
	return b.wrap(r), nil
}

// loneMask is the key's bool mask when it comes first and every other
// item is a whole slice (x[mask], x[mask, :]); nil otherwise.
func loneMask(items []eval.Value) *Tensor {
	mask, ok := items[0].(*Tensor)
	if !ok || mask.T.DType.Name != "bool" {
		return nil
	}
	for _, k := range items[1:] {
		if sl, ok := k.(*eval.SliceObj); !ok || sl.Start != eval.None || sl.Stop != eval.None || sl.Step != eval.None {
			return nil
		}
	}
	return mask
}

// indexSpecs are the advanced indices among a key's items as
// engine.CheckIndexRange sees them: the dimension of t each indexes
// (after the ints and slices before it, an ellipsis standing for the
// dimensions the key leaves out), its shape and its known values; a
// bool mask's columns (engine.MaskIndexSpecs), whose count must be the
// other indices' size (index_mask_mixed.py did not record one that
// broadcasts).
func (b *Binding) indexSpecs(t *Tensor, items []eval.Value) ([]engine.IndexSpec, error) {
	var specs []engine.IndexSpec
	masked := false
	for i, d := range itemDims(t, items) {
		switch k := items[i].(type) {
		case *eval.List:
			shape, vals, err := b.listIndex(k)
			if err != nil {
				return nil, err
			}
			specs = append(specs, engine.IndexSpec{Dim: d, Shape: shape, Values: vals})
		case *Tensor:
			if isMask(k) {
				mask, err := engine.MaskIndexSpecs(t.T, k.T, d)
				if err != nil {
					return nil, b.pyErr(err)
				}
				specs, masked = append(specs, mask...), true
				continue
			}
			if !strings.HasPrefix(k.T.DType.Name, "int") {
				return nil, b.notModelled("advanced indexing with an index of " + k.T.DType.Name)
			}
			vals, _ := k.T.Values()
			specs = append(specs, engine.IndexSpec{Dim: d, Shape: k.T.Shape, Values: vals})
		}
	}
	for _, sp := range specs {
		if masked && !slices.Equal(sp.Shape, specs[0].Shape) {
			return nil, b.notModelled("a bool mask whose count of true values broadcasts against an index of another size (not recorded)")
		}
	}
	return specs, nil
}

// itemDims are, for each of a key's items, the dimension of t where it
// starts: after the ints, slices, index tensors and masks (as many as
// they have) before it, an ellipsis standing for the dimensions the key
// leaves out; None and ... take none.
func itemDims(t *Tensor, items []eval.Value) []int {
	dims := make([]int, len(items))
	d := 0
	for i, item := range items {
		dims[i] = d
		switch k := item.(type) {
		case eval.NoneType:
		case eval.EllipsisType:
			d += len(t.T.Shape) - usedDims(items)
		case *Tensor:
			d += indexDims(k)
		default:
			d++
		}
	}
	return dims
}

// listIndex is a list of ints as an index: its shape and values.
func (b *Binding) listIndex(l *eval.List) ([]int64, []float64, error) {
	shape, vals, kind, err := b.data(l)
	if err == nil && kind != kindInt {
		err = b.notModelled("indexing a tensor with a list of other than ints")
	}
	return shape, vals, err
}

// checkMasks refuses the bool masks of a key that
// testdata/pyrules/index_mask_mixed.py did not record beside other
// items: a uint8 mask, a 0-d one, two masks, a mask beside a list or an
// index tensor on the host, a host mask of a CUDA t beside an index
// tensor.
func (b *Binding) checkMasks(t *Tensor, items []eval.Value) error {
	var mask *Tensor
	masks, lists, indices, hostIndex := 0, false, 0, false
	for _, item := range items {
		switch k := item.(type) {
		case *eval.List:
			lists = true
		case *Tensor:
			switch k.T.DType.Name {
			case "uint8":
				return b.notModelled("indexing a tensor with a uint8 mask")
			case "bool":
				mask, masks = k, masks+1
			default:
				indices++
				hostIndex = hostIndex || k.T.Device() != t.T.Device()
			}
		}
	}
	switch {
	case masks == 0 || len(items) == 1:
		return nil
	case len(mask.T.Shape) == 0:
		return b.notModelled("a 0-d bool mask beside other items of an index")
	case masks > 1:
		return b.notModelled("indexing by two bool masks in one key")
	case lists:
		return b.notModelled("a bool mask beside a list index")
	case hostIndex:
		return b.notModelled("a bool mask beside an index tensor on the host")
	case indices > 0 && mask.T.Device() != t.T.Device():
		return b.notModelled("a bool mask on the host beside an index tensor")
	}
	return nil
}

// isIndexItem reports whether an item of an index key is an advanced
// index: a list or a tensor.
func isIndexItem(v eval.Value) bool {
	switch v.(type) {
	case *eval.List, *Tensor:
		return true
	}
	return false
}

// indexTensor is an advanced index item as a tensor (a new reference):
// an int64 tensor or a bool mask as it is, a list of ints made one on t's device.
func (b *Binding) indexTensor(t *Tensor, item eval.Value) (*Tensor, error) {
	switch k := item.(type) {
	case *Tensor:
		eval.Incref(k)
		return k, nil
	case *eval.List:
		shape, vals, err := b.listIndex(k)
		if err != nil {
			return nil, err
		}
		made, err := b.newTensor(engine.TensorSpec{Op: "tensor", Shape: shape, DType: engine.DTypes["int64"], Device: t.T.Device(), Values: vals})
		if err != nil {
			return nil, err
		}
		return made.(*Tensor), nil
	}
	return nil, b.notModelled("indexing a tensor with " + b.in.TypeName(item))
}
