package eval

import (
	"os"
	"strings"
)

// osModule is os: PYTORCH_* environment variables, getenv, getcwd,
// os.path, and the calls that would change files, refused as open is.
func osModule(in *Interp) (*ModuleObj, error) {
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
		var key Value
		var def Value = None
		if err := in.UnpackDefArgs("getenv", args, kw, "key", &key, "default?", &def); err != nil {
			return nil, err
		}
		if v, ok, err := in.dictGet(env, key); err != nil || ok {
			return newRef(v), err
		}
		return newRef(def), nil
	})
	m.Set(in, "sep", "/")
	m.Set(in, "devnull", "/dev/null")
	in.fn(m, "getcwd", "getcwd()", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("posix.getcwd", args, kw); err != nil {
			return nil, err
		}
		wd, err := os.Getwd()
		if err != nil {
			return nil, in.Raise(OSErrorType, "%s", err.Error())
		}
		return wd, nil
	})
	for _, f := range osRefused {
		in.fn(m, f.name, f.name+"(...): not modelled", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.unpackIgnored(f.name, f.style, args, kw, f.params); err != nil {
				return nil, err
			}
			return nil, in.Refuse(NotImplementedErrType, "os.%s is not modelled by gpumemrepl (scripts touch no files)", f.name)
		})
	}
	p, err := posixpathModule(in)
	if err != nil {
		return m, err
	}
	m.Set(in, "path", p)
	in.modules["os.path"] = p // import os.path finds it; the table keeps p's first reference
	return m, nil
}

// osRefused are the functions of os that touch files, each with its
// parameters as CPython 3.11 declares them (styleDef: written in
// Python, os.makedirs and os.walk): a call is checked as CPython
// checks it, then refused.
var osRefused = []struct {
	name   string
	style  checkStyle
	params []string
}{
	{"makedirs", styleDef, []string{"name", "mode?", "exist_ok?"}},
	{"mkdir", styleC, []string{"path", "mode?", "*", "dir_fd?"}},
	{"remove", styleC, []string{"path", "*", "dir_fd?"}},
	{"unlink", styleC, []string{"path", "*", "dir_fd?"}},
	{"rmdir", styleC, []string{"path", "*", "dir_fd?"}},
	{"rename", styleC, []string{"src", "dst", "*", "src_dir_fd?", "dst_dir_fd?"}},
	{"replace", styleC, []string{"src", "dst", "*", "src_dir_fd?", "dst_dir_fd?"}},
	{"listdir", styleC, []string{"path?"}},
	{"scandir", styleC, []string{"path?"}},
	{"walk", styleDef, []string{"top", "topdown?", "onerror?", "followlinks?"}},
	{"chdir", styleC, []string{"path"}},
	{"system", styleC, []string{"command"}},
}
