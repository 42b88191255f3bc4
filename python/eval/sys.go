package eval

import "math"

// stdoutType and stderrType are the classes of sys.stdout and
// sys.stderr: print(file=sys.stderr) writes to Interp.Stderr.
var (
	stdoutType = NewClass("TextIOWrapper", "io")
	stderrType = NewClass("TextIOWrapper", "io")
)

func init() {
	for _, c := range []*Class{stdoutType, stderrType} {
		c.Native = false
		method(c, "write", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			var s string
			if err := in.UnpackArgs("TextIOWrapper.write", args, kw, "s", &s, "/"); err != nil {
				return nil, err
			}
			out := in.Stdout
			if self.(*Instance).cls == stderrType {
				out = in.Stderr
			}
			_, _ = out.Write([]byte(s))
			return int64(len([]rune(s))), nil
		})
		method(c, "flush", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			return None, in.UnpackArgs("TextIOWrapper.flush", args, kw)
		})
	}
}

// sysModule is sys: argv, the standard streams, maxsize, version,
// getrefcount, exc_info, _debugmallocstats, getrecursionlimit and exit.
func sysModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("sys")
	args := []Value{""}
	if in.Argv != nil {
		args = args[:0]
		for _, a := range in.Argv {
			args = append(args, a)
		}
	}
	argv := in.NewList(args)
	m.Set(in, "argv", argv)
	in.Decref(argv)
	for name, cls := range map[string]*Class{"stdout": stdoutType, "stderr": stderrType} {
		o := &Instance{cls: cls, Dict: in.NewDict()}
		in.track(o)
		m.Set(in, name, o)
		m.Set(in, "__"+name+"__", o)
		in.Decref(o)
	}
	m.Set(in, "maxsize", int64(math.MaxInt64))
	m.Set(in, "version", "3.11.7 (gpumemrepl)")
	m.Set(in, "platform", "linux")
	vi := in.NewTuple([]Value{int64(3), int64(11), int64(7), "final", int64(0)})
	m.Set(in, "version_info", vi)
	in.Decref(vi)
	in.fn(m, "getrefcount", "getrefcount(obj): the object's reference count, the argument's included", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var obj Value
		if err := in.UnpackArgs("sys.getrefcount", args, kw, "object", &obj, "/"); err != nil {
			return nil, err
		}
		if o, ok := obj.(Object); ok {
			return int64(o.header().refs), nil
		}
		return int64(1 << 30), nil
	})
	in.fn(m, "exc_info", "exc_info(): the exception being handled, as (type, value, traceback)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("sys.exc_info", args, kw); err != nil {
			return nil, err
		}
		if len(in.handling) == 0 {
			return in.NewTuple([]Value{None, None, None}), nil
		}
		e := in.handling[len(in.handling)-1]
		tb, err := in.GetAttr(e, "__traceback__")
		if err != nil {
			return nil, err
		}
		t := in.NewTuple([]Value{newRef(e.cls), newRef(e), tb})
		return t, nil
	})
	in.fn(m, "_debugmallocstats", "_debugmallocstats(): the free lists of dicts, lists and tuples the collector's model holds, on stderr", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("sys._debugmallocstats", args, kw); err != nil {
			return nil, err
		}
		_, _ = in.Stderr.Write([]byte(in.gc.freeListStats()))
		return None, nil
	})
	in.fn(m, "getrecursionlimit", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("sys.getrecursionlimit", args, kw); err != nil {
			return nil, err
		}
		return int64(recursionLimit), nil
	})
	in.fn(m, "exit", "exit(code=None): raises SystemExit(code)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var status Value = None
		if err := in.UnpackArgs("sys.exit", args, kw, "status?", &status, "/"); err != nil {
			return nil, err
		}
		if status == None {
			return nil, in.raiseInst(in.NewException(SystemExitType)) // CPython raises SystemExit() for sys.exit(None)
		}
		return nil, in.raiseInst(in.NewException(SystemExitType, status))
	})
	return m, nil
}

// ExitStatus reports whether err is an uncaught SystemExit (sys.exit,
// or raise SystemExit) and the status the process ends with, as CPython
// decides it: 0 for no code or None, an int code itself, else 1 with
// the code's str as msg, to be printed on stderr.
func (in *Interp) ExitStatus(err error) (status int, msg string, ok bool) {
	e, isExc := err.(*Exception)
	if !isExc || !e.Inst.cls.IsSubclass(SystemExitType) {
		return 0, "", false
	}
	switch c := exitCode(e.Inst).(type) {
	case NoneType:
		return 0, "", true
	case int64:
		return int(c), "", true
	case bool:
		if c {
			return 1, "", true
		}
		return 0, "", true
	default:
		return 1, in.StrOf(c), true
	}
}

// exitCode is a SystemExit's code: its one argument, None for none, the
// arguments' tuple for several.
func exitCode(o *Instance) Value {
	if o.exc.args == nil || len(o.exc.args.items) == 0 {
		return None
	}
	if len(o.exc.args.items) == 1 {
		return o.exc.args.items[0]
	}
	return o.exc.args
}

func init() {
	SystemExitType.SetAttr("code", NewProperty(NewBuiltin("code", "", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		return newRef(exitCode(self.(*Instance))), nil
	}), nil))
}
