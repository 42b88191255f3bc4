package torchpy

import (
	_ "embed"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// acceleratorModule is torch.accelerator, PyTorch's device-neutral API
// (the tutorials' device = torch.accelerator.current_accelerator()), over
// torch.cuda: the accelerator is CUDA whenever a GPU, real or simulated,
// is there; its memory functions are torch.cuda's. It is made while torch
// is, so its functions import torch when they run.
func (b *Binding) acceleratorModule(in *eval.Interp) (*eval.ModuleObj, error) {
	m := in.NewModule("torch.accelerator")
	fr := in.ModuleFrame("<torch.accelerator>", m.Dict)
	defer in.Release(fr)
	return m, in.ExecSource(fr, "<torch.accelerator>", acceleratorSource)
}

//go:embed lib/accelerator.py
var acceleratorSource string
