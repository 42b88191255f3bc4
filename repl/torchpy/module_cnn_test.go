package torchpy_test

import (
	"path/filepath"
	"testing"
)

// TestCNNRules runs the CNN layers' rule scripts (testdata/pyrules/
// cnn_*.py) on the simulated H200: every allocation, free and segment
// of the same size as PyTorch's, in PyTorch's order.
func TestCNNRules(t *testing.T) {
	for _, name := range []string{"cnn_batchnorm", "cnn_pool", "cnn_act", "cnn_train"} {
		t.Run(name, func(t *testing.T) {
			s, _ := runRule(t, name)
			checkEvents(t, s, filepath.Join("..", "..", "testdata", "pyrules", name+".jsonl"))
		})
	}
}
