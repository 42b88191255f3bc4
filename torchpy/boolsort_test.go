package torchpy_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// TestBoolMaskSortRules: the bitwise and logical ops, any and all,
// nonzero and boolean masks, sort, argsort, topk and median, and the
// storage-sharing checks allocate and free what PyTorch's did on the
// H200, in its order, print what it printed (nonzero's columns as_tuple
// too: strided views, read through their strides) and raise what it raised
// (pyrules/ops_bool, ops_mask, ops_sort, ops_sort_large, ops_storage).
func TestBoolMaskSortRules(t *testing.T) {
	for _, name := range []string{"ops_bool", "ops_mask", "ops_sort", "ops_sort_large", "ops_storage"} {
		t.Run(name, func(t *testing.T) {
			s, printed := runRule(t, name)
			path := filepath.Join("..", "testdata", "pyrules", name+".jsonl")
			checkEvents(t, s, path)
			checkPrinted(t, printed, path)
			var got []string
			for _, e := range scriptErrors[s] {
				got = append(got, errorColumn.ReplaceAllString(e, "$1: "))
			}
			if want := recordedErrors(t, path); !slices.Equal(got, want) {
				t.Errorf("errors %q, PyTorch's %q", got, want)
			}
		})
	}
}

// errorColumn is the column of an error's position, which the
// recordings do not have.
var errorColumn = regexp.MustCompile(`^(\d+):\d+: `)

// recordedErrors are the errors of a recording's statements, in order,
// each after its line.
func recordedErrors(t *testing.T, path string) []string {
	t.Helper()
	var errs []string
	for _, row := range recordedRows(t, path) {
		if row.Error != nil {
			errs = append(errs, fmt.Sprintf("%d: %s", row.Line, *row.Error))
		}
	}
	return errs
}

// TestMaskUnderAutograd: the backward of x[mask] (IndexBackward0:
// zeros, the mask's nonzero again, index_put_'s flattened index and
// sort) and of masked_select (MaskedSelectBackward0: zeros of the
// broadcast shape, masked_scatter_'s offsets, the broadcast mask's
// dense copy, CUB's scan scratch by the mask's size, the gradient's
// dense copy, then sum_to a broadcast input's shape) allocate and free
// what PyTorch's did on the H200, in its order, and print what it
// printed (pyrules/ops_mask_grad, ops_mask_grad_shapes), a mask of 2305
// true elements (line 124, CUB's sort of several tiles) too;
// masked_select's node keeps its input (line 96 prints PyTorch's figure).
func TestMaskUnderAutograd(t *testing.T) {
	checkRules(t, "ops_mask_grad", "ops_mask_grad_shapes")
}
