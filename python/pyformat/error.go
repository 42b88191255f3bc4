package pyformat

import (
	"errors"
	"fmt"
)

// Error is a Python exception raised by formatting, parsing or arithmetic:
// Kind is its class ("ValueError", "TypeError", "OverflowError",
// "ZeroDivisionError", "MemoryError") and Msg its text, as CPython words it.
type Error struct {
	Kind, Msg string
}

// Error returns the exception as Python's traceback prints its last line.
func (e *Error) Error() string {
	if e.Msg == "" {
		return e.Kind
	}
	return e.Kind + ": " + e.Msg
}

// ErrComplex reports a float ** whose result Python gives as a complex
// number (a negative base, a fractional exponent); gpumemrepl has no
// complex numbers.
var ErrComplex = errors.New("the result is a complex number (a negative base raised to a fractional power), which is not supported")

func newError(kind, format string, args ...any) *Error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

func valueError(format string, args ...any) *Error {
	return newError("ValueError", format, args...)
}

func typeError(format string, args ...any) *Error {
	return newError("TypeError", format, args...)
}

func overflowError(format string, args ...any) *Error {
	return newError("OverflowError", format, args...)
}

func zeroDivisionError(msg string) *Error {
	return &Error{Kind: "ZeroDivisionError", Msg: msg}
}

// maxWidth bounds a field's width or precision: CPython would try to
// build the string and most likely fail with MemoryError; a REPL should
// not spend its memory on one.
const maxWidth = 1 << 28

func memoryError() *Error {
	return &Error{Kind: "MemoryError"}
}
