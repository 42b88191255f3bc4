package torchpy

import (
	"errors"

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
// the class its kind names, its text the message. A Python exception
// that came back through the engine (raised by a function it called: an
// optimizer's step, a checkpointed function) goes on unchanged.
func (b *Binding) pyErr(err error) error {
	if err == nil {
		return nil
	}
	var ex *eval.Exception
	if errors.As(err, &ex) {
		return ex
	}
	return b.in.Raise(pyClasses[engine.KindOf(err)], "%s", err.Error())
}
