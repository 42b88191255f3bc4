package torchpy_test

import (
	"path/filepath"
	"testing"
)

// TestAttentionRules runs nn.MultiheadAttention's rule scripts
// (testdata/pyrules/mha_*.py) on the simulated H200: every allocation,
// free and segment of the same size as PyTorch's, in PyTorch's order,
// and each statement prints what it printed under PyTorch.
func TestAttentionRules(t *testing.T) {
	for _, name := range []string{"mha_self", "mha_dropout", "mha_masks", "mha_cross", "mha_fast"} {
		t.Run(name, func(t *testing.T) {
			s, printed := runRule(t, name)
			path := filepath.Join("..", "..", "testdata", "pyrules", name+".jsonl")
			checkEvents(t, s, path)
			checkPrinted(t, printed, path)
		})
	}
}
