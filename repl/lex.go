// Package repl reads gpumemrepl's command language (a short form such as
// `a = zeros 256x1024x1024 cuda`, and the PyTorch form
// `a = torch.zeros([256,1024,1024], device='cuda')`), turns each line into
// an engine command with positions, and runs sessions: scripts, piped
// input and the interactive prompt, with the report after every step.
package repl

import (
	"fmt"
	"unicode"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

type tokKind int

const (
	tEOF    tokKind = iota
	tWord           // identifiers, numbers and shapes: zeros, 256x1024, 0.5, cuda
	tString         // 'cuda' or "cuda", quotes removed
	tPunct          // one of ( ) [ ] , = : . + * @
)

type token struct {
	kind tokKind
	text string
	pos  engine.Pos
}

// Error is a syntax error at a position of the input.
type Error struct {
	Pos engine.Pos
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Pos.Line, e.Pos.Col, e.Msg) }

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_'
}

// lex splits one line into tokens; a # starts a comment.
func lex(line string, lineNo int) ([]token, error) {
	var toks []token
	rs := []rune(line)
	for i := 0; i < len(rs); {
		r := rs[i]
		pos := engine.Pos{Line: lineNo, Col: i + 1}
		switch {
		case r == ' ' || r == '\t' || r == '\r':
			i++
		case r == '#':
			i = len(rs)
		case r == '\'' || r == '"':
			j := i + 1
			for j < len(rs) && rs[j] != r {
				j++
			}
			if j == len(rs) {
				return nil, &Error{pos, "unterminated string"}
			}
			toks = append(toks, token{tString, string(rs[i+1 : j]), pos})
			i = j + 1
		case isWordRune(r) || (r == '.' && i+1 < len(rs) && unicode.IsDigit(rs[i+1]) && (i == 0 || !isWordRune(rs[i-1]))) ||
			(r == '-' && i+1 < len(rs) && (unicode.IsDigit(rs[i+1]) || rs[i+1] == '.')):
			j := i + 1
			for j < len(rs) && (isWordRune(rs[j]) || (rs[j] == '.' && j+1 < len(rs) && unicode.IsDigit(rs[j+1]) && unicode.IsDigit(rs[j-1])) ||
				(rs[j] == '-' && (rs[j-1] == 'e' || rs[j-1] == 'E') && j >= 2 && unicode.IsDigit(rs[j-2]) && j+1 < len(rs) && unicode.IsDigit(rs[j+1]))) {
				j++
			}
			toks = append(toks, token{tWord, string(rs[i:j]), pos})
			i = j
		case r == '(' || r == ')' || r == '[' || r == ']' || r == ',' || r == '=' || r == ':' || r == '.' || r == '+' || r == '*' || r == '@':
			toks = append(toks, token{tPunct, string(r), pos})
			i++
		default:
			return nil, &Error{pos, fmt.Sprintf("unexpected character %q", r)}
		}
	}
	toks = append(toks, token{tEOF, "", engine.Pos{Line: lineNo, Col: len(rs) + 1}})
	return toks, nil
}
