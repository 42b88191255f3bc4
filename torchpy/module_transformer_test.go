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
// CUB's temporaries: tfm_embedding's three (4096 and 3073 indices into
// 1024 x 256, 16384 into 50000 x 512) make PyTorch's events too, and
// every print matches but the peaks after the first two (1 KiB more): a
// block PyTorch's allocator split or not by where earlier segments lay,
// which the simulated device places as the driver does only up to the
// first matrix product (testdata/segments/README.md).
func TestTransformerRules(t *testing.T) {
	for _, c := range []struct {
		name   string
		placed []int // lines whose printed peak depends on placement
	}{
		{"tfm_embedding", []int{39, 47}},
		{"tfm_layernorm", nil},
		{"tfm_dropout", nil},
		{"tfm_sdpa", nil},
		{"tfm_sdpa_bf16", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, printed := runRule(t, c.name)
			path := filepath.Join("..", "testdata", "pyrules", c.name+".jsonl")
			checkEvents(t, s, path)
			for line, out := range recordedOutput(t, path) {
				if !slices.Contains(c.placed, line) && printed[line] != out {
					t.Errorf("line %d printed %q, PyTorch %q", line, printed[line], out)
				}
			}
		})
	}
}
