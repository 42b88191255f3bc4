package syntax

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// scopeFiles are the files whose scopes TestScopesMatchCPython compares:
// our cases, and standard library modules rich in closures, classes,
// comprehensions and super().
var scopeFiles = []string{
	"testdata/scopecases.py",
	"collections/__init__.py", "functools.py", "typing.py", "threading.py", "enum.py",
	"inspect.py", "argparse.py", "_pydecimal.py", "pydoc.py", "test/test_scope.py",
}

// TestScopesMatchCPython compares each function's, lambda's, class's and
// comprehension's Scope with the code object CPython compiles for it:
// co_varnames (our Locals less the cells that are not parameters), the
// cells and the free names.
func TestScopesMatchCPython(t *testing.T) {
	python := pythonOrFail(t)
	out, err := exec.Command(python, "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
	if err != nil {
		t.Fatalf("asking python3 for its standard library: %v", err)
	}
	stdlib := strings.TrimSpace(string(out))
	var files []string
	for _, f := range scopeFiles {
		if !strings.HasPrefix(f, "testdata/") {
			f = filepath.Join(stdlib, f)
		}
		files = append(files, f)
	}
	cmd := exec.Command(python, filepath.Join("testdata", "codeinfo.py"))
	cmd.Stdin = strings.NewReader(strings.Join(files, "\n"))
	cmd.Stderr = os.Stderr
	res, err := cmd.Output()
	if err != nil {
		t.Fatalf("codeinfo.py: %v", err)
	}
	want := map[string]string{}
	var path string
	for _, line := range strings.Split(strings.TrimRight(string(res), "\n"), "\n") {
		if p, ok := strings.CutPrefix(line, "=== "); ok {
			path = p
			continue
		}
		want[path] += line + "\n"
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseFile(f, src, nil)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		got := strings.Join(codeInfo(m), "\n") + "\n"
		if got != want[f] {
			w, g := strings.Split(want[f], "\n"), strings.Split(got, "\n")
			for i := 0; i < len(w) && i < len(g); i++ {
				if w[i] != g[i] {
					t.Errorf("%s: first difference:\n\tCPython: %s\n\tours:    %s", f, w[i], g[i])
					break
				}
			}
			if len(w) != len(g) {
				t.Errorf("%s: %d code objects in CPython, %d scopes here", f, len(w)-1, len(g)-1)
			}
		}
	}
}

// codeInfo lists m's scopes as codeinfo.py lists code objects, sorted.
func codeInfo(m *Module) []string {
	var out []string
	add := func(name string, line int32, s *Scope, params int, class bool) {
		var varnames []string
		for i, l := range s.Locals {
			if !class && (i < params || !slices.Contains(s.Cells, l)) {
				varnames = append(varnames, l)
			}
		}
		cells, free := slices.Clone(s.Cells), slices.Clone(s.Free)
		slices.Sort(cells)
		slices.Sort(free)
		out = append(out, name+" "+strconv.Itoa(int(line))+" | "+strings.Join(varnames, " ")+" | "+strings.Join(cells, " ")+" | "+strings.Join(free, " "))
	}
	Inspect(m, func(n any) bool {
		switch n := n.(type) {
		case *FunctionDef:
			add(n.Name, firstLine(n.Start, n.DecoratorList), n.Scope, len(allArgs(n.Args)), false)
		case *ClassDef:
			add(n.Name, firstLine(n.Start, n.DecoratorList), n.Scope, 0, true)
		case *Lambda:
			add("<lambda>", n.Start.Line, n.Scope, len(allArgs(n.Args)), false)
		case *ListComp:
			add("<listcomp>", n.Start.Line, n.Scope, 1, false)
		case *SetComp:
			add("<setcomp>", n.Start.Line, n.Scope, 1, false)
		case *DictComp:
			add("<dictcomp>", n.Start.Line, n.Scope, 1, false)
		case *GeneratorExp:
			add("<genexpr>", n.Start.Line, n.Scope, 1, false)
		}
		return true
	})
	slices.Sort(out)
	return out
}

// firstLine is a def's or class's co_firstlineno: its first decorator's.
func firstLine(start Pos, decorators []Expr) int32 {
	if len(decorators) > 0 {
		return exprStart(decorators[0]).Line
	}
	return start.Line
}
