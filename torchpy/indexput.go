package torchpy

import (
	"cmp"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// indexPut is t[key] = value where the key holds advanced indices
// (lists or integer tensors; a bool mask alone goes to maskAssign, one
// beside other items is its nonzero's columns, engine.MaskColumns, or
// with a number masked_fill_, maskFill): PyTorch's
// index_put_, which writes t where it is, allocating only what it
// needs on t's device (testdata/pyrules/setitem_advanced.py): each list
// made an int64 tensor, in the key's order; a Python number made a 0-d
// tensor of t's dtype; the indices made ready on t's device (a host
// index copied over, indices of different shapes expanded:
// engine.IndexOperands); then those go, the number's tensor, the lists'
// in order (index_errors_broadcast.py, index_broadcast.py). The key's ints,
// slices and None are views of t, written where they are; the indexing
// result's shape is engine.AdvancedShape's (index_mixed.py). t[idx] += v
// reads t[idx] first (a copy), adds in place and writes it back through
// here. PyTorch's errors (index_errors.py): too many indices, first;
// indices that do not broadcast together, once the lists and the
// number's tensor exist; a value that does not broadcast to the
// indexing result, once the host indices are copied; an index out of
// range, before anything is made (engine.CheckIndexRange).
func (b *Binding) indexPut(t *Tensor, items []eval.Value, tuple bool, value eval.Value) error {
	if err := b.checkMasks(t, items); err != nil {
		return err
	}
	if n := len(t.T.Shape); usedDims(items) > n {
		return b.in.Raise(eval.IndexErrorType, "too many indices for tensor of dimension %d", n)
	}
	if _, isTensor := value.(*Tensor); !isTensor {
		if i := maskFill(t, items); i >= 0 {
			return b.pyErr(b.S.MaskFill(t.T, items[i].(*Tensor).T, itemDims(t, items)[i]))
		}
		if slices.ContainsFunc(items, isMask) && len(slices.DeleteFunc(slices.Clone(items), func(v eval.Value) bool { return !isIndexItem(v) })) > 1 {
			return b.notModelled("assigning a number through a bool mask beside an index tensor (index_put_, not recorded)")
		}
	}
	specs, err := b.indexSpecs(t, items)
	if err != nil {
		return err
	}
	shape, shapeErr := engine.IndexShape(specs)
	var valueErr error
	if v, ok := value.(*Tensor); ok && shapeErr == nil {
		view, dims, err := b.basicView(t, items, tuple)
		if err != nil {
			return err
		}
		x := t.T
		if view != nil {
			x = view
		}
		valueErr = engine.ValueShapeError(v.T.Shape, engine.AdvancedShape(x.Shape, dims, shape))
		if view != nil {
			b.S.Release(view)
		}
	}
	if shapeErr == nil && valueErr == nil {
		if err := b.pyErr(b.S.CheckIndexRange(t.T, specs)); err != nil {
			return err
		}
	}
	// what the write makes goes in PyTorch's order: the indices made
	// ready on t's device (engine.IndexOperands), the number's tensor,
	// the lists' tensors in the key's order
	var lists []*Tensor
	var scalar *Tensor
	defer func() {
		for _, t := range append([]*Tensor{scalar}, lists...) {
			if t != nil {
				b.in.Decref(t)
			}
		}
	}()
	var idxs []*engine.Tensor
	for _, item := range items {
		switch k := item.(type) {
		case *eval.List:
			idx, err := b.indexTensor(t, k)
			if err != nil {
				return err
			}
			lists, idxs = append(lists, idx), append(idxs, idx.T)
		case *Tensor:
			idxs = append(idxs, k.T)
		}
	}
	if !t.T.Device().CUDA {
		if err := cmp.Or(shapeErr, valueErr); err != nil {
			return b.pyErr(err)
		}
		b.S.WriteInto(t.T)
		return nil
	}
	if _, isTensor := value.(*Tensor); !isTensor {
		v, _ := number(value)
		made, err := b.newTensor(engine.TensorSpec{Op: "full", DType: t.T.DType, Device: t.T.Device(), Values: []float64{v}})
		if err != nil {
			return err
		}
		scalar = made.(*Tensor)
	}
	if shapeErr != nil {
		return b.pyErr(shapeErr)
	}
	dims := make([]int, len(specs))
	for i, sp := range specs {
		dims[i] = sp.Dim
	}
	cols, drop, err := b.S.MaskColumns(t.T, dims, idxs)
	if err != nil {
		return b.pyErr(err)
	}
	defer drop()
	release, err := b.S.IndexOperands(t.T, cols)
	if err != nil {
		return b.pyErr(err)
	}
	defer release()
	if valueErr != nil {
		return b.pyErr(valueErr)
	}
	b.S.WriteInto(t.T)
	return nil
}

// maskFill is the place among a key's items of its one advanced item
// when that is a bool mask on t's device, beside ints, slices, None and
// ...: t[key] = number is then PyTorch's masked_fill_ (engine.MaskFill:
// index_mask_mixed.py lines 62, 63 and 67; a mask of another device goes
// through index_put_, line 69); -1 otherwise.
func maskFill(t *Tensor, items []eval.Value) int {
	at := -1
	for i, item := range items {
		if isIndexItem(item) {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	if at < 0 || !isMask(items[at]) || items[at].(*Tensor).T.Device() != t.T.Device() {
		return -1
	}
	return at
}

// isMask reports whether an item of an index key is a bool mask.
func isMask(v eval.Value) bool {
	k, ok := v.(*Tensor)
	return ok && k.T.DType.Name == "bool"
}
