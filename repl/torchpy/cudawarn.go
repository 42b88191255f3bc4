package torchpy

import (
	"fmt"
	"math/big"

	"github.com/gpumemrepl/gpumemrepl/repl/eval"
)

// PyTorch's deprecated torch.cuda names and its answers to device
// indices it cannot take (testdata/pyrules/ops_cuda_warn.py; its .stderr
// is what plain python3 printed).

// renamed are torch.cuda's deprecated memory statistics and their new
// names: each gives the new one's figure after a FutureWarning.
var renamed = map[string]string{
	"memory_cached":     "memory_reserved",
	"max_memory_cached": "max_memory_reserved",
}

// renamedWarning is the FutureWarning of a deprecated torch.cuda name.
func renamedWarning(old string) string {
	return fmt.Sprintf("`torch.cuda.%s` has been renamed to `torch.cuda.%s`", old, renamed[old])
}

// checkDeviceIndex answers a device argument PyTorch rejects before it
// reads it as a device: an int past int64 does not fit a DeviceIndex
// (the memory statistics); for the device's properties (validIDs), an
// int past the last device is an invalid id.
func (b *Binding) checkDeviceIndex(args []eval.Value, kw []eval.KeywordArg, validIDs bool) error {
	v := eval.Kwarg(kw, "device")
	if len(args) > 0 {
		v = args[0]
	}
	switch n := v.(type) {
	case *big.Int:
		if validIDs {
			return b.in.Raise(eval.AssertionErrorType, "Invalid device id")
		}
		return b.in.Raise(eval.RuntimeErrorType, "Overflow when unpacking DeviceIndex")
	case int64:
		if validIDs && n >= int64(b.S.DeviceCount()) {
			return b.in.Raise(eval.AssertionErrorType, "Invalid device id")
		}
	}
	return nil
}
