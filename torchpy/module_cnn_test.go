package torchpy_test

import (
	"path/filepath"
	"testing"
)

// TestCNNRules runs the CNN layers' rule scripts (testdata/pyrules/
// cnn_*.py) on the simulated H200: every allocation, free and segment
// of the same size as PyTorch's, in PyTorch's order; and, where the
// tool knows every value printed, what each statement printed.
// (cnn_batchnorm prints num_batches_tracked.item() after add_ and
// cnn_act `y is h` for F.leaky_relu(inplace=True), which the tool does
// not know.)
func TestCNNRules(t *testing.T) {
	for _, r := range []struct {
		name    string
		printed bool // every value it prints is known to the tool
	}{{"cnn_batchnorm", false}, {"cnn_pool", true}, {"cnn_act", false}, {"cnn_train", true}, {"cnn_net", true}} {
		t.Run(r.name, func(t *testing.T) {
			s, printed := runRule(t, r.name)
			path := filepath.Join("..", "testdata", "pyrules", r.name+".jsonl")
			checkEvents(t, s, path)
			if r.printed {
				checkPrinted(t, printed, path)
			}
		})
	}
}
