package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/eval"
)

// indexPut is t[key] = value where the key holds advanced indices
// (lists or integer tensors; a bool mask goes to maskAssign): PyTorch's
// index_put_, which writes t where it is, allocating only what it
// needs on t's device (testdata/pyrules/setitem_advanced.py): each list
// made an int64 tensor, in the key's order; a Python number made a 0-d
// tensor of t's dtype; an index tensor on the host copied over; then
// these go, newest first. t[idx] += v reads t[idx] first (a copy),
// adds in place and writes it back through here.
func (b *Binding) indexPut(t *Tensor, items []eval.Value, value eval.Value) error {
	var made []*Tensor
	defer func() {
		for i := len(made) - 1; i >= 0; i-- {
			b.in.Decref(made[i])
		}
	}()
	var host []*Tensor
	for _, item := range items {
		switch k := item.(type) {
		case *eval.List:
			idx, err := b.indexTensor(t, k)
			if err != nil {
				return err
			}
			made = append(made, idx)
		case *Tensor:
			if k.T.DType.Name == "bool" || k.T.DType.Name == "uint8" {
				return b.notModelled("assigning through a bool or uint8 mask beside other indices")
			}
			if k.T.Device() != t.T.Device() {
				host = append(host, k)
			}
		}
	}
	if !t.T.Device().CUDA {
		b.S.WriteInto(t.T)
		return nil
	}
	if _, isTensor := value.(*Tensor); !isTensor {
		v, _ := number(value)
		scalar, err := b.newTensor(engine.TensorSpec{Op: "full", DType: t.T.DType, Device: t.T.Device(), Values: []float64{v}})
		if err != nil {
			return err
		}
		made = append(made, scalar.(*Tensor))
	}
	for _, k := range host {
		moved, err := b.S.To(k.T, t.T.Device())
		if err != nil {
			return b.pyErr(err)
		}
		made = append(made, b.wrap(moved))
	}
	b.S.WriteInto(t.T)
	return nil
}
