package torchpy_test

import (
	"path/filepath"
	"strings"
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
			checkEvents(t, s, filepath.Join("..", "testdata", "pyrules", name+".jsonl"))
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
			checkPrinted(t, printed, filepath.Join("..", "testdata", "pyrules", name+".jsonl"))
		})
	}
}

// TestCheckpointWarnsAsPyTorch: checkpoint_sequential without
// use_reentrant writes PyTorch 2.11's UserWarning, with the calling line
// and its source, as the published experiment's recording shows it on
// stderr.
func TestCheckpointWarnsAsPyTorch(t *testing.T) {
	script := filepath.Join("..", "testdata", "experiments", "book_checkpoint_sequential.py")
	got, want := scriptStderr(t, script)
	// the recording ran the script by its path from the repository's
	// root; a script run as python3 FILE runs is named by its absolute
	// path, as the tool names it
	abs, err := filepath.Abs(script)
	if err != nil {
		t.Fatal(err)
	}
	wantText := strings.ReplaceAll(want, "testdata/experiments/book_checkpoint_sequential.py", abs)
	if !strings.HasPrefix(got, wantText) {
		t.Errorf("stderr begins\n%s\nwant\n%s", got, wantText)
	}
}
