package torchpy_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestBoolMaskSortRules: the bitwise and logical ops, any and all,
// nonzero and boolean masks, sort, argsort, topk and median, and the
// storage-sharing checks allocate and free what PyTorch's did on the
// H200, in its order, print what it printed and raise what it raised
// (pyrules/ops_bool, ops_mask, ops_sort, ops_sort_large, ops_storage).
func TestBoolMaskSortRules(t *testing.T) {
	for _, name := range []string{"ops_bool", "ops_mask", "ops_sort", "ops_sort_large", "ops_storage"} {
		t.Run(name, func(t *testing.T) {
			s, printed := runRule(t, name)
			path := filepath.Join("..", "..", "testdata", "pyrules", name+".jsonl")
			checkEvents(t, s, path)
			want := recordedOutput(t, path)
			for _, line := range notComputed[name] {
				if !strings.Contains(printed[line], "not computed") {
					t.Errorf("line %d printed %q, a value the tool does not compute", line, printed[line])
				}
				printed[line] = want[line] // the rest of the script is checked below
			}
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

// notComputed are the lines, by rule script, that print values the tool
// does not compute: nonzero's columns as_tuple are strided views of its
// output, whose values the tool leaves unknown.
var notComputed = map[string][]int{"ops_mask": {16}}

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

// TestMaskUnderAutograd: x[mask] and masked_select of a tensor that
// requires grad make what they make without autograd (pyrules/
// ops_mask_grad: every event up to its first backward, and the grad_fn
// names printed); their backward is refused at its statement.
func TestMaskUnderAutograd(t *testing.T) {
	s, printed := runRule(t, "ops_mask_grad")
	path := filepath.Join("..", "..", "testdata", "pyrules", "ops_mask_grad.jsonl")
	want, lines := recordedEvents(t, path)
	var got []event
	for _, e := range s.History(0) {
		if counted[e.Action] {
			got = append(got, event{e.Action, e.Size})
		}
	}
	first := slices.Index(lines, 11) // y.sum().backward()
	if first < 0 || len(got) < first || !slices.Equal(got[:first], want[:first]) {
		t.Errorf("events before the first backward differ from PyTorch's")
	}
	recorded := recordedOutput(t, path)
	for _, line := range []int{10, 21} {
		if printed[line] != recorded[line] {
			t.Errorf("line %d printed %q, PyTorch %q", line, printed[line], recorded[line])
		}
	}
	if errs := scriptErrors[s]; len(errs) == 0 || errs[0] != "11:1: NotImplementedError: the backward of indexing by a bool mask (index_put_ of its nonzero) is not modelled by gpumemrepl" {
		t.Errorf("errors %q, want the backward at line 11 refused", errs)
	}
}
