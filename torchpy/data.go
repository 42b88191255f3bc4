package torchpy

import (
	_ "embed"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// dataModule is torch.utils.data, written in Python over the tensor
// ops: Dataset, TensorDataset, Subset, ConcatDataset, random_split, the
// samplers, default_collate and DataLoader, as PyTorch 2.11 runs them in
// the main process, and DistributedSampler (in
// torch.utils.data.distributed too). A batch is each sample fetched (dataset[i]), then
// collated (tensors stacked into a new tensor, Python ints and floats
// made int64 and float64 tensors, tuples transposed into lists,
// mappings by key), then pinned when pin_memory=True, and only then
// does the loop's name let go of the batch before it: two batches are
// alive while the next one is made, as in PyTorch. A shuffled order is
// a value the tool does not compute: it iterates in order (the same
// memory) and marks the batches' values as not known. Worker processes
// (num_workers > 0) give the same batches; their own host memory is
// not modelled.
// Its submodule dataloader, where PyTorch defines DataLoader, names the
// same DataLoader and default_collate.
func (b *Binding) dataModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m, err := b.valuesModule(in, "torch.utils.data", dataSource)
	if err != nil {
		return m, err
	}
	// torch.utils.data.distributed, where DistributedSampler lives
	dist := in.NewModule("torch.utils.data.distributed")
	defer in.Decref(dist)
	sampler, _ := m.Dict.GetStr("DistributedSampler")
	dist.Set(in, "DistributedSampler", sampler)
	in.AddModule("torch.utils.data.distributed", dist)
	m.Set(in, "distributed", dist)
	sub := in.NewModule("torch.utils.data.dataloader")
	for _, name := range []string{"DataLoader", "default_collate"} {
		if v, ok := m.Dict.GetStr(name); ok {
			sub.Set(in, name, v)
		}
	}
	in.AddModule("torch.utils.data.dataloader", sub)
	m.Set(in, "dataloader", sub)
	in.Decref(sub)
	return m, nil
}

// valuesModule is the module name written in Python (src) over the
// tensor ops, with _forget_values(t), which makes t's values unknown
// (what a shuffle or an initialiser wrote).
func (b *Binding) valuesModule(in *eval.Interp, name, src string) (*eval.ModuleObj, error) {
	m := in.NewModule(name)
	b.fn(m, "_forget_values", "", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if t, ok := args[0].(*Tensor); ok && t.T != nil {
			b.S.ForgetValues(t.T)
		}
		return eval.None, nil
	})
	fr := in.ModuleFrame("<"+name+">", m.Dict)
	defer in.Release(fr)
	return m, in.ExecSource(fr, "<"+name+">", src)
}

//go:embed lib/utils_data.py
var dataSource string
