package torchpy

import (
	"cmp"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/eval"
)

// indexPut is t[key] = value where the key holds advanced indices
// (lists or integer tensors; a bool mask goes to maskAssign): PyTorch's
// index_put_, which writes t where it is, allocating only what it
// needs on t's device (testdata/pyrules/setitem_advanced.py): each list
// made an int64 tensor, in the key's order; a Python number made a 0-d
// tensor of t's dtype; the indices made ready on t's device (a host
// index copied over, indices of different shapes expanded:
// engine.IndexOperands); then those go, the number's tensor, the lists'
// in order (index_errors_more.py, index_broadcast.py). The key's ints,
// slices and None are views of t, written where they are; the indexing
// result's shape is engine.AdvancedShape's (index_mixed.py). t[idx] += v
// reads t[idx] first (a copy), adds in place and writes it back through
// here. PyTorch's errors (index_errors.py): too many indices, first;
// indices that do not broadcast together, once the lists and the
// number's tensor exist; a value that does not broadcast to the
// indexing result, once the host indices are copied; an index out of
// range, before anything is made (engine.CheckIndexRange).
func (b *Binding) indexPut(t *Tensor, items []eval.Value, tuple bool, value eval.Value) error {
	for _, item := range items {
		if k, ok := item.(*Tensor); ok && (k.T.DType.Name == "bool" || k.T.DType.Name == "uint8") {
			return b.notModelled("assigning through a bool or uint8 mask beside other indices")
		}
	}
	specs, err := b.indexSpecs(t, items)
	if err != nil {
		return err
	}
	if n := len(t.T.Shape); usedDims(items) > n {
		return b.in.Raise(eval.IndexErrorType, "too many indices for tensor of dimension %d", n)
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
	release, err := b.S.IndexOperands(t.T, idxs)
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
