package torchpy

import (
	"errors"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/internal/refusal"
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
// the class its kind names, its text the message, the tool's refusal
// where the engine refused. A Python exception
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
	raise := b.in.Raise
	if _, refused := errors.AsType[*refusal.Error](err); refused {
		raise = b.in.Refuse
	}
	return raise(pyClasses[engine.KindOf(err)], "%s", err.Error())
}
