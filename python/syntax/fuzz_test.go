package syntax

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse parses arbitrary text as a file and at the prompt, with and
// without an IsCommand hook: no panic may escape, an error must be a
// *Error (or ErrIncomplete, at the prompt) placed inside the text, and a
// tree's nodes must have ordered spans inside the text, the statements of
// a body one after another.
func FuzzParse(f *testing.F) {
	for _, c := range errorCases {
		f.Add(c.src, false)
	}
	for _, c := range append(promptCases, promptCommandCases...) {
		f.Add(strings.Join(c.lines, "\n")+"\n", true)
	}
	f.Add("for i in range(3):\n  show i\n\tx = f'{i!r:>{w}}' b'\\x00' 1_0.5e-3j\n", true)
	f.Add("@d\nclass C(B, k=1):\n  def f(self, a, /, b=2, *c, d, **e) -> int:\n    return [x async for x in y]\n", false)
	f.Fuzz(func(t *testing.T, src string, commands bool) {
		var opts *Options
		if commands {
			opts = &Options{IsCommand: isTestCommand}
		}
		lines := textLines([]byte(src))
		for _, interactive := range []bool{false, true} {
			parse := ParseFile
			if interactive {
				parse = ParseInteractive
			}
			m, err := parse("f", []byte(src), opts)
			if err != nil {
				checkFuzzError(t, err, interactive, lines)
				continue
			}
			checkSpans(t, m, lines)
		}
	})
}

// textLines returns the lines of src as the scanner reads them (newlines
// normalized, a BOM skipped), each as its count of characters.
func textLines(src []byte) []int {
	src = bytes.TrimPrefix(src, []byte("\xEF\xBB\xBF"))
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	src = bytes.ReplaceAll(src, []byte("\r"), []byte("\n"))
	var out []int
	for _, l := range strings.SplitAfter(string(src), "\n") {
		if l != "" {
			out = append(out, utf8.RuneCountInString(strings.TrimSuffix(l, "\n")))
		}
	}
	if len(out) == 0 {
		out = []int{0}
	}
	return out
}

// inText reports whether p is a place in the text: on one of its lines,
// from column 0 (where CPython places some indentation errors) to just
// past its last character (its newline).
func inText(p Pos, lines []int) bool {
	return p.Line >= 1 && int(p.Line) <= len(lines) && p.Col >= 0 && int(p.Col) <= lines[p.Line-1]+1
}

// checkFuzzError fails unless err is a *Error inside the text and no
// internal error, or ErrIncomplete from the prompt.
func checkFuzzError(t *testing.T, err error, interactive bool, lines []int) {
	if errors.Is(err, ErrIncomplete) {
		if !interactive {
			t.Fatalf("ParseFile returned ErrIncomplete")
		}
		return
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("the error is a %T, not a *Error: %v", err, err)
	}
	if e.stack != nil {
		t.Fatalf("%v\n%s", e, e.stack)
	}
	if !inText(e.Pos, lines) || strings.Contains(e.Msg, "\n") {
		t.Fatalf("error %q at %v, outside the text's %d lines %v", e.Msg, e.Pos, len(lines), lines)
	}
}

// checkSpans fails unless every node's span is ordered and inside the
// text, and each body's statements follow one another.
func checkSpans(t *testing.T, m *Module, lines []int) {
	Inspect(m, func(n any) bool {
		s, ok := n.(interface{ Span() (Pos, Pos) })
		if !ok {
			return true
		}
		start, end := s.Span()
		if !inText(start, lines) || !inText(end, lines) || end.Before(start) {
			t.Fatalf("%T spans %v-%v, outside the text's lines %v or backwards", n, start, end, lines)
		}
		for _, body := range bodies(n) {
			for i := 1; i < len(body); i++ {
				_, prevEnd := body[i-1].Span()
				if next, _ := body[i].Span(); next.Before(prevEnd) {
					t.Fatalf("%T at %v starts before the statement before it ends (%v)", body[i], next, prevEnd)
				}
			}
		}
		return true
	})
}

// bodies returns the statement lists of n.
func bodies(n any) [][]Stmt {
	switch n := n.(type) {
	case *Module:
		return [][]Stmt{n.Body}
	case *FunctionDef:
		return [][]Stmt{n.Body}
	case *ClassDef:
		return [][]Stmt{n.Body}
	case *For:
		return [][]Stmt{n.Body, n.Orelse}
	case *While:
		return [][]Stmt{n.Body, n.Orelse}
	case *If:
		return [][]Stmt{n.Body, n.Orelse}
	case *With:
		return [][]Stmt{n.Body}
	case *Try:
		return [][]Stmt{n.Body, n.Orelse, n.Finalbody}
	case *ExceptHandler:
		return [][]Stmt{n.Body}
	}
	return nil
}
