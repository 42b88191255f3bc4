package torchpy

import (
	"math/big"

	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// torch.cuda's device arguments and PyTorch's answers to an index it
// cannot take, which differ by function (testdata/pyrules/
// ops_cuda_errors.py and ops_cuda_warn.py).

// AcceleratorErrorType is torch.AcceleratorError (a RuntimeError): a
// CUDA call that failed.
var AcceleratorErrorType = eval.NewExceptionClass("AcceleratorError", "torch", eval.RuntimeErrorType)

// invalidOrdinal is the AcceleratorError of a CUDA call on a device
// that is not there, as PyTorch 2.11 words it.
const invalidOrdinal = "CUDA error: invalid device ordinal\nGPU device may be out of range, do you have enough GPUs?\nCUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.\nFor debugging consider passing CUDA_LAUNCH_BLOCKING=1\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.\n"

// indexUse is what a torch.cuda function does with its device index,
// which decides its error for one that is not there.
type indexUse int

const (
	// runtimeIndex: a CUDA call (synchronize, mem_get_info, set_device):
	// AcceleratorError; a negative index is the current device.
	runtimeIndex indexUse = iota
	// statsIndex: the caching allocator's statistics: RuntimeError.
	statsIndex
	// propertiesIndex: the device's properties: AssertionError.
	propertiesIndex
)

// cudaIndex reads torch.cuda's device argument (device=None: the
// current one) for a CUDA call.
func (b *Binding) cudaIndex(args []eval.Value, kw []eval.KeywordArg) (int, error) {
	return b.cudaIndexFor(args, kw, runtimeIndex)
}

// cudaIndexFor reads torch.cuda's device argument as PyTorch's
// _get_device_index(device, optional=True) does -- a str or a
// torch.device must be a CUDA one (its index, or the current device),
// an int is the index, anything else (None, a float) is the current
// device -- and answers an index that is not there as use says.
func (b *Binding) cudaIndexFor(args []eval.Value, kw []eval.KeywordArg, use indexUse) (int, error) {
	v := deviceValue(args, kw)
	cur := b.S.CurrentDevice()
	var i int64
	switch x := v.(type) {
	case *big.Int:
		if use == statsIndex {
			return 0, b.in.Raise(eval.RuntimeErrorType, "Overflow when unpacking DeviceIndex")
		}
		i = -1 << 62 // past any device
		if x.Sign() > 0 {
			i = 1 << 62
		}
	case int64:
		i = x
	case string, *DeviceObj:
		d, err := b.parseDevice(v)
		if err != nil {
			return 0, err
		}
		if !d.CUDA {
			return 0, b.in.Raise(eval.ValueErrorType, "Expected a cuda device, but got: %s", d)
		}
		i = int64(d.Index)
	default:
		return cur, nil
	}
	if i >= 0 && i < int64(b.S.DeviceCount()) {
		return int(i), nil
	}
	switch {
	case use == propertiesIndex:
		return 0, b.in.Raise(eval.AssertionErrorType, "Invalid device id")
	case use == statsIndex:
		return 0, b.in.Raise(eval.RuntimeErrorType, "Invalid device argument \t: did you call init?")
	case i < 0:
		return cur, nil
	}
	return 0, b.in.Raise(AcceleratorErrorType, "%s", invalidOrdinal)
}

// deviceValue is a torch.cuda function's device argument, given by
// position or keyword (nil when not given).
func deviceValue(args []eval.Value, kw []eval.KeywordArg) eval.Value {
	if len(args) > 0 {
		return args[0]
	}
	return eval.Kwarg(kw, "device")
}

// negativeIndex reports whether v is a negative int.
func negativeIndex(v eval.Value) bool {
	switch x := v.(type) {
	case int64:
		return x < 0
	case *big.Int:
		return x.Sign() < 0
	}
	return false
}
