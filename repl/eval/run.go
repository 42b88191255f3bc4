package eval

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/repl/syntax"
)

// RunFile runs a whole script as python FILE does: each top-level
// statement in turn in a fresh __main__ namespace. An exception that
// reaches the top is printed as CPython prints it and returned (the
// caller exits 1); a syntax error is returned unrun.
func (in *Interp) RunFile(file string, src []byte, opts *syntax.Options) error {
	mod, err := syntax.ParseFile(file, src, opts)
	if err != nil {
		return err
	}
	in.AddSource(file, strings.SplitAfter(string(src), "\n"))
	g := in.NewGlobals(file)
	fr := in.ModuleFrame(file, g)
	in.Decref(g)
	defer in.Release(fr)
	for _, s := range mod.Body {
		if err := in.ExecStmt(fr, s); err != nil {
			if _, ok := err.(*Exception); ok {
				in.write("")
				_, _ = in.Stderr.Write([]byte(in.FormatError(err)))
			}
			return err
		}
	}
	return nil
}
