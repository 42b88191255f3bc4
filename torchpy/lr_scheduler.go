package torchpy

import (
	_ "embed"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// lrSchedulerModule is torch.optim.lr_scheduler (StepLR, MultiStepLR,
// ExponentialLR, ConstantLR, LambdaLR, CosineAnnealingLR, LinearLR,
// OneCycleLR; the others say they are not modelled): schedulers change the
// numbers in an optimizer's param_groups and allocate nothing, so they
// are written in Python over param_groups, with PyTorch 2.11's formulas
// (the chainable ones where PyTorch's get_lr is chainable, so the floats
// are PyTorch's).
func (b *Binding) lrSchedulerModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.optim.lr_scheduler")
	fr := in.ModuleFrame("<lr_scheduler>", m.Dict)
	defer in.Release(fr)
	return m, in.ExecSource(fr, "<lr_scheduler>", lrSchedulerSource)
}

//go:embed lib/lr_scheduler.py
var lrSchedulerSource string
