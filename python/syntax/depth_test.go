package syntax

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cpythonLimits is testdata/cpython_limits.json, what
// scripts/cpython_limits.py measured of CPython 3.12: for each shape, a
// program of n repeats (head + repeat*n + tail), the most repeats that
// run and the error of one more.
type cpythonLimits struct {
	Python string `json:"python"`
	Shapes map[string]struct {
		Head, Repeat, Tail string
		MaxOK              int    `json:"max_ok"`
		FirstFail          int    `json:"first_fail"`
		Error              string `json:"error"`
	} `json:"shapes"`
}

func readLimits(t testing.TB) cpythonLimits {
	b, err := os.ReadFile(filepath.Join("testdata", "cpython_limits.json"))
	if err != nil {
		t.Fatal(err)
	}
	var l cpythonLimits
	if err := json.Unmarshal(b, &l); err != nil || len(l.Shapes) == 0 || !strings.HasPrefix(l.Python, "3.12") {
		t.Fatalf("cpython_limits.json: %v, python %q, %d shapes", err, l.Python, len(l.Shapes))
	}
	return l
}

// parseErr is the error of parsing src as a file, as "Kind: Msg", or ""
// where it compiles.
func parseErr(src string) string {
	_, err := ParseFile("f.py", []byte(src), nil)
	var e *Error
	if errors.As(err, &e) {
		return e.Kind + ": " + e.Msg
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// Every shape CPython's compiler refuses with RecursionError (a chain
// of operators, calls, attributes, subscripts, unary operators, in a
// def, in blocks, in call arguments...) runs up to the same count and is
// refused one past it with the same error. A ** chain CPython's parser
// refuses a few terms sooner (MemoryError, at a depth that depends on
// its grammar's rules around it: 2984 terms at module level, 2975 in
// three ifs); ours runs as far as CPython's does and is refused at the
// compiler's limit, 15 to 25 terms later.
func TestDepthLimitsMatchCPython(t *testing.T) {
	l := readLimits(t)
	for name, s := range l.Shapes {
		program := func(n int) string { return s.Head + strings.Repeat(s.Repeat, n) + s.Tail }
		if got := parseErr(program(s.MaxOK)); got != "" {
			t.Errorf("%s: %d repeats: %s, but CPython %s runs them", name, s.MaxOK, got, l.Python)
		}
		if strings.HasPrefix(s.Error, "MemoryError: Parser stack overflowed") {
			// at most 3000 nodes deep: refused within 30 terms of CPython
			got := parseErr(program(s.FirstFail + 30))
			if got != "RecursionError: maximum recursion depth exceeded during compilation" && got != s.Error {
				t.Errorf("%s: %d repeats: %q, want a refusal", name, s.FirstFail+30, got)
			}
			continue
		}
		if got := parseErr(program(s.FirstFail)); got != s.Error {
			t.Errorf("%s: %d repeats: %q, want CPython's %q", name, s.FirstFail, got, s.Error)
		}
	}
}

// The error says where the path grew too deep: the first node past the
// limit, the innermost operand of a left-leaning chain.
func TestDepthErrorPosition(t *testing.T) {
	src := "x = 1\n\ny = x" + strings.Repeat(" + x", 50_000) + "\n"
	_, err := ParseFile("f.py", []byte(src), nil)
	if err == nil || err.Error() != "f.py:3:5: RecursionError: maximum recursion depth exceeded during compilation" {
		t.Errorf("got %v", err)
	}
}

// A chain far past every limit (a million unary minuses, nots, nested
// lambdas or conditionals) is refused by the parser's bound, with
// CPython's MemoryError, not by Go's stack overflowing.
func TestParserLevelsBounded(t *testing.T) {
	for name, src := range map[string]string{
		"unary":       "y = " + strings.Repeat("-", 1_000_000) + "x\n",
		"not":         "y = " + strings.Repeat("not ", 1_000_000) + "x\n",
		"lambda":      "y = " + strings.Repeat("lambda: ", 1_000_000) + "x\n",
		"conditional": "y = " + strings.Repeat("x if x else ", 1_000_000) + "x\n",
	} {
		if got := parseErr(src); got != "MemoryError: Parser stack overflowed - Python source too complex to parse" {
			t.Errorf("%s: %q", name, got)
		}
	}
}

// BenchmarkLongLine parses a line of 50,000 terms (x + x + ... + x), and
// one of a 40,000-link method chain: each is refused at CPython's depth
// limit after a parse linear in its length (the column of each token was
// counted from the line's start: 20 s for the first).
func BenchmarkLongLine(b *testing.B) {
	for _, c := range []struct {
		name, src string
	}{
		{"terms-50000", "y = x" + strings.Repeat(" + x", 49_999) + "\n"},
		{"chain-40000", "y = x" + strings.Repeat(".clone()", 40_000) + "\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := ParseFile("f.py", []byte(c.src), nil); err == nil {
					b.Fatal("no error")
				}
			}
		})
	}
}
