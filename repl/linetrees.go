package repl

import (
	"strconv"

	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// lineTree is the tree of a line's text, kept to be run again, and the
// line it is placed at now; spans are its nodes' spans, listed when it
// is first run again.
type lineTree struct {
	mod   *syntax.Module
	line  int32
	spans []*syntax.Node
}

// parseLine is syntax.ParseFile of the one-line Python src at pos of
// file, from memory when the same text ran before at pos's column: its
// tree, moved to pos's line, as a generated sweep's lines recur. done
// gives the tree back once it has run; until then a line of the same
// text that runs inside it (a command in a function it calls) is parsed
// anew, so that a running tree never moves. A tree that makes a code
// object (a def, class, lambda or comprehension) is not run twice: the
// code keeps its nodes.
func (r *Runner) parseLine(file, src string, pos syntax.Pos) (mod *syntax.Module, done func(), err error) {
	key := src
	if pos.Col != 1 {
		key = strconv.Itoa(int(pos.Col)) + "\x00" + src
	}
	t, ok := r.lineTrees[key]
	if ok {
		delete(r.lineTrees, key)
		if t.spans == nil && !makesCode(t.mod) {
			t.spans = syntax.Spans(t.mod)
		}
		ok = t.spans != nil
	}
	if ok {
		for _, sp := range t.spans {
			sp.Start.Line += pos.Line - t.line
			sp.End.Line += pos.Line - t.line
		}
		t.line = pos.Line
	} else {
		mod, err := syntax.ParseFile(file, []byte(src+"\n"), &syntax.Options{At: pos})
		if err != nil {
			return nil, nil, err
		}
		t = &lineTree{mod: mod, line: pos.Line}
	}
	return t.mod, func() { r.lineTrees.put(key, t) }, nil
}

// makesCode reports whether running mod makes a code object (a
// function, a class, a lambda, a comprehension's), which keeps its
// nodes.
func makesCode(mod *syntax.Module) bool {
	found := false
	syntax.Inspect(mod, func(n any) bool {
		switch n.(type) {
		case *syntax.FunctionDef, *syntax.ClassDef, *syntax.Lambda, *syntax.ListComp, *syntax.SetComp, *syntax.DictComp, *syntax.GeneratorExp:
			found = true
		}
		return !found
	})
	return found
}
