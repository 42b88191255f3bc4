package eval

import (
	_ "embed"
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
			path, isStr := asStr(p)
			if !isStr {
				return false, nil
			}
			fi, err := os.Stat(path)
			return err == nil && ok(fi), nil
		})
	}
	stat("exists", func(os.FileInfo) bool { return true })
	stat("isfile", func(fi os.FileInfo) bool { return fi.Mode().IsRegular() })
	stat("isdir", func(fi os.FileInfo) bool { return fi.IsDir() })
	return in.execModule(p, posixpathSource)
}

// posixpathSource is os.path's string functions, in Python, as
// posixpath has them.
//
//go:embed lib/posixpath.py
var posixpathSource string
