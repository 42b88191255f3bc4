package torchpy_test

import "testing"

// TestDefaultDeviceAndDType runs default_device.py: torch.device blocks
// (nested, with explicit devices inside), set_default_device,
// set_default_dtype and their getters make each tensor and parameter
// where and as PyTorch's did, allocation by allocation, and print what
// PyTorch printed.
func TestDefaultDeviceAndDType(t *testing.T) { checkRules(t, "default_device") }

// TestMetaDevice runs meta_device.py: meta tensors (printed as PyTorch
// prints them, shapes through ops, modules and backward, no memory), a
// model built under torch.device('meta') and given memory by to_empty,
// Module.to's error, load_state_dict(assign=True), skip_init, *_like
// onto the GPU and accelerate's init_empty_weights written out: each
// allocation and free PyTorch's, in order, each print PyTorch's.
func TestMetaDevice(t *testing.T) { checkRules(t, "meta_device") }
