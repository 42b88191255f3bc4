package torchpy_test

import (
	"cmp"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// TestAttentionRules runs nn.MultiheadAttention's rule scripts
// (testdata/pyrules/mha_*.py) on the simulated H200: every allocation,
// free and segment of the same size as PyTorch's, in PyTorch's order,
// and each statement prints what it printed under PyTorch.
func TestAttentionRules(t *testing.T) {
	for _, name := range []string{"mha_self", "mha_dropout", "mha_masks", "mha_cross", "mha_fast"} {
		t.Run(name, func(t *testing.T) {
			s, printed := runRule(t, name)
			path := filepath.Join("..", "testdata", "pyrules", name+".jsonl")
			checkEvents(t, s, path)
			checkPrinted(t, printed, path)
		})
	}
}

// TestAttentionUnderAutocast runs mha_bf16.py, MultiheadAttention under
// bf16 autocast: every statement's events as PyTorch's, but for the
// frees that end a statement, compared as a set. At a region's exit the
// autocast cache frees its casts in the order of a hash table keyed by
// their host addresses (ska::flat_hash_map over TensorImpl pointers),
// which nothing in the script decides: the tool frees them in the order
// they were made.
func TestAttentionUnderAutocast(t *testing.T) {
	s, printed := runRule(t, "mha_bf16")
	path := filepath.Join("..", "testdata", "pyrules", "mha_bf16.jsonl")
	checkPrinted(t, printed, path)
	checkStatementEvents(t, s, path)
}

// TestEncoderLayerRules runs nn.TransformerEncoderLayer's rule scripts
// whole: tfm_encoder_fast.py (the eval fast path, the modules' path,
// training and backward under autocast) and tfm_encoder.py (post- and
// pre-norm training forward and backward; in the pre-norm forward
// CPython frees _sa_block's argument when it rebinds x, the frame being
// its only owner: pyrules/call_args). Each statement's events as
// PyTorch's (its closing frees as a set, as TestAttentionUnderAutocast
// says why), and its prints.
func TestEncoderLayerRules(t *testing.T) {
	for _, name := range []string{"tfm_encoder_fast", "tfm_encoder"} {
		t.Run(name, func(t *testing.T) {
			s, printed := runRule(t, name)
			path := filepath.Join("..", "testdata", "pyrules", name+".jsonl")
			checkStatementEvents(t, s, path)
			checkPrinted(t, printed, path)
		})
	}
}

// checkStatementEvents compares the tool's allocator events with a
// recording's, statement by statement: the same events in the same
// order, but for the frees that end a statement, compared as a set.
func checkStatementEvents(t *testing.T, s *engine.Session, path string) {
	t.Helper()
	got := sessionEvents(s)
	want, lines := recordedEvents(t, path)
	if len(got) != len(want) {
		t.Fatalf("%d events, PyTorch's %d", len(got), len(want))
	}
	for i := 0; i < len(want); {
		j := i
		for j < len(want) && lines[j] == lines[i] {
			j++
		}
		if !slices.Equal(trailingFreesSorted(got[i:j]), trailingFreesSorted(want[i:j])) {
			t.Errorf("line %d: events %v, PyTorch's %v", lines[i], got[i:j], want[i:j])
		}
		i = j
	}
}

// trailingFreesSorted is a statement's events with the frees that end it
// sorted by size.
func trailingFreesSorted(evs []event) []event {
	evs = slices.Clone(evs)
	k := len(evs)
	for k > 0 && evs[k-1].action == "free_completed" {
		k--
	}
	slices.SortFunc(evs[k:], func(a, b event) int { return cmp.Compare(a.size, b.size) })
	return evs
}
