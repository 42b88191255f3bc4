package torchpy_test

import (
	"cmp"
	"path/filepath"
	"slices"
	"testing"
)

// TestConvRules runs the convolutions' rule script on the simulated
// H200: every allocation, free and segment of the same size as
// PyTorch's, in PyTorch's order (cuDNN's workspaces, the gradients, the
// bias's sum, the dense copies of a broadcast gradient), and what each
// statement printed.
func TestConvRules(t *testing.T) {
	checkRules(t, "conv_layers")
}

// TestTrainCNNEvents runs issue 15's CNN (Conv2d, BatchNorm2d, ReLU,
// MaxPool2d; plain, bf16 autocast, checkpointed, no_grad,
// inference_mode) and checks its allocator events against PyTorch's,
// in order, except that the frees of one run of frees are compared as
// a set: leaving autocast frees the cached casts of the biases in the
// order of PyTorch's hash map of them (by address), 128, 64 then 20
// bytes here, where the tool frees them in the order they came.
func TestTrainCNNEvents(t *testing.T) {
	checkModelEvents(t, "train_cnn", counted)
}

// checkModelEvents runs testdata/models/NAME.py and checks what each
// statement printed and its allocator events of the actions in keep
// against PyTorch's, in order, each run of frees compared as a set.
func checkModelEvents(t *testing.T, name string, keep map[string]bool) {
	path := filepath.Join("..", "testdata", "models", name)
	s, printed := runScript(t, path+".py")
	checkPrinted(t, printed, path+".jsonl")
	var got []event
	for _, e := range s.History(0) {
		if keep[e.Action] {
			got = append(got, event{e.Action, e.Size})
		}
	}
	all, allLines := recordedEvents(t, path+".jsonl")
	var want []event
	var lines []int
	for i, e := range all {
		if keep[e.action] {
			want, lines = append(want, e), append(lines, allLines[i])
		}
	}
	got, want = freesSorted(got), freesSorted(want)
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("event %d (line %d): %s %d, PyTorch's %s %d", i, lines[i], got[i].action, got[i].size, want[i].action, want[i].size)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d events, PyTorch's %d", len(got), len(want))
	}
}

// freesSorted is evs with each run of consecutive frees sorted by size.
func freesSorted(evs []event) []event {
	out := slices.Clone(evs)
	for i := 0; i < len(out); {
		j := i
		for j < len(out) && out[j].action == "free_completed" {
			j++
		}
		slices.SortFunc(out[i:j], func(a, b event) int { return cmp.Compare(a.size, b.size) })
		i = max(j, i+1)
	}
	return out
}
