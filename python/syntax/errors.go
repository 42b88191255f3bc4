package syntax

import (
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
)

// Error is a syntax error at a position, worded and placed as CPython
// 3.11 words and places it. Kind is "SyntaxError", "IndentationError" or
// "TabError". The parse functions return a *Error.
type Error struct {
	Filename string
	Pos      Pos
	Kind     string
	Msg      string
	stack    []byte // for an internal error, the Go stack, for this package's tests
}

// The error kinds.
const (
	kindSyntax      = "SyntaxError"
	kindIndentation = "IndentationError"
	kindTab         = "TabError"
)

// Error returns "FILE:LINE:COL: Kind: Msg".
func (e *Error) Error() string {
	return e.Filename + ":" + e.Pos.String() + ": " + e.Kind + ": " + e.Msg
}

// ErrIncomplete is what ParseInteractive returns when the text so far is
// the start of a statement that needs more lines.
var ErrIncomplete = errors.New("incomplete input")

// internalError is the Error for a bug of this package that a parse ran
// into (a Go panic, value r): one line for the user, who cannot mend it;
// the stack stays out of the message.
func internalError(file string, pos Pos, r any) *Error {
	msg := strings.ReplaceAll(fmt.Sprint(r), "\n", " ")
	return &Error{Filename: file, Pos: pos, Kind: kindSyntax, Msg: "internal error: " + msg, stack: debug.Stack()}
}
