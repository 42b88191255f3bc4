package torchpy

import "github.com/gpumemrepl/gpumemrepl/python/eval"

// futureModule is torch.__future__: whether Module._apply (to, cuda,
// cpu, half...) gives the module new Parameter objects
// (set_overwrite_module_params_on_conversion(True)) or swaps each
// parameter's data under the same object (the default).
func (b *Binding) futureModule(in *eval.Interp) *eval.ModuleObj {
	m := in.NewModule("torch.__future__")
	b.fn(m, "set_overwrite_module_params_on_conversion", "set_overwrite_module_params_on_conversion(value)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		var v bool
		if err := in.UnpackDefArgs("set_overwrite_module_params_on_conversion", args, kw, "value", &v); err != nil {
			return nil, err
		}
		b.overwriteParams = v
		return eval.None, nil
	})
	b.fn(m, "get_overwrite_module_params_on_conversion", "get_overwrite_module_params_on_conversion()", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if err := in.UnpackDefArgs("get_overwrite_module_params_on_conversion", args, kw); err != nil {
			return nil, err
		}
		return b.overwriteParams, nil
	})
	return m
}
