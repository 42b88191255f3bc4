package torchpy_test

import "testing"

// TestInitAndClipRules: torch.nn.init and the in-place random fills
// allocate nothing (nn_init.py, checked event by event and print by
// print: gains, fans, PyTorch's errors); clip_grad_norm_ makes the
// norms, their stack and total, and the clip coefficient as PyTorch
// does, foreach or not, gradients of two dtypes the later dtype's
// first (the order of PyTorch's C++ hash map), and clip_grad_value_
// nothing (clip_grad.py, checked event by event and print by print).
func TestInitAndClipRules(t *testing.T) {
	checkRules(t, "nn_init", "clip_grad")
}
