package torchpy

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// raised is the class and text of the Python exception pyErr makes of
// err.
func raised(t *testing.T, b *Binding, err error) (*eval.Class, string) {
	t.Helper()
	var ex *eval.Exception
	if !errors.As(b.pyErr(err), &ex) {
		t.Fatalf("pyErr(%v) is no Python exception", err)
	}
	return eval.TypeOf(ex.Inst), ex.Error()
}

// TestErrorKindsRaiseTheirClass: each kind of engine error is raised as
// the Python class it names, with its message, also when wrapped with
// context; an error of no kind is a RuntimeError, as PyTorch's
// TORCH_CHECK raises.
func TestErrorKindsRaiseTheirClass(t *testing.T) {
	s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h200"], Backend: "sim", FakeHost: true})
	if err != nil {
		t.Fatal(err)
	}
	b := Install(eval.New(), s)
	if len(pyClasses) != len(engine.ErrorKinds) {
		t.Errorf("%d classes for %d kinds", len(pyClasses), len(engine.ErrorKinds))
	}
	for _, k := range engine.ErrorKinds {
		cls, text := raised(t, b, engine.Errorf(k, "bad %s", "input"))
		if cls.QualName() != k.String() || text != cls.Name+": bad input" {
			t.Errorf("kind %s: raised %s %q", k, cls.QualName(), text)
		}
		cls, text = raised(t, b, fmt.Errorf("cuda:0: %w", engine.Errorf(k, "bad")))
		if cls.QualName() != k.String() || text != cls.Name+": cuda:0: bad" {
			t.Errorf("kind %s wrapped: raised %s %q", k, cls.QualName(), text)
		}
	}
	if cls, text := raised(t, b, errors.New("no kind")); cls != eval.RuntimeErrorType || text != "RuntimeError: no kind" {
		t.Errorf("an error of no kind: raised %s %q", cls.QualName(), text)
	}
}
