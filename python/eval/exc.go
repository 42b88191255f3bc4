package eval

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/internal/refusal"
	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// Exception is a raised Python exception as a Go error. It holds one
// reference to the exception object: whoever drops the error drops it
// (Interp.Drop).
type Exception struct {
	Inst *Instance
}

// Error is "Type: message", as the last line of a traceback.
func (e *Exception) Error() string {
	s := e.Inst.exc.str
	if s == "" {
		return e.Inst.cls.Name
	}
	return e.Inst.cls.Name + ": " + s
}

// Unwrap is the exception's refusal.Error when it is the tool's own
// refusal (Interp.Refuse, _refusal in the Python the tool embeds), so
// that errors.As finds it; nil for any other exception.
func (e *Exception) Unwrap() error {
	if !e.Inst.exc.refused {
		return nil
	}
	return &refusal.Error{Err: errors.New(e.Error())}
}

// excState is the part of an exception object CPython keeps in C: its
// arguments, traceback, cause and context.
type excState struct {
	args    *Tuple
	str     string // str(exc), computed when raised (for the message)
	tb      []tbEntry
	cause   Value // __cause__ or nil
	context Value // __context__ or nil
	// suppress is __suppress_context__ (set by raise ... from).
	suppress bool
	// hint is what the traceback adds after the message (NameError's
	// "Did you mean").
	hint string
	// refused marks the tool's own refusal (Refuse, _refusal): what
	// Python or PyTorch would run and the tool does not model.
	refused bool
}

// tbEntry is one traceback entry: a frame the exception passed through
// and where in it. The entry holds a reference to the frame, so the
// frame's locals live as long as the traceback does, as in CPython.
type tbEntry struct {
	frame      *Frame
	start, end syntax.Pos
	// counted is set when the entry's traceback object counts in the
	// collector's generation 0 (countUnwound)
	counted bool
}

func (s *excState) traverse(visit func(Value)) {
	if s.args != nil {
		visit(s.args)
	}
	for _, e := range s.tb {
		visit(e.frame)
	}
	if s.cause != nil {
		visit(s.cause)
	}
	if s.context != nil {
		visit(s.context)
	}
}

func (s *excState) clear(in *Interp) {
	args, tb, cause, ctx := s.args, s.tb, s.cause, s.context
	s.args, s.tb, s.cause, s.context = nil, nil, nil, nil
	// CPython's BaseException_clear: dict, args, notes, traceback,
	// cause, context.
	if args != nil {
		in.Decref(args)
	}
	// The traceback's head (outermost entry) frees the entries inside
	// it first: innermost frame first.
	for _, e := range tb {
		in.uncountTraceback(e)
		in.Decref(e.frame)
	}
	if cause != nil {
		in.Decref(cause)
	}
	if ctx != nil {
		in.Decref(ctx)
	}
}

// The exception classes.
var (
	BaseExceptionType = newExcClass("BaseException", nil)
	ExceptionType     = newExcClass("Exception", BaseExceptionType)
	// KeyboardInterruptType is raised when the user presses Ctrl-C.
	KeyboardInterruptType = newExcClass("KeyboardInterrupt", BaseExceptionType)
	SystemExitType        = newExcClass("SystemExit", BaseExceptionType)
	GeneratorExitType     = newExcClass("GeneratorExit", BaseExceptionType)
	StopIterationType     = newExcClass("StopIteration", ExceptionType)
	ArithmeticErrorType   = newExcClass("ArithmeticError", ExceptionType)
	ZeroDivisionErrorType = newExcClass("ZeroDivisionError", ArithmeticErrorType)
	OverflowErrorType     = newExcClass("OverflowError", ArithmeticErrorType)
	AssertionErrorType    = newExcClass("AssertionError", ExceptionType)
	AttributeErrorType    = newExcClass("AttributeError", ExceptionType)
	LookupErrorType       = newExcClass("LookupError", ExceptionType)
	IndexErrorType        = newExcClass("IndexError", LookupErrorType)
	KeyErrorType          = newExcClass("KeyError", LookupErrorType)
	NameErrorType         = newExcClass("NameError", ExceptionType)
	UnboundLocalErrorType = newExcClass("UnboundLocalError", NameErrorType)
	TypeErrorType         = newExcClass("TypeError", ExceptionType)
	ValueErrorType        = newExcClass("ValueError", ExceptionType)
	RuntimeErrorType      = newExcClass("RuntimeError", ExceptionType)
	NotImplementedErrType = newExcClass("NotImplementedError", RuntimeErrorType)
	RecursionErrorType    = newExcClass("RecursionError", RuntimeErrorType)
	ImportErrorType       = newExcClass("ImportError", ExceptionType)
	ModuleNotFoundType    = newExcClass("ModuleNotFoundError", ImportErrorType)
	OSErrorType           = newExcClass("OSError", ExceptionType)
	// FileNotFoundErrorType and the three after it are the OSErrors
	// CPython raises for their errnos (RaiseOS).
	FileNotFoundErrorType  = newExcClass("FileNotFoundError", OSErrorType)
	PermissionErrorType    = newExcClass("PermissionError", OSErrorType)
	IsADirectoryErrorType  = newExcClass("IsADirectoryError", OSErrorType)
	NotADirectoryErrorType = newExcClass("NotADirectoryError", OSErrorType)
	MemoryErrorType        = newExcClass("MemoryError", ExceptionType)
	UnicodeErrorType       = newExcClass("UnicodeError", ValueErrorType)
	// UnicodeDecodeErrorType is bytes.decode's error for bytes that
	// are not text in the encoding.
	UnicodeDecodeErrorType = newExcClass("UnicodeDecodeError", UnicodeErrorType)
	WarningType            = newExcClass("Warning", ExceptionType)
	UserWarningType        = newExcClass("UserWarning", WarningType)
	DeprecationWarnType    = newExcClass("DeprecationWarning", WarningType)
	// FutureWarningType and the others are the rest of Python's warning
	// categories.
	FutureWarningType      = newExcClass("FutureWarning", WarningType)
	RuntimeWarningType     = newExcClass("RuntimeWarning", WarningType)
	PendingDeprecationType = newExcClass("PendingDeprecationWarning", WarningType)
	ResourceWarningType    = newExcClass("ResourceWarning", WarningType)
	SyntaxErrorType        = newExcClass("SyntaxError", ExceptionType)
	SystemErrorType        = newExcClass("SystemError", ExceptionType)
)

// ExceptionClasses are the exception classes the builtins module names.
var ExceptionClasses = []*Class{BaseExceptionType, ExceptionType, KeyboardInterruptType,
	SystemExitType, GeneratorExitType, StopIterationType, ArithmeticErrorType,
	ZeroDivisionErrorType, OverflowErrorType, AssertionErrorType, AttributeErrorType,
	LookupErrorType, IndexErrorType, KeyErrorType, NameErrorType, UnboundLocalErrorType,
	TypeErrorType, ValueErrorType, RuntimeErrorType, NotImplementedErrType,
	RecursionErrorType, ImportErrorType, ModuleNotFoundType, OSErrorType, MemoryErrorType,
	UnicodeErrorType, WarningType, UserWarningType, DeprecationWarnType, SyntaxErrorType,
	SystemErrorType, FutureWarningType, RuntimeWarningType, PendingDeprecationType, ResourceWarningType,
	UnicodeDecodeErrorType, FileNotFoundErrorType, PermissionErrorType, IsADirectoryErrorType,
	NotADirectoryErrorType}

// newExcClass declares a built-in exception class: not Native, since
// its instances are Instances a class statement may subclass.
func newExcClass(name string, base *Class) *Class {
	var c *Class
	if base == nil {
		c = NewClass(name, "builtins")
	} else {
		c = NewClass(name, "builtins", base)
	}
	c.Native = false
	c.Subclassable = true
	return c
}

// NewExceptionClass declares an exception class of another module (as
// torch.OutOfMemoryError).
func NewExceptionClass(name, module string, base *Class) *Class {
	c := newExcClass(name, base)
	c.Module = module
	return c
}

// isException reports whether cls derives from BaseException.
func isException(cls *Class) bool { return cls.IsSubclass(BaseExceptionType) }

// NewException makes an exception object of cls with the given
// arguments (borrowed), as cls(*args) does for a built-in class.
func (in *Interp) NewException(cls *Class, args ...Value) *Instance {
	o := in.newInstance(cls)
	items := make([]Value, len(args))
	for i, a := range args {
		items[i] = newRef(a)
	}
	o.exc.args = in.NewTuple(items)
	return o
}

// Raise returns cls(msg) as an error.
func (in *Interp) Raise(cls *Class, format string, args ...any) error {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	return in.raiseInst(in.NewException(cls, msg))
}

// Refuse is Raise for the tool's own refusal of what Python or PyTorch
// runs (the message says what is not modelled): the exception is cls's,
// marked so that the runner labels the figures after it estimated.
func (in *Interp) Refuse(cls *Class, format string, args ...any) error {
	o := in.NewException(cls, fmt.Sprintf(format, args...))
	o.exc.refused = true
	return in.raiseInst(o)
}

// builtinRefusal is _refusal(exc), for the Python the tool embeds: exc,
// marked as the tool's refusal (raise _refusal(NotImplementedError(...))).
func builtinRefusal(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var exc Value
	if err := in.UnpackArgs("_refusal", args, kw, "exc", &exc, "/"); err != nil {
		return nil, err
	}
	o, ok := exc.(*Instance)
	if !ok || o.exc == nil {
		return nil, in.typeError("_refusal() argument must be an exception, not %s", TypeOf(exc).Name)
	}
	o.exc.refused = true
	return newRef(o), nil
}

// raiseInst turns an exception object (whose reference it takes) into
// the error that propagates, with its message and context.
func (in *Interp) raiseInst(o *Instance) error {
	o.exc.str = in.excStr(o)
	if n := len(in.handling); n > 0 && in.handling[n-1] != o && o.exc.context == nil {
		o.exc.context = newRef(in.handling[n-1])
	}
	return &Exception{Inst: o}
}

// excStr is str(exc): computed once when raised, so printing the error
// later needs no interpreter.
func (in *Interp) excStr(o *Instance) string {
	if f := o.cls.lookup("__str__"); f != nil && f != baseExcStr {
		r, err := in.call(f, []Value{o}, nil)
		if err != nil {
			in.Drop(err)
			return "<exception str() failed>"
		}
		defer in.Decref(r)
		if s, ok := r.(string); ok {
			return s
		}
		return "<exception str() failed>"
	}
	return in.defaultExcStr(o)
}

func (in *Interp) defaultExcStr(o *Instance) string {
	if o.exc.args == nil {
		return ""
	}
	items := o.exc.args.items
	switch len(items) {
	case 0:
		return ""
	case 1:
		if o.cls.IsSubclass(KeyErrorType) {
			return in.ReprOf(items[0])
		}
		return in.StrOf(items[0])
	}
	return in.ReprOf(o.exc.args)
}

// Drop lets go of an error: an Exception's object is released.
func (in *Interp) Drop(err error) {
	if e, ok := err.(*Exception); ok && e.Inst != nil {
		inst := e.Inst
		e.Inst = nil
		in.Decref(inst)
	}
}

// Matches reports whether err is a Python exception of class cls.
func Matches(err error, cls *Class) bool {
	e, ok := err.(*Exception)
	return ok && e.Inst != nil && e.Inst.cls.IsSubclass(cls)
}

// typeError is a TypeError with a formatted message.
func (in *Interp) typeError(format string, args ...any) error {
	return in.Raise(TypeErrorType, format, args...)
}

// unraisable reports an exception that cannot propagate (one raised in
// __del__), as CPython prints it to stderr, and drops it.
func (in *Interp) unraisable(err error, what string) {
	fmt.Fprintf(in.Stderr, "%s\n%s\n", what, err.Error())
	in.Drop(err)
}

var baseExcStr *Builtin

func init() {
	b := BaseExceptionType
	b.SetMethod(NewBuiltin("__init__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		o := self.(*Instance)
		if len(kw) > 0 {
			return nil, in.typeError("%s() takes no keyword arguments", o.cls.Name)
		}
		in.setExcArgs(o, args)
		return None, nil
	}))
	// the exceptions whose constructors take keywords: each sets the
	// attributes it is given
	for _, k := range []struct {
		cls   *Class
		names []string
	}{
		{ImportErrorType, []string{"name", "path"}},
		{AttributeErrorType, []string{"name", "obj"}},
		{NameErrorType, []string{"name"}},
	} {
		k.cls.SetMethod(NewBuiltin("__init__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			vals := make([]Value, len(k.names))
			params := []any{"*"}
			for i, n := range k.names {
				params = append(params, n+"?", &vals[i])
			}
			if err := in.UnpackArgs(k.cls.Name, nil, kw, params...); err != nil {
				return nil, err
			}
			o := self.(*Instance)
			in.setExcArgs(o, args)
			for i, v := range vals {
				if v != nil {
					if err := in.SetAttr(o, k.names[i], v); err != nil {
						return nil, err
					}
				}
			}
			return None, nil
		}))
	}
	baseExcStr = NewBuiltin("__str__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.slotArgs("__str__", args, kw, 0); err != nil {
			return nil, err
		}
		return in.defaultExcStr(self.(*Instance)), nil
	})
	b.SetMethod(baseExcStr)
	b.SetMethod(NewBuiltin("__repr__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.slotArgs("__repr__", args, kw, 0); err != nil {
			return nil, err
		}
		o := self.(*Instance)
		var parts []string
		if o.exc.args != nil {
			for _, a := range o.exc.args.items {
				parts = append(parts, in.ReprOf(a))
			}
		}
		return o.cls.Name + "(" + strings.Join(parts, ", ") + ")", nil
	}))
	b.SetAttr("args", NewProperty(NewBuiltin("args", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		o := self.(*Instance)
		if o.exc.args == nil {
			return in.NewTuple(nil), nil
		}
		return newRef(o.exc.args), nil
	}), nil))
	excRef := func(name string, get func(s *excState) Value) {
		b.SetAttr(name, NewProperty(NewBuiltin(name, "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if v := get(self.(*Instance).exc); v != nil {
				return newRef(v), nil
			}
			return None, nil
		}), nil))
	}
	excRef("__cause__", func(s *excState) Value { return s.cause })
	excRef("__context__", func(s *excState) Value { return s.context })
	b.SetAttr("__traceback__", NewProperty(NewBuiltin("__traceback__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		o := self.(*Instance)
		if len(o.exc.tb) == 0 {
			return None, nil
		}
		return in.newTraceback(o), nil
	}), NewBuiltin("__traceback__", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) != 1 || args[0] != None {
			return nil, in.typeError("__traceback__ must be a traceback or None")
		}
		in.clearTraceback(self.(*Instance))
		return None, nil
	})))
	b.SetMethod(NewBuiltin("with_traceback", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		var tb Value
		if err := in.UnpackArgs("BaseException.with_traceback", args, kw, "tb", &tb, "/"); err != nil {
			return nil, err
		}
		switch tb.(type) {
		case NoneType:
			in.clearTraceback(self.(*Instance))
		case *tracebackObj: // not modelled: the exception keeps its own
		default:
			return nil, in.typeError("__traceback__ must be a traceback or None")
		}
		return newRef(self), nil
	}))
}

// setExcArgs is BaseException.__init__'s: o's args become args.
func (in *Interp) setExcArgs(o *Instance, args []Value) {
	items := make([]Value, len(args))
	for i, a := range args {
		items[i] = newRef(a)
	}
	old := o.exc.args
	o.exc.args = in.NewTuple(items)
	if old != nil {
		in.Decref(old)
	}
}

// clearTraceback is exc.__traceback__ = None.
func (in *Interp) clearTraceback(o *Instance) {
	tb := o.exc.tb
	o.exc.tb = nil
	for _, e := range tb {
		in.uncountTraceback(e)
		in.Decref(e.frame)
	}
}
