package torchpy

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// pyClasses is the Python class of each kind of engine error: the one
// place where an engine error's kind becomes a class.
var pyClasses = [...]*eval.Class{
	engine.RuntimeError:        eval.RuntimeErrorType,
	engine.ValueError:          eval.ValueErrorType,
	engine.IndexError:          eval.IndexErrorType,
	engine.TypeError:           eval.TypeErrorType,
	engine.NotImplementedError: eval.NotImplementedErrType,
	engine.AssertionError:      eval.AssertionErrorType,
	engine.KeyboardInterrupt:   eval.KeyboardInterruptType,
	engine.OutOfMemoryError:    OutOfMemoryErrorType,
	engine.AcceleratorError:    AcceleratorErrorType,
}

// pyErr raises an engine error as the Python exception PyTorch raises:
// the class its kind names, its text the message.
func (b *Binding) pyErr(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if k := engine.KindOf(err); k != engine.RuntimeError {
		return b.in.Raise(pyClasses[k], "%s", msg)
	}
	if cls, rest, ok := strings.Cut(msg, ": "); ok {
		for _, c := range eval.ExceptionClasses {
			if c.Name == cls {
				return b.in.Raise(c, "%s", rest)
			}
		}
		switch cls {
		case "torch.AcceleratorError":
			return b.in.Raise(AcceleratorErrorType, "%s", rest)
		}
	}
	return b.in.Raise(eval.RuntimeErrorType, "%s", msg)
}
