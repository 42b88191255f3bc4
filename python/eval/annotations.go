package eval

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// annotate does what CPython does with an annotated assignment's
// annotation, after the value is stored: in a module or class body the
// annotation is evaluated, and for a plain name stored in the body's
// __annotations__ dict (made on first use) -- the text of the annotation
// instead under from __future__ import annotations; in a function it is
// not evaluated at all. dataclasses reads a class's __annotations__.
func (in *Interp) annotate(fr *Frame, s *syntax.AnnAssign) error {
	if fr.ns == nil {
		return nil
	}
	var ann Value
	if s.Deferred {
		if !s.Simple {
			return nil
		}
		ann = in.sourceText(fr.file, s.Annotation)
	} else {
		v, err := in.eval(fr, s.Annotation)
		if err != nil {
			return err
		}
		ann = v
	}
	defer in.Decref(ann)
	n, ok := s.Target.(*syntax.Name)
	if !ok || !s.Simple {
		return nil
	}
	d, ok := fr.ns.GetStr("__annotations__")
	if !ok {
		nd := in.NewDict()
		in.SetStr(fr.ns, "__annotations__", nd)
		in.Decref(nd)
		d = nd
	}
	return in.SetItem(d, n.Id, ann)
}

// sourceText is the text of e as CPython's unparse gives it where the
// two agree: a string constant's repr, else e's source as the user
// wrote it (one line's span, or from e's start to its line's end when e
// spans lines); "" when the source is not known.
func (in *Interp) sourceText(file string, e syntax.Expr) string {
	if c, ok := e.(*syntax.Constant); ok {
		if s, ok := c.Value.(string); ok {
			return in.ReprOf(s)
		}
	}
	lines := in.sources[file]
	start, end := e.Span()
	if start.Line < 1 || int(start.Line) > len(lines) {
		return ""
	}
	line := []rune(lines[start.Line-1])
	from, to := int(start.Col)-1, len(line)
	if end.Line == start.Line && int(end.Col)-1 <= len(line) {
		to = int(end.Col) - 1
	}
	if from < 0 || from > to {
		return ""
	}
	return strings.TrimSpace(string(line[from:to]))
}
