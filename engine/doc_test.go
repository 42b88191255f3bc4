package engine

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goFile is a Go file's name, with its path when doc.go gives one.
var goFile = regexp.MustCompile(`[a-z_0-9/]+\.go\b`)

// TestDocMapsEveryFile: the package comment (doc.go) names every file
// of the package, and no file that is not there, so the map stays true
// as files come and go.
func TestDocMapsEveryFile(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	named := map[string]bool{}
	for _, m := range goFile.FindAllString(string(doc), -1) {
		if !strings.Contains(m, "/") { // another package's file
			named[m] = true
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") && f != "doc.go" && !named[f] {
			t.Errorf("doc.go does not say where %s belongs", f)
		}
		delete(named, f)
	}
	for f := range named {
		t.Errorf("doc.go names %s, which is not a file of the package", f)
	}
}

// TestCoreNamesNoFamily: session.go uses no type, function or method
// that only a file outside doc.go's core declares (families.go, the
// one field where the families' state hangs, is of the core): the ground
// floor points at no family. A name some core file declares too (a
// method name like run) is not counted.
func TestCoreNamesNoFamily(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	core := string(doc)
	core = core[strings.Index(core, "# Core"):strings.Index(core, "# Graph")]
	isCore := map[string]bool{}
	for _, f := range goFile.FindAllString(core, -1) {
		isCore[f] = true
	}
	fset := token.NewFileSet()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		if files[name], err = parser.ParseFile(fset, name, nil, 0); err != nil {
			t.Fatal(err)
		}
	}
	declaredIn := map[string]map[string]bool{} // name -> files
	declare := func(name, file string) {
		if declaredIn[name] == nil {
			declaredIn[name] = map[string]bool{}
		}
		declaredIn[name][file] = true
	}
	for file, f := range files {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				declare(d.Name.Name, file)
			case *ast.GenDecl:
				for _, sp := range d.Specs {
					if ts, ok := sp.(*ast.TypeSpec); ok {
						declare(ts.Name.Name, file)
					}
				}
			}
		}
	}
	session := files["session.go"]
	if session == nil {
		t.Fatal("no session.go")
	}
	check := func(id *ast.Ident) {
		var outside []string
		for file := range declaredIn[id.Name] {
			if isCore[file] {
				return
			}
			outside = append(outside, file)
		}
		if len(outside) > 0 {
			t.Errorf("%s: session.go uses %s, declared by %v, outside the core", fset.Position(id.Pos()), id.Name, outside)
		}
	}
	// the names session.go takes from elsewhere in the package: s.NAME
	// (the Session's methods) and names the file does not resolve itself
	// (not a field, a key of a composite literal or a local)
	var visit func(n ast.Node) bool
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if x, ok := n.X.(*ast.Ident); ok && x.Name == "s" {
				check(n.Sel)
			}
			ast.Inspect(n.X, visit)
			return false
		case *ast.KeyValueExpr:
			if _, ok := n.Key.(*ast.Ident); !ok {
				ast.Inspect(n.Key, visit)
			}
			ast.Inspect(n.Value, visit)
			return false
		case *ast.Field:
			ast.Inspect(n.Type, visit)
			return false
		case *ast.Ident:
			if n.Obj == nil {
				check(n)
			}
		}
		return true
	}
	ast.Inspect(session, visit)
}
