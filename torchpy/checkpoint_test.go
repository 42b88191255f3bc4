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

// TestCheckpointUnderAutocast runs ckpt_autocast.py: checkpointing under
// bf16 and fp16 autocast, both variants, a block checkpointed twice in a
// row (its second forward finds the weights' casts in the cache, its
// rerun makes them), a loss outside the block. Backward reruns the
// function under the forward's autocast setting in a region of its own,
// whose cache goes when it exits (a stopped rerun's too), and a node
// lets go of its recomputed tensors last saved first. Every allocation,
// segment and free as PyTorch's, in order, and every print; only a run
// of frees of casts alone is compared as a set: the cache frees its
// casts in the order of a hash table of their addresses
// (TestAttentionUnderAutocast says why).
func TestCheckpointUnderAutocast(t *testing.T) {
	s, printed := runRule(t, "ckpt_autocast")
	path := filepath.Join("..", "testdata", "pyrules", "ckpt_autocast.jsonl")
	got := sessionEvents(s)
	want, lines := recordedEvents(t, path)
	// the casts' sizes: the biases', the weights' and x's, in 16 bits
	casts := map[uint64]bool{2048: true, 8192: true, 8 << 20: true, 512 << 10: true}
	sorted, wantSorted := freesAsSets(got), freesAsSets(want)
	for i := range min(len(got), len(want)) {
		if got[i] == want[i] || sorted[i] == wantSorted[i] && casts[want[i].size] && want[i].action == "free_completed" {
			continue
		}
		t.Fatalf("event %d (line %d): %s %d, PyTorch's %s %d", i, lines[i], got[i].action, got[i].size, want[i].action, want[i].size)
	}
	if len(got) != len(want) {
		t.Errorf("%d events, PyTorch's %d", len(got), len(want))
	}
	checkPrinted(t, printed, path)
}

// TestCheckpointRecomputedInAutocastBlock: a non-reentrant region whose
// backward runs inside the torch.autocast block of its forward would be
// recomputed with the forward's casts still in the cast cache (found
// there, not made again), which no recording shows: refused, saying so.
// Outside the block it runs.
func TestCheckpointRecomputedInAutocastBlock(t *testing.T) {
	src := "import torch\nfrom torch.utils.checkpoint import checkpoint\n" +
		"lin = torch.nn.Linear(64, 64).cuda()\nx = torch.randn(8, 64, device='cuda', requires_grad=True)\n" +
		"with torch.autocast('cuda', dtype=torch.bfloat16):\n" +
		"    y = checkpoint(lin, x, use_reentrant=False)\n" +
		"    y.float().sum().backward()\n" +
		"with torch.autocast('cuda', dtype=torch.bfloat16):\n" +
		"    y = checkpoint(lin, x, use_reentrant=False)\n" +
		"y.float().sum().backward()\nprint(x.grad.shape)\n"
	want := "error: 7:5: NotImplementedError: recomputing a checkpointed region under autocast while the cast cache holds casts (backward inside the torch.autocast block) is not modelled by gpumemrepl\ntorch.Size([8, 64])\n"
	if got := runSource(t, 1, src); got != want {
		t.Errorf("printed\n%s\nwant\n%s", got, want)
	}
}
