package eval

import (
	"github.com/gpumemrepl/gpumemrepl/python/syntax"
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
	in.AddSource(file, SourceLines(src))
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

// SourceLines splits source text into lines as the parser counts them
// (\n, \r\n or a lone \r ends one), each with its line end.
func SourceLines(src []byte) []string {
	var out []string
	start := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '\n':
			out = append(out, string(src[start:i+1]))
			start = i + 1
		case '\r':
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			out = append(out, string(src[start:i+1]))
			start = i + 1
		}
	}
	if start < len(src) {
		out = append(out, string(src[start:]))
	}
	return out
}
