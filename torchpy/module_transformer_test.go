package torchpy_test

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestTransformerRules runs the transformer layers' rule scripts
// (testdata/pyrules/tfm_*.py) on the simulated H200: every allocation,
// free and segment of the same size as PyTorch's, in PyTorch's order,
// and each statement prints what it printed under PyTorch. An
// embedding's backward over more than 3072 indices sorts them with
// CUB's temporaries, which the tool refuses: tfm_embedding's events are
// checked up to the first such backward, and its prints everywhere but
// at those backwards and the prints of their peaks right after.
func TestTransformerRules(t *testing.T) {
	for _, c := range []struct {
		name    string
		refused []int // lines the tool refuses (NotImplementedError)
	}{
		{"tfm_embedding", []int{38, 46, 55}},
		{"tfm_layernorm", nil},
		{"tfm_dropout", nil},
		{"tfm_sdpa", nil},
		{"tfm_sdpa_bf16", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, printed := runRule(t, c.name)
			path := filepath.Join("..", "testdata", "pyrules", c.name+".jsonl")
			if c.refused == nil {
				checkEvents(t, s, path)
				checkPrinted(t, printed, path)
				return
			}
			if got, want := eventsBefore(t, s, path, c.refused[0]); !slices.Equal(got, want) {
				t.Errorf("the %d events before line %d differ from PyTorch's", len(want), c.refused[0])
			}
			for line, out := range recordedOutput(t, path) {
				if !slices.Contains(c.refused, line) && !slices.Contains(c.refused, line-1) && printed[line] != out {
					t.Errorf("line %d printed %q, PyTorch %q", line, printed[line], out)
				}
			}
		})
	}
}
