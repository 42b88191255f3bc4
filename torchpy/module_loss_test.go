package torchpy_test

import "testing"

// TestLossRules runs the losses' rule scripts (testdata/pyrules/
// loss_*.py): F.mse_loss, l1_loss, binary_cross_entropy_with_logits,
// cross_entropy, nll_loss and their modules allocate and free, forward
// and backward, what PyTorch 2.11 did on the H200, each of the same
// size, in the same order, and each statement prints what it printed
// (memory figures, grad_fn names, shapes, dtypes, the modules' reprs).
func TestLossRules(t *testing.T) {
	checkRules(t, "loss_mse", "loss_bce", "loss_ce", "loss_modules")
}
