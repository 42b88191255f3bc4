package torchpy_test

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestInitAndClipRules: torch.nn.init and the in-place random fills
// allocate nothing (nn_init.py, checked event by event and print by
// print: gains, fans, PyTorch's errors); clip_grad_norm_ makes the
// norms, their stack and total, and the clip coefficient as PyTorch
// does, foreach or not, and clip_grad_value_ nothing (clip_grad.py, its
// events checked up to line 52, gradients of two dtypes, which the tool
// refuses: PyTorch groups them in the order of a C++ hash map).
func TestInitAndClipRules(t *testing.T) {
	checkRules(t, "nn_init")
	s, printed := runRule(t, "clip_grad")
	path := filepath.Join("..", "testdata", "pyrules", "clip_grad.jsonl")
	if got, want := eventsBefore(t, s, path, 52); !slices.Equal(got, want) {
		t.Errorf("the %d events before line 52 differ from PyTorch's:\n got %v\nwant %v", len(want), got, want)
	}
	for line, out := range recordedOutput(t, path) {
		if line < 52 && printed[line] != out {
			t.Errorf("line %d printed %q, PyTorch %q", line, printed[line], out)
		}
	}
}
