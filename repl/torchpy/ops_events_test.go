package torchpy_test

import (
	"path/filepath"
	"testing"
)

// TestOpRulesEventsAndPrints: the op rule scripts recorded with --events
// make PyTorch's allocations and frees in PyTorch's order, and print
// what PyTorch printed (grad_fn names, strides, next_functions).
func TestOpRulesEventsAndPrints(t *testing.T) {
	for _, name := range []string{"ops_split_grad", "ops_div", "ops_einsum", "ops_reduce_grad"} {
		t.Run(name, func(t *testing.T) {
			s, printed := runRule(t, name)
			path := filepath.Join("..", "..", "testdata", "pyrules", name+".jsonl")
			checkEvents(t, s, path)
			checkPrinted(t, printed, path)
		})
	}
}
