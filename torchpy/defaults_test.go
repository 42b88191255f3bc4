package torchpy_test

import "testing"

// TestDefaultDeviceAndDType runs default_device.py: torch.device blocks
// (nested, with explicit devices inside), set_default_device,
// set_default_dtype and their getters make each tensor and parameter
// where and as PyTorch's did, allocation by allocation, and print what
// PyTorch printed.
func TestDefaultDeviceAndDType(t *testing.T) { checkRules(t, "default_device") }
