package torchpy_test

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestIndexPutRules: assignment through advanced indices (setitem_
// advanced.py) writes in place with PyTorch's temporaries (a list's
// int64 tensor, a number's 0-d tensor, a host index's copy) in its
// order, event by event; each statement prints what PyTorch printed but
// the last, whose values the writes made unknown to the tool: it says
// so, and prints no number.
func TestIndexPutRules(t *testing.T) {
	s, printed := runRule(t, "setitem_advanced")
	path := filepath.Join("..", "testdata", "pyrules", "setitem_advanced.jsonl")
	checkEvents(t, s, path)
	for line, out := range recordedOutput(t, path) {
		switch {
		case line == 36:
			if !strings.Contains(printed[line], "not computed") {
				t.Errorf("line 36 printed %q, want values not computed", printed[line])
			}
		case printed[line] != out:
			t.Errorf("line %d printed %q, PyTorch %q", line, printed[line], out)
		}
	}
}
