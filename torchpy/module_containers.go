package torchpy

import (
	_ "embed"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// containerLayers declares, in the torch.nn module m, the containers
// and the parameterless layers, written in Python over nn.Module as
// PyTorch writes them (so their memory is that of the tensor ops they
// call): Sequential, ModuleList, ModuleDict, ParameterList,
// ParameterDict (a tensor put in one becomes a Parameter over the same
// storage), Identity, Flatten, Tanh,
// Sigmoid, SiLU, LeakyReLU, load_state_dict's _IncompatibleKeys and
// the hooks' RemovableHandle.
func (b *Binding) containerLayers(in *eval.Interp, m *eval.ModuleObj) error {
	fr := in.ModuleFrame("<torch.nn>", m.Dict)
	defer in.Release(fr)
	return in.ExecSource(fr, "<torch.nn>", containerSource+hookSource)
}

//go:embed lib/nn_containers.py
var containerSource string
