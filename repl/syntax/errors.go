package syntax

import "errors"

// Error is a syntax error at a position, worded and placed as CPython
// 3.11 words and places it. Kind is "SyntaxError", "IndentationError" or
// "TabError". The parse functions return a *Error.
type Error struct {
	Filename string
	Pos      Pos
	Kind     string
	Msg      string
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
