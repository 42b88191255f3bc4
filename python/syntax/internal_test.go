package syntax

import (
	"errors"
	"strings"
	"testing"
)

// TestInternalErrorIsOneLine checks that a bug that panics in the parser
// or in the resolver reaches the caller as a one-line Error, with the Go
// stack kept out of its message.
func TestInternalErrorIsOneLine(t *testing.T) {
	p := newParser("f", []byte("x = 1\n"), nil)
	_, parseErr := p.run(func() *Module {
		p.next()
		panic("boom\nat a second line")
	})
	// A def without parameters is no tree the parser makes: the
	// resolver trips over it.
	resolveErr := resolve("f", &Module{Body: []Stmt{&FunctionDef{Name: "f"}}})
	for _, err := range []error{parseErr, resolveErr} {
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("got %v, want an internal *Error", err)
			continue
		}
		if !strings.HasPrefix(e.Msg, "internal error: ") || strings.Contains(e.Error(), "\n") || len(e.stack) == 0 {
			t.Errorf("got %q (stack kept: %v), want one line starting internal error:", e.Error(), len(e.stack) > 0)
		}
	}
	if want := "f:1:1: SyntaxError: internal error: boom at a second line"; parseErr.Error() != want {
		t.Errorf("got %q, want %q", parseErr.Error(), want)
	}
}
