package eval

import (
	_ "embed"
	"math/big"
	"os"
)

// posixpathModule is os.path: posixpath's string functions (Python,
// posixpathSource), and exists, isfile and isdir asked of this
// machine's files.
func posixpathModule(in *Interp) (*ModuleObj, error) {
	p := in.NewModule("posixpath")
	stat := func(name string, ok func(os.FileInfo) bool) {
		in.fn(p, name, name+"(path)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			var p Value
			if err := in.UnpackDefArgs(name, args, kw, "path", &p); err != nil {
				return nil, err
			}
			path, fd, err := in.statPath(p)
			if err != nil || fd {
				return false, err
			}
			fi, serr := os.Stat(path)
			return serr == nil && ok(fi), nil
		})
	}
	stat("exists", func(os.FileInfo) bool { return true })
	stat("isfile", func(fi os.FileInfo) bool { return fi.Mode().IsRegular() })
	stat("isdir", func(fi os.FileInfo) bool { return fi.IsDir() })
	return in.execModule(p, posixpathSource)
}

// statPath is the path os.stat reads of p: a str, bytes, or what an
// object's __fspath__ gives; fd for a file descriptor (an int, not
// modelled: no file is open). Anything else is CPython's TypeError.
func (in *Interp) statPath(p Value) (path string, fd bool, err error) {
	switch v := plain(p).(type) {
	case string:
		return v, false, nil
	case Bytes:
		return string(v), false, nil
	case int64, bool, *big.Int:
		return "", true, nil
	}
	if TypeOf(p).lookup("__fspath__") == nil {
		return "", false, in.typeError("stat: path should be string, bytes, os.PathLike or integer, not %s", TypeOf(p).Name)
	}
	f, err := in.CallMethod(p, "__fspath__")
	if err != nil {
		return "", false, err
	}
	defer in.Decref(f)
	switch v := f.(type) {
	case string:
		return v, false, nil
	case Bytes:
		return string(v), false, nil
	}
	return "", false, in.typeError("expected %s.__fspath__() to return str or bytes, not %s", TypeOf(p).Name, TypeOf(f).Name)
}

// posixpathSource is os.path's string functions, in Python, as
// posixpath has them.
//
//go:embed lib/posixpath.py
var posixpathSource string
