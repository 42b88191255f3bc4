package torchpy_test

import (
	"path/filepath"
	"testing"
)

// TestCheckpointEventsInOrder: checkpointed training (pyrules/ckpt_train:
// an MLP with AdamW, the whole model checkpointed and in 2 segments), the
// reentrant variant and checkpoint_sequential in both variants make
// PyTorch's allocations, frees and segments in PyTorch's order: what
// forward keeps, when backward recomputes, when each recomputed tensor
// goes.
func TestCheckpointEventsInOrder(t *testing.T) {
	for _, name := range []string{"ckpt_train", "ckpt_reentrant", "ckpt_sequential"} {
		t.Run(name, func(t *testing.T) {
			s, _ := runRule(t, name)
			checkEvents(t, s, filepath.Join("..", "..", "testdata", "pyrules", name+".jsonl"))
		})
	}
}

// TestCheckpointPrints: the checkpoint rule scripts print what PyTorch
// printed (grad_fn names of both variants and of the default, an output
// that needs no grad, the RNG states' dtypes, shapes and devices).
func TestCheckpointPrints(t *testing.T) {
	for _, name := range []string{"ckpt_block", "ckpt_funcs", "ckpt_reentrant", "ckpt_sequential", "ckpt_train"} {
		t.Run(name, func(t *testing.T) {
			_, printed := runRule(t, name)
			checkPrinted(t, printed, filepath.Join("..", "..", "testdata", "pyrules", name+".jsonl"))
		})
	}
}
