package torchpy

import (
	_ "embed"

	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// torch.nn's submodules written in Python, each the source of its
// module: torch.nn.attention (SDPBackend, sdpa_kernel: lib/nn_sdpa.py)
// and torch.nn.parallel (DataParallel, DistributedDataParallel,
// data_parallel in one process: lib/nn_parallel.py), whose DataParallel
// torch.nn also names.

var (
	//go:embed lib/nn_sdpa.py
	sdpaSource string
	//go:embed lib/nn_parallel.py
	parallelSource string
)

func init() {
	layerFamilies = append(layerFamilies, func(b *Binding, in *eval.Interp, nn *eval.ModuleObj) error {
		for _, sub := range []struct{ name, src string }{{"attention", sdpaSource}, {"parallel", parallelSource}} {
			m := in.NewModule("torch.nn." + sub.name)
			m.Set(in, "Module", ModuleType) // the layers' base; the source deletes the name
			if err := b.execInto(m, "<torch.nn."+sub.name+">", sub.src); err != nil {
				in.Decref(m)
				return err
			}
			in.AddModule("torch.nn."+sub.name, m)
			nn.Set(in, sub.name, m)
			if sub.name == "parallel" {
				dp, _ := m.Dict.GetStr("DataParallel")
				nn.Set(in, "DataParallel", dp)
			}
			in.Decref(m)
		}
		return nil
	})
}
