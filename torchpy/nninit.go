package torchpy

import (
	_ "embed"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// initModule is torch.nn.init, written in Python over the tensors'
// in-place fills: each function fills its tensor where it is, under
// no_grad, and returns it (nothing allocated: testdata/pyrules/
// nn_init.py); the fans and gains are PyTorch's arithmetic, with its
// errors. orthogonal_ and sparse_ make temporaries that were not
// recorded: they say so.
func (b *Binding) initModule(in *eval.Interp) (*eval.ModuleObj, error) {
	return b.valuesModule(in, "torch.nn.init", initSource)
}

//go:embed lib/nn_init.py
var initSource string

// utilsModule is torch.nn.utils: clip_grad_norm_ (the gradients' norms
// and the clip coefficient as PyTorch makes them: engine.ClipGradNorm)
// and clip_grad_value_ (in-place clamps, no memory), both under
// no_grad; skip_init (the module made on the meta device, then
// to_empty); parameters_to_vector and vector_to_parameters say they are
// not modelled.
func (b *Binding) utilsModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.nn.utils")
	b.fn(m, "_clip_grad_norm", "", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		var grads []*engine.Tensor
		l, _ := args[0].(*eval.List)
		for _, v := range l.Items() {
			grads = append(grads, v.(*Tensor).T)
		}
		p, _ := number(args[1])
		foreach, _ := args[2].(bool)
		total, err := b.S.ClipGradNorm(grads, p, foreach)
		if err != nil {
			return nil, b.pyErr(err)
		}
		return b.wrap(total), nil
	})
	fr := in.ModuleFrame("<torch.nn.utils>", m.Dict)
	defer in.Release(fr)
	if err := in.ExecSource(fr, "<torch.nn.utils>", utilsSource); err != nil {
		return nil, err
	}
	r := in.NewModule("torch.nn.utils.rnn")
	defer in.Decref(r)
	if err := b.execInto(r, "<torch.nn.utils.rnn>", rnnUtilsSource); err != nil {
		return nil, err
	}
	in.AddModule("torch.nn.utils.rnn", r)
	m.Set(in, "rnn", r)
	return m, nil
}

//go:embed lib/nn_utils.py
var utilsSource string
