package syntax

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// errorCases are files with the syntax errors people make most, each
// named for its mistake.
var errorCases = []struct{ name, src string }{
	{"assignment without a value", "x = = 1\n"},
	{"print statement", "print 'x'\n"},
	{"print statement of a name", "print x\n"},
	{"exec statement", "exec 'x = 1'\n"},
	{"unclosed f-string brace", "f'{x'\n"},
	{"f-string brace alone", "f'{'\n"},
	{"f-string closing brace alone", "f'}'\n"},
	{"f-string bad conversion", "f'{x!z}'\n"},
	{"f-string empty expression", "f'{}'\n"},
	{"non-default argument after default", "def f(x=1, y):\n  pass\n"},
	{"return at module level", "return 1\n"},
	{"yield at module level", "yield 1\n"},
	{"break outside loop", "break\n"},
	{"continue outside loop", "if x:\n  continue\n"},
	{"tab after spaces", "if x:\n        a\n\tb\n"},
	{"spaces after tab", "if True:\n\tx = 1\n        y = 2\n"},
	{"invalid decimal literal", "x = 1abc\n"},
	{"leading zeros", "x = 0777\n"},
	{"trailing underscore", "x = 1_\n"},
	{"double underscore", "x = 1__0\n"},
	{"hex without digits", "x = 0x\n"},
	{"invalid binary digit", "x = 0b102\n"},
	{"unterminated string", "x = 'abc\n"},
	{"unterminated triple-quoted string", "x = '''abc\n\n"},
	{"bracket never closed", "x = (1, 2\n"},
	{"bracket never closed before another line", "x = [1, 2\ny = 3\n"},
	{"unmatched bracket", "x = )\n"},
	{"mismatched brackets", "(]\n"},
	{"mismatched brackets on two lines", "(\n]\n"},
	{"if without colon", "if x\n  pass\n"},
	{"comparison without colon", "if x == 1\n  pass\n"},
	{"for without colon", "for x in range(10)\n  pass\n"},
	{"while without colon", "while x\n  pass\n"},
	{"class without colon", "class C\n  pass\n"},
	{"def without parentheses", "def f:\n  pass\n"},
	{"forgotten comma in call", "f(a b)\n"},
	{"forgotten comma in list", "[1 2]\n"},
	{"two numbers", "x = 10 20\n"},
	{"if body not indented", "if x:\npass\n"},
	{"def body not indented", "def f(x):\nreturn x\n"},
	{"for body not indented", "for i in range(3):\nprint(i)\n"},
	{"class body not indented", "class C:\npass\n"},
	{"unexpected indent", "  x = 1\n"},
	{"unexpected indent after a line", "x = 1\n  y = 2\n"},
	{"unindent to no level", "if x:\n    a\n  b\n"},
	{"assignment to a call", "f() = 1\n"},
	{"assignment to a literal", "1 = x\n"},
	{"assignment to None", "None = 1\n"},
	{"assignment to True", "True = 1\n"},
	{"chained assignment to an expression", "x = a + 1 = 2\n"},
	{"augmented assignment to a tuple", "a, b += 1\n"},
	{"augmented assignment to a call", "f() += 1\n"},
	{"delete a call", "del f()\n"},
	{"delete a literal", "del 1\n"},
	{"positional argument after keyword", "f(x=1, 2)\n"},
	{"positional argument after **", "f(**k, a)\n"},
	{"* after **", "f(**k, *a)\n"},
	{"keyword repeated", "f(a=1, a=2)\n"},
	{"keyword is an expression", "f(a.b=1)\n"},
	{"keyword ==", "f(a==1=2)\n"},
	{"generator not parenthesized", "f(a for a in b, c)\n"},
	{"comprehension over a bare tuple", "[x for x in 1, 2]\n"},
	{"comprehension target a literal", "[x for 1 in y]\n"},
	{"duplicate argument", "def f(a, a):\n  pass\n"},
	{"bare * parameter", "def f(*):\n  pass\n"},
	{"parameter after **", "def f(**k, a):\n  pass\n"},
	{"star expression alone", "x = *a\n"},
	{"starred assignment alone", "*a = 1\n"},
	{"two starred targets", "*a, *b = c\n"},
	{"dict with a set element", "x = {1: 2, 3}\n"},
	{"dict ** with a value", "x = {**a: 1}\n"},
	{"conditional without else", "x = 5 if y\n"},
	{"conditional without else value", "x = 1 if 2 else\n"},
	{"operator at the end of the line", "x = 1 +\n"},
	{"walrus as a statement", "x := 1\n"},
	{"walrus to an attribute", "(a.b := 1)\n"},
	{"lambda with a default before none", "lambda x=1, y: x\n"},
	{"import without a name", "import\n"},
	{"from import without a name", "from x import\n"},
	{"from import trailing comma", "from x import a,\n"},
	{"import as without a name", "import a.b as\n"},
	{"else alone", "else:\n  pass\n"},
	{"except alone", "except:\n  pass\n"},
	{"try without except", "try:\n  pass\nx = 1\n"},
	{"elif after else", "if x:\n  pass\nelse:\n  pass\nelif y:\n  pass\n"},
	{"dollar sign", "x = $\n"},
	{"backquotes", "x = `a`\n"},
	{"question mark", "x = a ? b : c\n"},
	{"curly quotes", "x = \u2018a\u2019\n"},
	{"non-breaking space", "x = 1\u00a0+ 2\n"},
	{"unknown \\N name", "x = '\\N{foo}'\n"},
	{"non-ASCII in bytes", "x = b'\u00e9'\n"},
	{"truncated \\x escape", "x = '\\x1'\n"},
	{"truncated \\U escape in bytes", "x = b'\\U0001'\n"},
	{"name used before global", "def f():\n  print(x)\n  global x\n"},
	{"name assigned before global", "def f():\n  x = 1\n  global x\n"},
	{"nonlocal at module level", "nonlocal x\n"},
	{"nonlocal without binding", "def f():\n  nonlocal x\n"},
	{"with without colon", "with open(f) as g\n  pass\n"},
	{"with as a call", "with a as f():\n  pass\n"},
	{"return in class", "class C:\n  return 1\n"},
	{"await at module level", "await x\n"},
	{"await in an assignment", "x = await y\n"},
	{"await in a def", "def f():\n  await x\n"},
	{"await in a lambda", "lambda: await x\n"},
	{"await in a class in a def", "def f():\n  class C:\n    await x\n"},
	{"async with", "async with a:\n  pass\n"},
	{"async for in a def", "def f():\n  async for a in b:\n    pass\n"},
	{"double comma", "x = [1, 2,, 3]\n"},
	{"parameters without comma", "def f(x y):\n  pass\n"},
	{"while without colon on one line", "while True print(1)\n"},
	{"f-string spec nested too deeply", "f'{x:{y:{z}}}'\n"},
	{"exponent without digits", "x = 1e\n"},
	{"two decimal points", "x = 1.2.3\n"},
	{"dict without comma", "d = {'a': 1 'b': 2}\n"},
	{"hyphen in a module name", "import foo-bar\n"},
	{"attribute that is a number", "a.1\n"},
	{"assignment without value", "x =\n"},
	{"two statements on a line", "pass pass\n"},
	{"decorator without def", "@dec\nx = 1\n"},
	{"lambda in a default without body", "def f(x=lambda:):\n  pass\n"},
	{"continuation character junk", "x = 1 \\ 2\n"},
	{"backslash at the end of input", "x = 1 + \\"},
	{"string prefix unknown", "x = k'a'\n"},
	{"missing closing quote after concatenation", "x = 'a' 'b\n"},
	{"equals in an if test", "if x = 1:\n  pass\n"},
	{"arrow without annotation", "def f() -> :\n  pass\n"},
	{"empty subscript", "x[]\n"},
	{"keyword as a name", "class = 1\n"},
	{"keyword as a parameter", "def f(if):\n  pass\n"},
	{"deep brackets", strings.Repeat("(", 201) + strings.Repeat(")", 201) + "\n"},
	{"deep blocks", deepBlocks(101)},
}

// deepBlocks is a file of n nested if blocks.
func deepBlocks(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "if x:\n")
	}
	b.WriteString(strings.Repeat(" ", n) + "pass\n")
	return b.String()
}

// TestSyntaxErrorsMatchCPython parses each errorCase as a file and
// compares the error (kind, message, line and column) with the one
// python3's compile(src, "f", "exec") raises.
func TestSyntaxErrorsMatchCPython(t *testing.T) {
	python := pythonOrFail(t)
	srcs := make([]string, len(errorCases))
	for i, c := range errorCases {
		srcs[i] = c.src
	}
	in, err := json.Marshal(srcs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, filepath.Join("testdata", "compile_errors.py"))
	cmd.Stdin = strings.NewReader(string(in))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("compile_errors.py: %v", err)
	}
	var want []*[4]any
	if err := json.Unmarshal(out, &want); err != nil || len(want) != len(errorCases) {
		t.Fatalf("compile_errors.py gave %d results for %d cases (%v): %s", len(want), len(errorCases), err, out)
	}
	for i, c := range errorCases {
		w := "compiles"
		if want[i] != nil {
			w = fmt.Sprintf("f:%v:%v: %v: %v", want[i][2], want[i][3], want[i][0], want[i][1])
		}
		g := "compiles"
		if _, err := ParseFile("f", []byte(c.src), nil); err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Errorf("%s: the error is a %T, not a *Error: %v", c.name, err, err)
				continue
			}
			g = e.Error()
		}
		if g != w {
			t.Errorf("%s: %q\n got: %s\nwant: %s", c.name, c.src, g, w)
		}
	}
}

// TestRefusedSyntax checks the errors for the Python 3.11 syntax this
// package does not parse: each names what it refuses, where it starts.
func TestRefusedSyntax(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"match x:\n  case 1:\n    pass\n", "f:1:1: SyntaxError: 'match' is not supported"},
		{"if y:\n  match (x):\n    case _: pass\n", "f:2:3: SyntaxError: 'match' is not supported"},
		{"async def f():\n  pass\n", "f:1:1: SyntaxError: 'async' is not supported"},
		{"try:\n  pass\nexcept* E:\n  pass\n", "f:3:7: SyntaxError: 'except*' is not supported"},
	} {
		_, err := ParseFile("f", []byte(c.src), nil)
		if err == nil || err.Error() != c.want {
			t.Errorf("%q: got %v, want %s", c.src, err, c.want)
		}
	}
	for _, src := range []string{"match = 1\n", "match(x)\n", "match[1]: int = 2\n", "print(match)\n"} {
		if _, err := ParseFile("f", []byte(src), nil); err != nil {
			t.Errorf("%q: the name match is refused: %v", src, err)
		}
	}
}

// TestErrorsPlacedAt: a text placed by Options.At (a line of a larger
// script) gives its errors that script's lines and columns, the end of
// input's too.
func TestErrorsPlacedAt(t *testing.T) {
	for src, want := range map[string]string{
		"for i in range(2):\n":         "f:5:21: IndentationError: expected an indented block after 'for' statement on line 5",
		"for i in range(2):":           "f:5:21: IndentationError: expected an indented block after 'for' statement on line 5",
		"if x:\n    y = 1\n":           "",
		"x = (1,\n":                    "f:5:7: SyntaxError: '(' was never closed",
		"x = 1\ny = (1 +\n":            "f:6:5: SyntaxError: '(' was never closed",
		"def f():\n    pass\n  return": "f:7:9: IndentationError: unindent does not match any outer indentation level",
	} {
		_, err := ParseFile("f", []byte(src), &Options{At: Pos{Line: 5, Col: 3}})
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%q placed at 5:3: %q, want %q", src, got, want)
		}
	}
}
