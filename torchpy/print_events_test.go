package torchpy_test

import (
	"path/filepath"
	"testing"
)

// TestPrintCUDAEvents: printing CUDA tensors whose values the tool knows
// (every dtype, 0-d, empty, summarized, strided views, grad, str, repr,
// f-strings and format) makes the allocations and frees of PyTorch's
// formatter, in its order, and prints what PyTorch printed; so do the
// prints of the legacy types and of the arithmetic rules.
func TestPrintCUDAEvents(t *testing.T) {
	checkRules(t, "print_cuda", "ops_legacy", "ops_floordiv_addmm")
}

// TestPrintUnknownCUDAEvents: an integer or bool tensor whose values the
// tool does not know still prints with PyTorch's allocations (by its
// layout), up to the first floating one, whose print is refused.
func TestPrintUnknownCUDAEvents(t *testing.T) {
	s, _ := runRule(t, "print_cuda_unknown")
	want, lines := recordedEvents(t, filepath.Join("..", "testdata", "pyrules", "print_cuda_unknown.jsonl"))
	var got []event
	for _, e := range s.History(0) {
		if counted[e.Action] {
			got = append(got, event{e.Action, e.Size})
		}
	}
	const refused = 12 // print(n), n = torch.randn(4, device='cuda')
	for i, w := range want {
		if lines[i] >= refused {
			break
		}
		if i >= len(got) || got[i] != w {
			t.Fatalf("event %d (line %d): PyTorch's %s %d, the tool's %v", i, lines[i], w.action, w.size, got[i:min(i+1, len(got))])
		}
	}
}

// TestEmbeddingBagReprPrintsWeight: nn.EmbeddingBag's extra_repr
// formats the repr of every attribute, so printing the module prints
// its weight where it is, with the formatter's temporaries on its GPU
// (zoo_layers.py line 50), as many as printing the weight alone; the
// step's note, which describes a module bound at top level by the same
// extra_repr, takes none.
func TestEmbeddingBagReprPrintsWeight(t *testing.T) {
	_, printed := runSnippet(t, `import torch
import torch.nn as nn
n = lambda: torch.cuda.memory_stats()['allocation.all.allocated']
bag = nn.EmbeddingBag(10131, 16, mode='sum', device='cuda')
with torch.no_grad():
    bag.weight.fill_(1.5)
a = n()
alias = bag
b = n()
s = repr(bag.weight)
c = n()
s = repr(bag)
d = n()
print(b - a, c - b, d - c)
`)
	if got, want := printed[14], "0 28 28\n"; got != want {
		t.Errorf("allocations by the note, the weight's print and the module's: %q, want %q", got, want)
	}
}
