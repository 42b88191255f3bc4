package engine

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// TestKindOf: an error's kind is its own, through any wrapping; the
// allocator's out of memory is torch.OutOfMemoryError; an error nobody
// classed is a RuntimeError.
func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want ErrorKind
	}{
		{Errorf(IndexError, "index 3 is out of bounds"), IndexError},
		{fmt.Errorf("cuda:0: %w", Errorf(ValueError, "bad")), ValueError},
		{&allocator.OutOfMemoryError{Huge: true}, OutOfMemoryError},
		{fmt.Errorf("cuda:0: %w", &allocator.OutOfMemoryError{Huge: true}), OutOfMemoryError},
		{errValueSized("torch.nonzero"), NotImplementedError},
		{errors.New("no kind"), RuntimeError},
	} {
		if got := KindOf(c.err); got != c.want {
			t.Errorf("KindOf(%q) = %s, want %s", c.err, got, c.want)
		}
	}
}
