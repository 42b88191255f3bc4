package torchpy_test

import (
	"cmp"
	"path/filepath"
	"slices"
	"testing"
)

// TestAutocastEventsInOrder runs the mixed-precision rule scripts on
// the simulated H200 and checks that the caching allocator sees the
// allocations and segments PyTorch's did under torch.autocast and
// GradScaler, of the same sizes, in the same order, and between them
// the same frees. The frees of one run are compared as a set: the cast
// cache is a hash map keyed by address, so the order its copies go in
// when a region exits is not PyTorch's to give (train_mlp.jsonl: the
// bias casts of two layers freed in neither order of their making). The
// session's own teardown after the last statement is left out.
// amp_scaler matches statement by statement but not here: in its first
// backward PyTorch finds a free 16 MiB block for a weight's float32
// gradient where the simulated device makes a segment (and the reverse
// for the next weight), a best-fit choice among the blocks' addresses,
// which the driver placed around a library the host mapped and its own
// allocations (testdata/segments/README.md).
func TestAutocastEventsInOrder(t *testing.T) {
	for _, name := range []string{"amp_linear", "amp_ops", "amp_reductions"} {
		t.Run(name, func(t *testing.T) {
			s, _ := runRule(t, name)
			var got []event
			for _, e := range s.History(0) {
				if counted[e.Action] {
					got = append(got, event{e.Action, e.Size})
				}
			}
			want, _ := recordedEvents(t, filepath.Join("..", "testdata", "pyrules", name+".jsonl"))
			if len(got) < len(want) {
				t.Fatalf("%d events, PyTorch's %d", len(got), len(want))
			}
			for _, e := range got[len(want):] {
				if e.action != "free_completed" {
					t.Fatalf("after the last statement: %s %d", e.action, e.size)
				}
			}
			got, want = freesAsSets(got[:len(want)]), freesAsSets(want)
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("event %d: %s %d, PyTorch's %s %d", i, got[i].action, got[i].size, want[i].action, want[i].size)
				}
			}
		})
	}
}

// freesAsSets sorts each run of consecutive frees by size.
func freesAsSets(evs []event) []event {
	evs = slices.Clone(evs)
	for i := 0; i < len(evs); {
		j := i
		for j < len(evs) && evs[j].action == "free_completed" {
			j++
		}
		slices.SortFunc(evs[i:j], func(a, b event) int { return cmp.Compare(a.size, b.size) })
		i = j + 1
	}
	return evs
}

// TestAutocastPrintsWhatPyTorchPrinted: the rule scripts print the
// dtypes, settings and scales PyTorch printed (torch.is_autocast_enabled,
// torch.get_autocast_dtype, GradScaler.get_scale, outputs' dtypes).
func TestAutocastPrintsWhatPyTorchPrinted(t *testing.T) {
	for _, name := range []string{"amp_linear", "amp_ops", "amp_scaler", "amp_reductions"} {
		t.Run(name, func(t *testing.T) {
			_, printed := runRule(t, name)
			checkPrinted(t, printed, filepath.Join("..", "testdata", "pyrules", name+".jsonl"))
		})
	}
}
