package torchpy

import (
	_ "embed"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// lrSchedulerModule is torch.optim.lr_scheduler (StepLR, MultiStepLR,
// ExponentialLR, ConstantLR, LambdaLR, CosineAnnealingLR, LinearLR,
// OneCycleLR; the others say they are not modelled): schedulers change the
// numbers in an optimizer's param_groups and allocate no device memory, so
// they are written in Python over param_groups, with PyTorch 2.11's
// formulas (the chainable ones where PyTorch's get_lr is chainable, so the
// floats are PyTorch's) and its Python objects. PyTorch's scheduler
// replaces its optimizer's step by a wrapper that marks the optimizer
// stepped (_opt_called); the tool's optimizer keeps that wrapper
// (_set_step_wrapper, _step_wrapper) and marks itself.
func (b *Binding) lrSchedulerModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.optim.lr_scheduler")
	m.Set(in, "Optimizer", OptimizerType)
	b.fn(m, "_step_wrapper", "_step_wrapper(opt): the wrapper of opt.step a scheduler made, or None", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		o, err := schedOptimizer(in, args, kw, 1)
		if err != nil || o.stepWrapper == nil {
			return eval.None, err
		}
		eval.Incref(o.stepWrapper)
		return o.stepWrapper, nil
	})
	b.fn(m, "_set_step_wrapper", "_set_step_wrapper(opt, wrapper)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		o, err := schedOptimizer(in, args, kw, 2)
		if err != nil {
			return nil, err
		}
		eval.Incref(args[1])
		if old := o.stepWrapper; old != nil {
			defer in.Decref(old)
		}
		o.stepWrapper = args[1]
		return eval.None, nil
	})
	b.fn(m, "_opt_called", "_opt_called(opt): whether opt stepped since a scheduler wrapped its step", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		o, err := schedOptimizer(in, args, kw, 1)
		if err != nil {
			return nil, err
		}
		return o.optCalled, nil
	})
	fr := in.ModuleFrame("<lr_scheduler>", m.Dict)
	defer in.Release(fr)
	return m, in.ExecSource(fr, "<lr_scheduler>", lrSchedulerSource)
}

//go:embed lib/lr_scheduler.py
var lrSchedulerSource string

// schedOptimizer is the optimizer a scheduler's helper was given, with n
// arguments in all.
func schedOptimizer(in *eval.Interp, args []eval.Value, kw []eval.KeywordArg, n int) (*Optimizer, error) {
	if len(args) != n || len(kw) > 0 {
		return nil, in.Raise(eval.TypeErrorType, "takes %d arguments", n)
	}
	o, ok := args[0].(*Optimizer)
	if !ok {
		return nil, in.Raise(eval.TypeErrorType, "%s is not an Optimizer", eval.TypeOf(args[0]).Name)
	}
	return o, nil
}
