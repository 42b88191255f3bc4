package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// Binding is the copy module's Copier for torch's objects: copy.copy and
// copy.deepcopy of tensors, parameters, dtypes and devices, with
// PyTorch's memory rules (engine/deepcopy.go). A module copies as any
// Python object does: its __dict__, so its parameters and buffers each
// as below, in the order the module holds them.
var _ eval.Copier = (*Binding)(nil)

// ShallowCopy is copy.copy: a tensor's copy is a new tensor over the
// same storage (PyTorch rebuilds it from its storage: nothing is
// allocated), a new leaf that requires grad as the original does, with
// no .grad; a parameter's is a parameter over the same data.
func (b *Binding) ShallowCopy(in *eval.Interp, v eval.Value) (eval.Value, bool, error) {
	switch x := v.(type) {
	case *DTypeObj, *DeviceObj:
		eval.Incref(v)
		return v, true, nil
	case *Tensor:
		if x.T == nil {
			return nil, true, in.Raise(eval.RuntimeErrorType, "tensor already released")
		}
		if !x.T.IsLeaf() {
			return nil, true, b.notModelled("copy.copy of a tensor that is not a leaf of its graph")
		}
		c := b.S.Detach(x.T)
		return b.withGradFlag(x, c)
	}
	return nil, false, nil
}

// withGradFlag wraps c, a new leaf made from x, as a parameter when x is
// one, requiring grad when x does.
func (b *Binding) withGradFlag(x *Tensor, c *engine.Tensor) (eval.Value, bool, error) {
	if x.T.RequiresGrad() {
		if err := b.S.SetRequiresGrad(c); err != nil {
			b.S.Release(c)
			return nil, true, b.pyErr(err)
		}
	}
	if x.param {
		return b.newParam(c), true, nil
	}
	return b.wrap(c), true, nil
}

// DeepCopy is copy.deepcopy: a parameter's copy is a clone of its data
// (Parameter.__deepcopy__: no .grad); a tensor's is Tensor.__deepcopy__,
// its storage copied once per call (memo) and its .grad copied too.
func (b *Binding) DeepCopy(in *eval.Interp, v eval.Value, memo *eval.Dict) (eval.Value, bool, error) {
	x, ok := v.(*Tensor)
	if !ok {
		return b.ShallowCopy(in, v) // dtypes and devices are themselves; anything else is not torch's
	}
	if x.T == nil {
		return nil, true, in.Raise(eval.RuntimeErrorType, "tensor already released")
	}
	if x.param {
		data := b.S.Detach(x.T)
		c, err := b.S.Clone(data)
		b.S.Release(data)
		if err != nil {
			return nil, true, b.pyErr(err)
		}
		return b.withGradFlag(x, c)
	}
	c, err := b.deepTensor(in, x.T, memo)
	if err != nil {
		return nil, true, err
	}
	return c, true, nil
}

// deepTensor is Tensor.__deepcopy__ of t: the copy, requires_grad, then
// its .grad's own deep copy set on it.
func (b *Binding) deepTensor(in *eval.Interp, t *engine.Tensor, memo *eval.Dict) (*Tensor, error) {
	key := t.StorageKey()
	var onto *engine.Tensor
	if m, ok := memo.GetStr(key); ok {
		if mt, ok := m.(*Tensor); ok && mt.T != nil {
			onto = mt.T
		}
	}
	nt, err := b.S.DeepCopy(t, onto)
	if err != nil {
		return nil, b.pyErr(err)
	}
	c := b.wrap(nt)
	if onto == nil {
		in.SetStr(memo, key, c)
	}
	if t.RequiresGrad() {
		if err := b.S.SetRequiresGrad(nt); err != nil {
			in.Decref(c)
			return nil, b.pyErr(err)
		}
	}
	if g := b.S.Grad(t); g != nil {
		gc, err := b.deepTensor(in, g, memo)
		b.S.Release(g)
		if err != nil {
			in.Decref(c)
			return nil, err
		}
		err = b.S.SetGrad(nt, gc.T)
		in.Decref(gc)
		if err != nil {
			in.Decref(c)
			return nil, b.pyErr(err)
		}
	}
	return c, nil
}
