package torchpy

import "github.com/gpumemrepl/gpumemrepl/repl/eval"

// torch.return_types: the named tuples of ops that return several
// tensors (max and min along a dimension: values, indices), written in
// Python. They index, unpack and print as PyTorch's do, and free their
// tensors in order, values first, as PyTorch's structseq does
// (testdata/pyrules/ops_div.py's del); isinstance(r, tuple) is False
// here.

func (b *Binding) returnTypesModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.return_types")
	fr := in.ModuleFrame("<torch.return_types>", m.Dict)
	defer in.Release(fr)
	return m, in.ExecSource(fr, "<torch.return_types>", returnTypesSource)
}

const returnTypesSource = `
class _ValuesIndices:
    def __init__(self, values, indices):
        self.values = values
        self.indices = indices

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return (self.values, self.indices)[i]

    def __iter__(self):
        return iter((self.values, self.indices))

    def __repr__(self):
        return f'torch.return_types.{type(self).__name__}(\nvalues={self.values!r},\nindices={self.indices!r})'


class max(_ValuesIndices):
    pass


class min(_ValuesIndices):
    pass
`

// namedTuple is torch.return_types.name(*items), taking over the
// references in items.
func (b *Binding) namedTuple(name string, items []eval.Value) (eval.Value, error) {
	defer func() {
		for _, v := range items {
			b.in.Decref(v)
		}
	}()
	m, err := b.in.Import("torch.return_types")
	if err != nil {
		return nil, err
	}
	cls, err := b.in.GetAttr(m, name)
	if err != nil {
		return nil, err
	}
	defer b.in.Decref(cls)
	return b.in.Call(cls, items, nil)
}
