// Package refusal marks the tool's own refusals: a statement Python or
// PyTorch would run that gpumemrepl stops instead, because it does not
// model it (and says so rather than guess), or because of an internal
// error. Figures after a refusal leave out what the statement would
// have done, so the runner labels them estimated; an error Python or
// PyTorch raises too (a user's raise, a shape mismatch) changes nothing.
// Each layer that refuses (allocator, engine, the interpreter, torchpy)
// wraps its error in the one type here, and the runner finds it with
// errors.As: by type, never by the message's words.
package refusal

// Error is a refusal: Err is the error as raised, with its class and
// the message that says what is not modelled.
type Error struct{ Err error }

func (e *Error) Error() string { return e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }
