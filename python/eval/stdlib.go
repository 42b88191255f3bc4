package eval

import (
	"math"
	"math/big"
	"os"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/pyformat"
	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// stdoutType and stderrType are the classes of sys.stdout and
// sys.stderr: print(file=sys.stderr) writes to Interp.Stderr.
var (
	stdoutType = NewClass("TextIOWrapper", "io")
	stderrType = NewClass("TextIOWrapper", "io")
	// typingAlias is the class of typing's names (List, Optional...):
	// subscripting one gives it back, as annotations need nothing more.
	typingAlias = NewClass("_SpecialForm", "typing")
	// futureFeature is the class of __future__'s names (the compiler acts
	// on the import; the names are only bound).
	futureFeature = NewClass("_Feature", "__future__")
)

func init() {
	for _, c := range []*Class{stdoutType, stderrType} {
		c.Native = false
		method(c, "write", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			s, err := in.strArg("write", args, 0)
			if err != nil {
				return nil, err
			}
			out := in.Stdout
			if self.(*Instance).cls == stderrType {
				out = in.Stderr
			}
			_, _ = out.Write([]byte(s))
			return int64(len([]rune(s))), nil
		})
		method(c, "flush", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) { return None, nil })
	}
	method(typingAlias, "__getitem__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		return newRef(self), nil
	})
	method(typingAlias, "__repr__", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		name, _ := self.(*Instance).Dict.GetStr("_name")
		return "typing." + in.StrOf(name), nil
	})
}

// builtinsModule is the builtins module over the builtins namespace.
func (in *Interp) builtinsModule() *ModuleObj {
	if m, ok := in.modules["builtins"]; ok {
		return m
	}
	m := &ModuleObj{Name: "builtins", Dict: newRef(in.builtins).(*Dict)}
	in.track(m)
	in.modules["builtins"] = m
	return m
}

// fn declares a function of a module.
func (in *Interp) fn(m *ModuleObj, name, doc string, f GoFunc) {
	in.SetStr(m.Dict, name, NewBuiltin(name, doc, f))
}

// pythonModule is a standard module written in Python (src), run once
// in a module of its own the first time it is imported.
func (in *Interp) pythonModule(name, src string) (*ModuleObj, error) {
	return in.execModule(in.NewModule(name), src)
}

// execModule runs a module's Python source in its namespace (which
// may hold its Go functions already).
func (in *Interp) execModule(m *ModuleObj, src string) (*ModuleObj, error) {
	name := m.Name
	fr := in.ModuleFrame("<"+name+">", m.Dict)
	defer in.Release(fr)
	return m, in.ExecSource(fr, "<"+name+">", src)
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

// installStdlib declares the standard modules a memory experiment
// imports: sys, gc, os, math, time, typing, functools, itertools,
// collections, contextlib, warnings.
func (in *Interp) installStdlib() {
	in.builtinsModule()
	in.RegisterModule("sys", func(in *Interp) (*ModuleObj, error) {
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
			if err := in.fixedArgs("getrefcount", args, kw, 1, 1); err != nil {
				return nil, err
			}
			if o, ok := args[0].(Object); ok {
				return int64(o.header().refs), nil
			}
			return int64(1 << 30), nil
		})
		in.fn(m, "exc_info", "exc_info(): the exception being handled, as (type, value, traceback)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs("exc_info", args, kw, 0, 0); err != nil {
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
		in.fn(m, "getrecursionlimit", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			return int64(recursionLimit), nil
		})
		in.fn(m, "exit", "exit(code=None): raises SystemExit(code)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs("exit", args, kw, 0, 1); err != nil {
				return nil, err
			}
			if len(args) == 1 && args[0] == None {
				args = nil // CPython raises SystemExit() for sys.exit(None)
			}
			return nil, in.raiseInst(in.NewException(SystemExitType, args...))
		})
		return m, nil
	})
	in.RegisterModule("gc", func(in *Interp) (*ModuleObj, error) {
		m := in.NewModule("gc")
		in.fn(m, "collect", "collect(): free unreachable reference cycles, return how many objects", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			return int64(in.Collect()), nil
		})
		in.fn(m, "get_objects", "get_objects(generation=None): a list of every object the collector tracks", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			return in.GetObjects(), nil
		})
		in.fn(m, "disable", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			in.gcDisabled = true
			return None, nil
		})
		in.fn(m, "enable", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			in.gcDisabled = false
			return None, nil
		})
		in.fn(m, "isenabled", "", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			return !in.gcDisabled, nil
		})
		return m, nil
	})
	in.RegisterModule("os", func(in *Interp) (*ModuleObj, error) {
		m := in.NewModule("os")
		env := in.NewDict()
		for _, kv := range os.Environ() {
			if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, "PYTORCH_") {
				in.SetStr(env, k, v)
			}
		}
		m.Set(in, "environ", env)
		in.Decref(env)
		in.fn(m, "getenv", "getenv(key, default=None)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs("getenv", args, kw, 1, 2); err != nil {
				return nil, err
			}
			if v, ok, err := in.dictGet(env, args[0]); err != nil || ok {
				return newRef(v), err
			}
			if len(args) == 2 {
				return newRef(args[1]), nil
			}
			return None, nil
		})
		m.Set(in, "sep", "/")
		return m, in.osMore(m)
	})
	in.RegisterModule("math", in.mathModule)
	in.RegisterModule("time", func(in *Interp) (*ModuleObj, error) {
		m := in.NewModule("time")
		for _, name := range []string{"time", "perf_counter", "monotonic", "process_time", "time_ns", "perf_counter_ns"} {
			in.fn(m, name, name+"(): not computed (the tool does not time PyTorch)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
				return Unknown{What: "time." + name + "()"}, nil
			})
		}
		in.fn(m, "sleep", "sleep(s): returns at once (no time passes in the model)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			return None, nil
		})
		return m, nil
	})
	in.RegisterModule("typing", func(in *Interp) (*ModuleObj, error) {
		m := in.NewModule("typing")
		for _, name := range []string{"Any", "Optional", "Union", "Callable", "Iterable", "Iterator", "Sequence", "Mapping", "Type", "Generator", "ClassVar", "Final", "Literal"} {
			o := &Instance{cls: typingAlias, Dict: in.NewDict()}
			in.track(o)
			in.SetStr(o.Dict, "_name", name)
			m.Set(in, name, o)
			in.Decref(o)
		}
		for name, c := range map[string]*Class{"List": ListType, "Dict": DictType, "Tuple": TupleType, "Set": SetType} {
			m.Set(in, name, c)
		}
		return m, nil
	})
	in.RegisterModule("warnings", in.warningsModule)
	in.RegisterModule("collections", in.collectionsModule)
	in.installPythonModules()
	in.RegisterModule("io", func(in *Interp) (*ModuleObj, error) {
		m := in.NewModule("io")
		m.Set(in, "TextIOWrapper", stdoutType)
		return in.execModule(m, ioSource)
	})
	in.RegisterModule("__future__", func(in *Interp) (*ModuleObj, error) {
		m := in.NewModule("__future__")
		for name := range syntax.FutureFeatures {
			o := &Instance{cls: futureFeature, Dict: in.NewDict()}
			in.track(o)
			m.Set(in, name, o)
			in.Decref(o)
		}
		return m, nil
	})
	in.RegisterModule("argparse", func(in *Interp) (*ModuleObj, error) { return in.pythonModule("argparse", argparseSource) })
	in.RegisterModule("copy", in.copyModule)
	in.RegisterModule("inspect", in.inspectModule)
	in.RegisterModule("json", func(in *Interp) (*ModuleObj, error) { return in.pythonModule("json", jsonSource) })
	in.RegisterModule("logging", in.loggingModule)
	in.RegisterModule("dataclasses", func(in *Interp) (*ModuleObj, error) { return in.pythonModule("dataclasses", dataclassesSource) })
	in.RegisterModule("functools", in.functoolsModule)
	in.RegisterModule("contextlib", in.contextlibModule)
	in.RegisterModule("itertools", in.itertoolsModule)
	in.RegisterModule("weakref", in.weakrefModule)
	in.RegisterModule("random", in.randomModule)
	in.RegisterModule("traceback", in.tracebackModule)
}

func (*Interp) mathModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("math")
	m.Set(in, "pi", math.Pi)
	m.Set(in, "e", math.E)
	m.Set(in, "inf", math.Inf(1))
	m.Set(in, "nan", math.NaN())
	m.Set(in, "tau", 2*math.Pi)
	in.mathMore(m)
	unary := map[string]func(float64) float64{"sqrt": math.Sqrt, "exp": math.Exp, "log2": math.Log2,
		"log10": math.Log10, "sin": math.Sin, "cos": math.Cos, "tanh": math.Tanh, "fabs": math.Abs,
		"tan": math.Tan, "asin": math.Asin, "acos": math.Acos, "atan": math.Atan, "sinh": math.Sinh,
		"cosh": math.Cosh, "asinh": math.Asinh, "acosh": math.Acosh, "atanh": math.Atanh,
		"expm1": math.Expm1, "log1p": math.Log1p, "erf": math.Erf, "erfc": math.Erfc,
		"degrees": func(x float64) float64 { return x * (180 / math.Pi) },
		"radians": func(x float64) float64 { return x * (math.Pi / 180) }}
	for name, f := range unary {
		in.fn(m, name, name+"(x)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 1, 1); err != nil {
				return nil, err
			}
			if u, ok := args[0].(Unknown); ok {
				return u, nil
			}
			x, err := in.floatArg(name, args[0])
			if err != nil {
				return nil, err
			}
			r := f(x)
			if math.IsNaN(r) && !math.IsNaN(x) {
				return nil, in.Raise(ValueErrorType, "math domain error")
			}
			return r, nil
		})
	}
	in.fn(m, "log", "log(x[, base])", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("log", args, kw, 1, 2); err != nil {
			return nil, err
		}
		x, err := in.floatArg("log", args[0])
		if err != nil {
			return nil, err
		}
		if x <= 0 {
			return nil, in.Raise(ValueErrorType, "math domain error")
		}
		r := math.Log(x)
		if len(args) == 2 {
			b, err := in.floatArg("log", args[1])
			if err != nil {
				return nil, err
			}
			r /= math.Log(b)
		}
		return r, nil
	})
	rounding := map[string]func(float64) float64{"ceil": math.Ceil, "floor": math.Floor, "trunc": math.Trunc}
	for name, f := range rounding {
		in.fn(m, name, name+"(x)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 1, 1); err != nil {
				return nil, err
			}
			if b, ok := bigInt(args[0]); ok {
				return normInt(b), nil
			}
			if u, ok := args[0].(Unknown); ok {
				return u, nil
			}
			x, err := in.floatArg(name, args[0])
			if err != nil {
				return nil, err
			}
			r, err := pyformat.FloatToInt(f(x))
			if err != nil {
				return nil, in.pyErr(err)
			}
			return normInt(r), nil
		})
	}
	in.fn(m, "prod", "prod(iterable)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("prod", args, kw, 1, 1); err != nil {
			return nil, err
		}
		var acc Value = int64(1)
		err := in.forEach(args[0], func(v Value) error {
			r, err := in.BinOp(multOp, acc, v, false)
			in.Decref(acc)
			acc = r
			if err != nil {
				acc = int64(0)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		return acc, nil
	})
	in.fn(m, "isclose", "isclose(a, b)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) != 2 {
			return nil, in.typeError("isclose() takes 2 positional arguments")
		}
		a, err := in.floatArg("isclose", args[0])
		if err != nil {
			return nil, err
		}
		b, err := in.floatArg("isclose", args[1])
		if err != nil {
			return nil, err
		}
		return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)), nil
	})
	for name, f := range map[string]func(float64) bool{"isnan": math.IsNaN, "isinf": func(x float64) bool { return math.IsInf(x, 0) },
		"isfinite": func(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }} {
		in.fn(m, name, name+"(x)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 1, 1); err != nil {
				return nil, err
			}
			x, err := in.floatArg(name, args[0])
			if err != nil {
				return nil, err
			}
			return f(x), nil
		})
	}
	return m, nil
}

// floatArg is v as a float, for math's functions.
func (in *Interp) floatArg(fn string, v Value) (float64, error) {
	v = plain(v, "__float__", "__index__")
	switch x := v.(type) {
	case float64:
		return x, nil
	case *big.Int:
		f, err := pyformat.IntToFloat(x)
		return f, in.pyErr(err)
	case Unknown:
		return 0, in.unknownError(x)
	}
	if _, ok := bigInt(v); ok {
		return toFloat(v), nil
	}
	return 0, in.typeError("must be real number, not %s", TypeOf(v).Name)
}
