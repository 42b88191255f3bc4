package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/eval"
)

// advancedIndex is t[key] where items[at] is a list of ints or an int64
// tensor and every other item a whole slice (x[idx], x[:, idx]): a list
// becomes an int64 tensor on t's device first, as PyTorch makes it
// (testdata/pyrules/ops_alias.py). A bool mask (the output's size is
// its count of true values, and nonzero's CUB scratch comes with it),
// several index tensors and indices mixed with ints or partial slices
// are not modelled.
func (b *Binding) advancedIndex(t *Tensor, items []eval.Value, at int) (eval.Value, error) {
	for i, k := range items {
		if sl, ok := k.(*eval.SliceObj); i != at && (!ok || sl.Start != eval.None || sl.Stop != eval.None || sl.Step != eval.None) {
			return nil, b.notModelled("advanced indexing mixed with other than whole slices before or after one index")
		}
	}
	var idx *engine.Tensor
	switch k := items[at].(type) {
	case *Tensor:
		if k.T.DType.Name == "bool" || k.T.DType.Name == "uint8" {
			return nil, b.notModelled("indexing a tensor with a bool mask (the output's size is the mask's count of true values; nonzero's CUB scratch)")
		}
		idx = k.T
	case *eval.List:
		shape, vals, kind, err := b.data(k)
		if err != nil {
			return nil, err
		}
		if kind != kindInt {
			return nil, b.notModelled("indexing a tensor with a list of other than ints")
		}
		made, err := b.newTensor(engine.TensorSpec{Op: "tensor", Shape: shape, DType: engine.DTypes["int64"], Device: t.T.Device(), Values: vals})
		if err != nil {
			return nil, err
		}
		defer b.in.Decref(made)
		idx = made.(*Tensor).T
	}
	r, err := b.S.IndexTensor(t.T, at, idx)
	if err != nil {
		return nil, b.pyErr(err)
	}
	return b.wrap(r), nil
}
