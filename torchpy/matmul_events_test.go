package torchpy_test

import "testing"

// TestBatchedMatmulRules: matmul of batches of more than 3 dimensions,
// strided and broadcast batches, a matrix by a batch (ops_matmul_nd.py:
// attention written by hand, as nanoGPT's), and scaled_dot_product_
// attention's math backend built of those ops (tfm_sdpa_math.py: 3-d
// inputs, float64, a strided last dimension; mT, mH and H) make
// PyTorch's allocations and frees in PyTorch's order, and print what
// PyTorch printed (strides, grad_fn names).
func TestBatchedMatmulRules(t *testing.T) {
	checkRules(t, "ops_matmul_nd", "tfm_sdpa_math")
}
