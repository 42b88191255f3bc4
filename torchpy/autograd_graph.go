package torchpy

import "github.com/gpumemrepl/gpumemrepl/python/eval"

// autogradGraphModule is torch.autograd.graph: the Node class of grad_fn
// objects, the switch of the AccumulateGrad stream warning
// (testdata/pyrules/streams_warn_off.py), and the saved-tensor hooks
// (autograd_graph.py; autograd_function.go runs them).
func (b *Binding) autogradGraphModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.autograd.graph")
	m.Set(in, "Node", gradFnType)
	b.fn(m, "set_warn_on_accumulate_grad_stream_mismatch", "set_warn_on_accumulate_grad_stream_mismatch(enabled): whether backward warns when a leaf's AccumulateGrad takes a gradient made on another stream", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := in.ArgSpec("set_warn_on_accumulate_grad_stream_mismatch", args, kw, 1, "enabled")
		if err != nil {
			return nil, err
		}
		on, err := in.Truth(a[0])
		if err != nil {
			return nil, err
		}
		b.accWarnOff = !on
		return eval.None, nil
	})
	for _, name := range []string{"register_multi_grad_hook", "allow_mutation_on_saved_tensors"} {
		b.fn(m, name, name+"(...): not modelled", func(in *eval.Interp, _ eval.Value, _ []eval.Value, _ []eval.KeywordArg) (eval.Value, error) {
			return nil, b.notModelled("torch.autograd.graph." + name)
		})
	}
	b.savedHooksFunctions(m)
	return m, b.execInto(m, "<torch.autograd.graph>", autogradGraphSource)
}
