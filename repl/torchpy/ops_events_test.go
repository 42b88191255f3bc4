package torchpy_test

import "testing"

// TestOpRulesEventsAndPrints: the op rule scripts recorded with --events
// make PyTorch's allocations and frees in PyTorch's order, and print
// what PyTorch printed (grad_fn names, strides, next_functions).
func TestOpRulesEventsAndPrints(t *testing.T) {
	checkRules(t, "ops_split_grad", "ops_div", "ops_einsum", "ops_reduce_grad", "ops_to")
}

// TestCUDADeviceArgumentErrors: torch.cuda's functions and torch.device
// answer a device that is not there, or not a CUDA one, in PyTorch's
// words (AssertionError, ValueError, RuntimeError, AcceleratorError by
// function).
func TestCUDADeviceArgumentErrors(t *testing.T) {
	checkRules(t, "ops_cuda_errors")
}
