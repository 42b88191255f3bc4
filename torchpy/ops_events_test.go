// Tests of the torch binding. The oracle is PyTorch 2.11 on the H200: the
// programs of testdata/pyrules recorded with --events, whose allocations
// and frees the binding must make in PyTorch's order, printing what
// PyTorch printed (TestOpRulesEventsAndPrints); testdata/python_passing.txt
// lists those that must match at every statement through the binary
// (cmd/gpumemrepl's TestPythonAsPasted).
package torchpy_test

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"path/filepath"
	"testing"
)

// TestOpRulesEventsAndPrints: the op rule scripts recorded with --events
// make PyTorch's allocations and frees in PyTorch's order, and print
// what PyTorch printed (grad_fn names, strides, next_functions);
// ops_trig's one-input math includes sin_ and rsqrt_ in place (sin_'s
// input cloned first, as its backward reads it); ops_reduce's cumsum of
// 2^26 float32 takes CUB's scan scratch by its recorded formula.
func TestOpRulesEventsAndPrints(t *testing.T) {
	checkRules(t, "ops_split_grad", "ops_div", "ops_einsum", "ops_reduce_grad", "ops_to", "ops_trig", "ops_reduce")
}

// TestCUDADeviceArgumentErrors: torch.cuda's functions and torch.device
// answer a device that is not there, or not a CUDA one, in PyTorch's
// words (AssertionError, ValueError, RuntimeError, AcceleratorError by
// function).
func TestCUDADeviceArgumentErrors(t *testing.T) {
	checkRules(t, "ops_cuda_errors")
}

// TestKnownValuesThroughOps: comparisons, one-input math, clamp, where,
// masked_fill, reductions (a 1-d cumsum through CUB's scan) and a
// branch on known values print what PyTorch printed
// (testdata/pyrules/ops_values_ops.py), in its number formats (its
// figures are checked with the other programs': python_passing.txt; not
// its events, whose sum of a bool tensor is not PyTorch's order).
func TestKnownValuesThroughOps(t *testing.T) {
	_, printed := runRule(t, "ops_values_ops")
	checkPrinted(t, printed, filepath.Join("..", "testdata", "pyrules", "ops_values_ops.jsonl"))
}

// TestIndexingNodesAndCopies: x[...] and x[:, :] are AliasBackward0, x[:]
// a slice; advanced indexing by a list (made an int64 tensor on the GPU
// first, kept by IndexBackward0) or an index tensor, along the first or
// a later dimension, makes one dense copy, and its backward PyTorch's
// allocations up to the bool mask of line 33 (testdata/pyrules/
// ops_alias.py: these lines print what PyTorch printed).
func TestIndexingNodesAndCopies(t *testing.T) {
	s, printed := runRule(t, "ops_alias")
	path := filepath.Join("..", "testdata", "pyrules", "ops_alias.jsonl")
	want := recordedOutput(t, path)
	for _, line := range []int{10, 13, 16, 19, 25, 28} {
		if got := printed[line]; got != objectAddress.ReplaceAllString(want[line], "") {
			t.Errorf("line %d printed %q, PyTorch %q", line, got, want[line])
		}
	}
	checkEventsBefore(t, s, path, 33)
}

// TestIndexBackward: advanced indexing's backward (index_put_ with
// accumulate: the index flattened, a gradient that is not contiguous
// copied, the sort's int64 temporaries and CUB's scratch) by one or two
// index tensors, a list, along a later dimension; index_select and its
// backward; index_add_, index_copy_, scatter_, scatter_add_ in place;
// index_add out of place (testdata/pyrules/ops_index_grad.py,
// ops_index_grad_dense.py); and the backward of index tensors and masks
// whose sort takes several tiles (index_sort_large.py, up to 5,000,000
// indices and 25-bit keys): PyTorch's allocations in its order, and
// every line prints what PyTorch printed.
func TestIndexBackward(t *testing.T) {
	checkRules(t, "ops_index_grad_dense", "ops_index_grad", "index_sort_large")
}

// checkEventsBefore is checkEvents of the recording's statements before
// line, against as many of the session's first events.
func checkEventsBefore(t *testing.T, s *engine.Session, path string, line int) {
	t.Helper()
	got := sessionEvents(s)
	want, lines := recordedEvents(t, path)
	n := 0
	for n < len(lines) && lines[n] < line {
		n++
	}
	if len(got) < n {
		t.Fatalf("%d events, PyTorch's %d before line %d", len(got), n, line)
	}
	for i := range n {
		if got[i] != want[i] {
			t.Fatalf("event %d (line %d): %s %d, PyTorch's %s %d", i, lines[i], got[i].action, got[i].size, want[i].action, want[i].size)
		}
	}
}

// TestEinsumMoreForms: torch.einsum's traces, diagonals, sums of one
// operand, implicit outputs, ellipses, several contracted letters,
// elementwise products and three operands make PyTorch's allocations in
// its order and print what PyTorch printed, their peaks and output
// layouts included (testdata/pyrules/ops_einsum_contractions.py); summing
// an innermost run of more than 1024 elements ('bij->b', 'bhqd->bh')
// makes the output alone, as torch.sum's probed innermost reductions do
// (line 76 prints CPU values the tool does not compute).
func TestEinsumMoreForms(t *testing.T) {
	s, printed := runRule(t, "ops_einsum_contractions")
	path := filepath.Join("..", "testdata", "pyrules", "ops_einsum_contractions.jsonl")
	checkEvents(t, s, path)
	for line, want := range recordedOutput(t, path) {
		if got := printed[line]; got != want && line != 76 {
			t.Errorf("line %d printed %q, PyTorch %q", line, got, want)
		}
	}
}

// TestReturnTypes: torch.return_types are tuple subclasses that print,
// index, slice and add as PyTorch's structseqs, and kthvalue and median
// along a dimension make their values and int64 indices and nothing else
// (testdata/pyrules/ops_structseq.py: these lines print what PyTorch
// printed; sort, topk and median over every element are refused).
func TestReturnTypes(t *testing.T) {
	_, printed := runRule(t, "ops_structseq")
	want := recordedOutput(t, filepath.Join("..", "testdata", "pyrules", "ops_structseq.jsonl"))
	for _, line := range []int{11, 12, 13, 15, 19, 43, 47} {
		if got := printed[line]; got != want[line] {
			t.Errorf("line %d printed %q, PyTorch %q", line, got, want[line])
		}
	}
}

// TestEinsumForms: torch.einsum as aten computes it, forward and
// backward: diagonals, "...", a letter summed in one operand, pairs
// whose reshape or bmm copies an operand, the two sides swapped so the
// product comes out in the output's order, three operands in
// opt_einsum's order and, disabled, left to right
// (testdata/pyrules/ops_einsum_forms.py), allocation by allocation.
func TestEinsumForms(t *testing.T) {
	checkRules(t, "ops_einsum_forms")
}
