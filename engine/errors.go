package engine

import (
	"errors"
	"fmt"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/internal/refusal"
)

// ErrorKind is the Python exception class of an error the engine
// returns. The engine picks it where it decides to fail, as PyTorch does
// at the check (TORCH_CHECK raises RuntimeError, TORCH_CHECK_INDEX
// IndexError, TORCH_CHECK_VALUE ValueError, ...); the binding (torchpy)
// turns each kind into its class in one table and never reads an error's
// text.
type ErrorKind uint8

// The kinds, named as Python names the class.
const (
	RuntimeError ErrorKind = iota
	ValueError
	IndexError
	TypeError
	NotImplementedError
	AssertionError
	KeyboardInterrupt
	OutOfMemoryError // torch.OutOfMemoryError: the allocator's *allocator.OutOfMemoryError
	AcceleratorError // torch.AcceleratorError: a CUDA error, such as a failed device-side assert
)

// ErrorKinds lists every kind, in order.
var ErrorKinds = []ErrorKind{RuntimeError, ValueError, IndexError, TypeError, NotImplementedError, AssertionError, KeyboardInterrupt, OutOfMemoryError, AcceleratorError}

var kindNames = [...]string{
	RuntimeError:        "RuntimeError",
	ValueError:          "ValueError",
	IndexError:          "IndexError",
	TypeError:           "TypeError",
	NotImplementedError: "NotImplementedError",
	AssertionError:      "AssertionError",
	KeyboardInterrupt:   "KeyboardInterrupt",
	OutOfMemoryError:    "torch.OutOfMemoryError",
	AcceleratorError:    "torch.AcceleratorError",
}

// String is the class's name as a traceback prints it
// ("torch.OutOfMemoryError").
func (k ErrorKind) String() string { return kindNames[k] }

// Error is an error of the engine's with the Python class PyTorch raises
// for it. Error() is the message alone, so a caller that wraps it with
// context (fmt.Errorf("...: %w", err)) makes the message the user reads.
type Error struct {
	Kind ErrorKind
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Errorf is an error of kind k with a formatted message.
func Errorf(k ErrorKind, format string, args ...any) error {
	return &Error{Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// Refusef is the engine's refusal of what PyTorch runs (a part it does
// not model, an internal error): an error of kind k, as Errorf makes it,
// wrapped as a *refusal.Error so that the runner labels the figures
// after it estimated.
func Refusef(k ErrorKind, format string, args ...any) error {
	return &refusal.Error{Err: Errorf(k, format, args...)}
}

// KindOf is err's kind: that of the first *Error in its chain,
// OutOfMemoryError for the allocator's, and RuntimeError for any other
// (PyTorch's TORCH_CHECK, the class of a failure nobody classed).
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	var oom *allocator.OutOfMemoryError
	if errors.As(err, &oom) {
		return OutOfMemoryError
	}
	return RuntimeError
}
