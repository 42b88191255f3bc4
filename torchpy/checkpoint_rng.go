package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// The RNG states checkpoint stashes (preserve_rng_state=True) are CPU
// ByteTensors (testdata/pyrules/ckpt_funcs.py prints their types): the
// CPU generator's of 5056 bytes, and a CUDA device's of 16, on the CPU
// too.
const (
	cpuRNGStateBytes  = 5056
	cudaRNGStateBytes = 16
)

// declareRNGStates declares torch.get_rng_state and, on torch's cuda
// submodule, torch.cuda.get_rng_state: new CPU uint8 tensors of the
// states' sizes (their values are not computed).
func (b *Binding) declareRNGStates(torch *eval.ModuleObj) {
	state := func(name string, n int64) eval.GoFunc {
		return func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			if _, err := in.ArgSpec(name, args, kw, 0, "device"); err != nil {
				return nil, err
			}
			return b.create("empty", []int64{n}, factoryOpts{dtype: engine.DTypes["uint8"], device: engine.CPU}, nil)
		}
	}
	b.fn(torch, "get_rng_state", "get_rng_state(): the CPU generator's state, a CPU uint8 tensor of 5056 bytes", state("get_rng_state", cpuRNGStateBytes))
	if cuda, ok := torch.Dict.GetStr("cuda"); ok {
		if m, ok := cuda.(*eval.ModuleObj); ok {
			b.fn(m, "get_rng_state", "get_rng_state(device='cuda'): a CUDA generator's state, a CPU uint8 tensor of 16 bytes", state("get_rng_state", cudaRNGStateBytes))
		}
	}
}
