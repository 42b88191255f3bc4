package engine

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// TestKindOf: an error's kind is its own, through any wrapping; the
// allocator's out of memory is torch.OutOfMemoryError; an error nobody
// classed is a RuntimeError.
func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want ErrorKind
	}{
		{Errorf(IndexError, "index 3 is out of bounds"), IndexError},
		{fmt.Errorf("cuda:0: %w", Errorf(ValueError, "bad")), ValueError},
		{&allocator.OutOfMemoryError{Huge: true}, OutOfMemoryError},
		{fmt.Errorf("cuda:0: %w", &allocator.OutOfMemoryError{Huge: true}), OutOfMemoryError},
		{errValueSized("torch.nonzero"), NotImplementedError},
		{errors.New("no kind"), RuntimeError},
	} {
		if got := KindOf(c.err); got != c.want {
			t.Errorf("KindOf(%q) = %s, want %s", c.err, got, c.want)
		}
	}
}

// TestNoErrorTextNamesItsClass: no error the package makes begins its
// text with a Python class ("RuntimeError: ..."): the class is the
// error's kind (Errorf), which the binding reads; a text that names it
// would print the class twice, or the wrong one.
func TestNoErrorTextNamesItsClass(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	classed := regexp.MustCompile(`^"(torch\.)?[A-Za-z]*(Error|Interrupt): `)
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			text := call.Args[0]
			if sel, ok := call.Fun.(*ast.Ident); ok && sel.Name == "Errorf" && len(call.Args) > 1 {
				text = call.Args[1]
			}
			if lit, ok := text.(*ast.BasicLit); ok && lit.Kind == token.STRING && classed.MatchString(lit.Value) {
				t.Errorf("%s: an error text that names its class (%.40s...); write Errorf(Kind, ...)", fset.Position(lit.Pos()), lit.Value)
			}
			return true
		})
	}
}
