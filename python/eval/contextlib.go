package eval

import _ "embed"

// genCMType is what a @contextlib.contextmanager function returns;
// nullCMType is contextlib.nullcontext.
var (
	genCMType  = NewClass("_GeneratorContextManager", "contextlib")
	nullCMType = NewClass("nullcontext", "contextlib")
)

// The context managers contextmanager and nullcontext make.
func init() {
	for _, c := range []*Class{genCMType, nullCMType} {
		c.Native = false
	}
	method(genCMType, "__enter__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.unpackMethodDef("_GeneratorContextManager.__enter__", args, kw); err != nil {
			return nil, err
		}
		g, _ := self.(*Instance).Dict.getStr("gen")
		v, ok, err := in.Next(g)
		if err == nil && !ok {
			return nil, in.Raise(RuntimeErrorType, "generator didn't yield")
		}
		return v, err
	})
	method(genCMType, "__exit__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		var typ, value, tb Value
		if err := in.unpackMethodDef("_GeneratorContextManager.__exit__", args, kw, "typ", &typ, "value", &value, "traceback", &tb); err != nil {
			return nil, err
		}
		gv, _ := self.(*Instance).Dict.getStr("gen")
		g := gv.(*Generator)
		if exc, ok := value.(*Instance); ok && exc.exc != nil {
			_, done, err := in.genSend(g, genMsg{err: &Exception{Inst: newRef(exc).(*Instance)}})
			if err != nil {
				if e, ok := err.(*Exception); ok && e.Inst == exc {
					in.Drop(err)
					return false, nil
				}
				return nil, err
			}
			if !done {
				return nil, in.Raise(RuntimeErrorType, "generator didn't stop after throw()")
			}
			return true, nil
		}
		v, done, err := in.genSend(g, genMsg{v: None})
		if err != nil {
			return nil, err
		}
		if !done {
			in.Decref(v)
			return nil, in.Raise(RuntimeErrorType, "generator didn't stop")
		}
		return false, nil
	})
	method(nullCMType, "__enter__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.unpackMethodDef("nullcontext.__enter__", args, kw); err != nil {
			return nil, err
		}
		v, _ := self.(*Instance).Dict.getStr("enter_result")
		return newRef(v), nil
	})
	method(nullCMType, "__exit__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(kw) > 0 { // __exit__(self, *excinfo)
			return nil, in.typeError("nullcontext.__exit__() got an unexpected keyword argument '%s'", kw[0].Name)
		}
		return None, nil
	})
}

// contextlibModule is contextlib: contextmanager and nullcontext in Go,
// the rest in Python (contextlibSource).
func contextlibModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("contextlib")
	in.fn(m, "contextmanager", "contextmanager(func)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var fn Value
		if err := in.UnpackDefArgs("contextmanager", args, kw, "func", &fn); err != nil {
			return nil, err
		}
		b := &Builtin{Name: "helper", Self: newRef(fn), Fn: func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			g, err := in.call(self, args, kw)
			if err != nil {
				return nil, err
			}
			o := in.newInstanceWith(genCMType, "gen", g)
			in.Decref(g)
			return o, nil
		}}
		in.track(b)
		return b, nil
	})
	in.fn(m, "nullcontext", "nullcontext(enter_result=None)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var v Value = None
		if err := in.unpackMethodDef("nullcontext.__init__", args, kw, "enter_result?", &v); err != nil {
			return nil, err
		}
		return in.newInstanceWith(nullCMType, "enter_result", v), nil
	})
	return in.execModule(m, contextlibSource)
}

// contextlibSource is the rest of contextlib, in Python: suppress,
// closing, redirect_stdout and redirect_stderr.
//
//go:embed lib/contextlib.py
var contextlibSource string
