package torchpy_test

import "testing"

// TestTrainNanoGPTEvents runs nanoGPT's model with its manual attention
// path (q @ k.transpose(-2, -1) over heads split by view and transpose,
// masked_fill, softmax), weight tying, nn.init, bf16 autocast, two
// micro-steps of gradient accumulation, clip_grad_norm_ and fused AdamW
// with decay groups (testdata/models/train_nanogpt.py), and checks every
// print and every allocation and free against PyTorch's, in order, each
// run of frees as a set (as train_cnn's). Segments are left out: the
// allocations are PyTorch's, but where a 1 MiB block lands among the
// small pool's 2 MiB segments follows the addresses the CUDA driver
// gives them, which the simulated device does not reproduce (its
// segments are in address order), so one segment is made two
// allocations later than PyTorch makes it; every statement's allocated
// and reserved bytes still match (python_passing.txt).
func TestTrainNanoGPTEvents(t *testing.T) {
	checkModelEvents(t, "train_nanogpt", map[string]bool{"alloc": true, "free_completed": true})
}
