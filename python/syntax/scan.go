package syntax

import (
	"bytes"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// tokenKind is the kind of a token.
type tokenKind uint8

const (
	tEOF     tokenKind = iota // end of input (CPython's ENDMARKER)
	tNewline                  // end of a logical line
	tIndent                   // deeper indentation
	tDedent                   // shallower indentation
	tName                     // identifier, soft keywords included
	tKeyword                  // a reserved word such as if or None
	tNumber                   // numeric literal
	tString                   // string literal, prefix and quotes included
	tOp                       // operator or delimiter, such as + or (
	tCommand                  // a whole line in the tool's command form
	tError                    // a tokenizer error, in err
)

// token is one token. text is its source text; for a tCommand the line.
type token struct {
	kind       tokenKind
	text       string
	start, end Pos
	off        int    // byte offset of the start in the scanner's source
	level      int    // bracket depth after the token, as CPython counts it
	err        *Error // the error of a tError
	// hard marks a tError that CPython raises as soon as it tokenizes it:
	// it wins over a parse error earlier in the file. Other tokenizer
	// errors (indentation, EOF) count only when the parser reaches them.
	hard bool
	// atEOF marks a tError that more lines could mend: the input ended
	// inside brackets, a triple-quoted string or a continued line.
	atEOF bool
}

// keywords are Python 3.11's reserved words.
var keywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true,
	"def": true, "del": true, "elif": true, "else": true, "except": true,
	"finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true,
	"not": true, "or": true, "pass": true, "raise": true, "return": true,
	"try": true, "while": true, "with": true, "yield": true,
}

// CPython's tokenizer limits.
const (
	maxIndent = 100 // MAXINDENT: nesting of indented blocks
	maxLevel  = 200 // MAXLEVEL: nesting of brackets
	tabSize   = 8
)

// paren is an open bracket and where it stands.
type paren struct {
	c   byte
	pos Pos
}

// scanner turns source text into tokens, one call of next at a time.
type scanner struct {
	file      string
	src       []byte // ends with '\n'
	off       int    // the cursor
	line      int32  // the cursor's line
	lineOff   int    // byte offset where the cursor's line starts
	isCommand func(string) bool
	// firstLine and colShift place a text taken from a larger one: the
	// columns of line firstLine are shifted right by colShift.
	firstLine, colShift int32
	// interactive makes the scanner read as CPython's does at the prompt:
	// an empty line ends every block and is a NEWLINE of its own, and
	// the end of input closes no block (more lines may follow).
	interactive bool

	atBOL      bool // the cursor is at the start of a line
	blank      bool // the cursor's line holds no token (white space, a comment)
	lineFirst  bool // the next token is the first of a logical line
	indents    []int
	altIndents []int // indentation with tabs one column wide, to catch mixes
	pending    int   // INDENTs (>0) or DEDENTs (<0) still to hand out
	parens     []paren
	done       bool // EOF or an error was handed out
	// colOff and colRunes are the last offset pos placed and its rune
	// count from its line's start (colLine): the next column on the line
	// counts on from there, so that a line of n tokens costs n, not n².
	colLine, colOff, colRunes int
}

func newScanner(file string, src []byte, isCommand func(string) bool) *scanner {
	return &scanner{
		file: file, src: normalizeNewlines(src), line: 1, isCommand: isCommand,
		atBOL: true, indents: []int{0}, altIndents: []int{0},
	}
}

// normalizeNewlines turns \r\n and \r into \n and makes the text end with
// a newline, as CPython does before it tokenizes; it skips a UTF-8 BOM.
func normalizeNewlines(src []byte) []byte {
	if len(src) >= 3 && src[0] == 0xEF && src[1] == 0xBB && src[2] == 0xBF {
		src = src[3:]
	}
	out := make([]byte, 0, len(src)+1)
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == '\r' {
			if i+1 < len(src) && src[i+1] == '\n' {
				i++
			}
			c = '\n'
		}
		out = append(out, c)
	}
	if len(out) == 0 || out[len(out)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}

// pos returns the position of byte offset off, which is on the cursor's line.
func (s *scanner) pos(off int) Pos {
	if s.colLine != s.lineOff || off < s.colOff {
		s.colLine, s.colOff, s.colRunes = s.lineOff, s.lineOff, 0
	}
	s.colRunes += utf8.RuneCount(s.src[s.colOff:off])
	s.colOff = off
	p := Pos{s.line, int32(s.colRunes) + 1}
	if s.line == s.firstLine {
		p.Col += s.colShift
	}
	return p
}

// peekc returns the byte at the cursor plus i, or 0 past the end.
func (s *scanner) peekc(i int) byte {
	if s.off+i < len(s.src) {
		return s.src[s.off+i]
	}
	return 0
}

// newline moves the cursor past the '\n' at it.
func (s *scanner) newline() {
	s.off++
	s.line++
	s.lineOff = s.off
}

// lineEnd returns the offset of the '\n' that ends the cursor's line.
func (s *scanner) lineEnd() int {
	i := s.off
	for s.src[i] != '\n' {
		i++
	}
	return i
}

// errorAt makes an error token at p.
func (s *scanner) errorAt(p Pos, kind string, hard bool, format string, args ...any) token {
	s.done = true
	e := &Error{Filename: s.file, Pos: p, Kind: kind, Msg: fmt.Sprintf(format, args...)}
	return token{kind: tError, start: p, end: p, off: s.off, err: e, hard: hard, level: len(s.parens)}
}

// syntaxError is CPython's tokenizer syntaxerror(): a hard error whose
// column is the number of characters before cursor offset cur.
func (s *scanner) syntaxError(cur int, format string, args ...any) token {
	p := s.pos(cur)
	p.Col--
	return s.errorAt(p, kindSyntax, true, format, args...)
}

// lineLenPos is where CPython reports an error it places at the end of the
// cursor's line: one past its last character.
func (s *scanner) lineLenPos() Pos {
	return s.pos(s.lineEnd())
}

// next returns the next token. After a tEOF or tError it keeps returning
// tEOF.
func (s *scanner) next() token {
	if s.done {
		p := s.eofPos()
		return token{kind: tEOF, start: p, end: p, off: s.off}
	}
	for {
		if s.atBOL {
			if t, ok := s.indentation(); ok {
				return t
			}
		}
		if s.pending != 0 {
			return s.indentToken()
		}
		t, ok := s.scanToken()
		if ok {
			t.level = len(s.parens)
			if t.kind == tEOF || t.kind == tError {
				s.done = true
			}
			return t
		}
	}
}

// indentToken hands out one pending INDENT or DEDENT. CPython places
// one just past the indentation, counting columns from 0; at the end of
// input it stands at the end.
func (s *scanner) indentToken() token {
	p := s.pos(s.off)
	p.Col--
	if s.off == len(s.src) {
		p = s.eofPos()
	}
	t := token{kind: tIndent, start: p, end: p, off: s.off}
	if s.pending < 0 {
		t.kind = tDedent
		s.pending++
	} else {
		s.pending--
	}
	return t
}

// indentation measures the indentation of the line at the cursor and
// queues INDENT and DEDENT tokens. It returns an error token and true when
// the indentation is wrong.
func (s *scanner) indentation() (token, bool) {
	s.atBOL = false
	s.blank = false
	col, alt := 0, 0
	for ; s.off < len(s.src); s.off++ {
		switch s.src[s.off] {
		case ' ':
			col++
			alt++
			continue
		case '\t':
			col = (col/tabSize + 1) * tabSize
			alt++
			continue
		case '\f':
			col, alt = 0, 0
			continue
		}
		break
	}
	if s.off < len(s.src) && (s.src[s.off] == '#' || s.src[s.off] == '\n') && !s.endsBlocks(col) {
		s.blank = true // blank and comment lines neither indent nor end a line
		return token{}, false
	}
	if len(s.parens) > 0 || s.interactive && s.off == len(s.src) {
		return token{}, false
	}
	s.lineFirst = s.off < len(s.src)
	top := len(s.indents) - 1
	switch {
	case col == s.indents[top]:
		if alt != s.altIndents[top] {
			return s.tabError(), true
		}
	case col > s.indents[top]:
		if len(s.indents) >= maxIndent {
			return s.errorAt(Pos{s.line, 1}, kindIndentation, false, "too many levels of indentation"), true
		}
		if alt <= s.altIndents[top] {
			return s.tabError(), true
		}
		s.pending++
		s.indents = append(s.indents, col)
		s.altIndents = append(s.altIndents, alt)
	default:
		for len(s.indents) > 1 && col < s.indents[len(s.indents)-1] {
			s.pending--
			s.indents = s.indents[:len(s.indents)-1]
			s.altIndents = s.altIndents[:len(s.altIndents)-1]
		}
		top = len(s.indents) - 1
		if col != s.indents[top] {
			return s.errorAt(s.lineLenPos(), kindIndentation, false, "unindent does not match any outer indentation level"), true
		}
		if alt != s.altIndents[top] {
			return s.tabError(), true
		}
	}
	return token{}, false
}

// endsBlocks reports whether the line at the cursor, indented by col, is
// the empty line that ends a statement at CPython's prompt.
func (s *scanner) endsBlocks(col int) bool {
	return s.interactive && col == 0 && s.src[s.off] == '\n'
}

func (s *scanner) tabError() token {
	return s.errorAt(Pos{s.line, 1}, kindTab, false, "inconsistent use of tabs and spaces in indentation")
}

// scanToken scans one token from the cursor. It returns false when it only
// moved past something that is no token (a blank line, a comment line, a
// newline inside brackets, a joined line), so that the caller looks at
// indentation again.
func (s *scanner) scanToken() (token, bool) {
	for s.off < len(s.src) && (s.src[s.off] == ' ' || s.src[s.off] == '\t' || s.src[s.off] == '\f') {
		s.off++
	}
	if s.off == len(s.src) {
		return s.eof()
	}
	if s.lineFirst {
		s.lineFirst = false
		if t, ok := s.command(); ok {
			return t, true
		}
	}
	start := s.off
	if s.src[s.off] == '#' {
		s.off = s.lineEnd()
	}
	c := s.src[s.off]
	switch {
	case c == '\n':
		p := s.pos(start)
		s.newline()
		s.atBOL = true
		if s.blank || len(s.parens) > 0 {
			return token{}, false
		}
		return token{kind: tNewline, start: p, end: p, off: start}, true
	case isIdentStart(c):
		return s.identOrString(), true
	case isDigit(c) || c == '.' && isDigit(s.peekc(1)):
		return s.number(), true
	case c == '"' || c == '\'':
		return s.stringLit(s.off), true
	case c == '\\':
		return s.continuation()
	}
	return s.operator(), true
}

// eof ends the input: an error inside brackets, else the end marker.
func (s *scanner) eof() (token, bool) {
	if n := len(s.parens); n > 0 {
		return s.unclosed(), true
	}
	p := s.eofPos()
	return token{kind: tEOF, start: p, end: p, off: s.off}, true
}

// eofPos is where CPython places the end of input: just past the last
// character of the last line (placed as Options.At places the text).
func (s *scanner) eofPos() Pos {
	end := len(s.src) - 1
	start := bytes.LastIndexByte(s.src[:end], '\n') + 1
	p := Pos{int32(bytes.Count(s.src, []byte{'\n'})), int32(utf8.RuneCount(s.src[start:end])) + 1}
	if s.firstLine > 0 {
		p.Line += s.firstLine - 1
		if p.Line == s.firstLine {
			p.Col += s.colShift
		}
	}
	return p
}

// unclosed is the error for a bracket still open at the end of input.
func (s *scanner) unclosed() token {
	o := s.parens[len(s.parens)-1]
	t := s.errorAt(o.pos, kindSyntax, false, "'%c' was never closed", o.c)
	t.atEOF = true
	return t
}

// command hands the line at the cursor to isCommand and, when it claims
// it, returns the whole line as one tCommand token.
func (s *scanner) command() (token, bool) {
	c := s.src[s.off]
	if s.isCommand == nil || c == '\n' || c == '#' {
		return token{}, false
	}
	end := s.lineEnd()
	text := string(s.src[s.off:end])
	if !s.isCommand(text) {
		return token{}, false
	}
	t := token{kind: tCommand, text: text, start: s.pos(s.off), end: s.pos(end), off: s.off}
	s.off = end
	return t, true
}

// continuation handles a backslash that joins two lines.
func (s *scanner) continuation() (token, bool) {
	if s.peekc(1) != '\n' {
		p := s.pos(s.off)
		p.Col++
		return s.errorAt(p, kindSyntax, false, "unexpected character after line continuation character"), true
	}
	p := s.lineLenPos()
	s.off++
	s.newline()
	if s.off == len(s.src) {
		if len(s.parens) > 0 {
			return s.unclosed(), true
		}
		t := s.errorAt(p, kindSyntax, false, "unexpected EOF while parsing")
		t.atEOF = true
		return t, true
	}
	return token{}, false
}

// operator scans an operator or delimiter, tracking brackets.
func (s *scanner) operator() token {
	start := s.off
	p := s.pos(start)
	n := opLen(s.src[s.off:])
	c := s.src[s.off]
	if n == 0 {
		r, size := utf8.DecodeRune(s.src[s.off:])
		s.off += size
		if !unicode.IsPrint(r) {
			return s.syntaxError(s.off, "invalid non-printable character U+%04X", r)
		}
		return token{kind: tOp, text: string(s.src[start:s.off]), start: p, end: s.pos(s.off), off: start}
	}
	s.off += n
	switch c {
	case '(', '[', '{':
		if len(s.parens) >= maxLevel {
			return s.syntaxError(s.off, "too many nested parentheses")
		}
		s.parens = append(s.parens, paren{c, p})
	case ')', ']', '}':
		if len(s.parens) == 0 {
			return s.syntaxError(s.off, "unmatched '%c'", c)
		}
		o := s.parens[len(s.parens)-1]
		s.parens = s.parens[:len(s.parens)-1]
		if o.c != openerOf(c) {
			if o.pos.Line != s.line {
				return s.syntaxError(s.off, "closing parenthesis '%c' does not match opening parenthesis '%c' on line %d", c, o.c, o.pos.Line)
			}
			return s.syntaxError(s.off, "closing parenthesis '%c' does not match opening parenthesis '%c'", c, o.c)
		}
	}
	return token{kind: tOp, text: string(s.src[start:s.off]), start: p, end: s.pos(s.off), off: start}
}

func openerOf(c byte) byte {
	switch c {
	case ')':
		return '('
	case ']':
		return '['
	}
	return '{'
}

// operators lists Python's operators and delimiters of two and three
// characters, longest first; every other printable ASCII character is a
// one-character token (the parser refuses those that are not Python's).
var operators = []string{
	"**=", "//=", ">>=", "<<=", "...", "!=", "%=", "&=", "**", "*=", "+=", "-=", "->",
	"//", "/=", ":=", "<<", "<=", "<>", "==", ">=", ">>", "@=", "^=", "|=",
}

// opLen returns the length of the operator at the start of b, or 0 when b
// starts with a character that is no token at all (a control character or
// a non-ASCII one).
func opLen(b []byte) int {
	for _, op := range operators {
		if len(b) >= len(op) && string(b[:len(op)]) == op {
			return len(op)
		}
	}
	if b[0] > ' ' && b[0] < 0x7F {
		return 1
	}
	return 0
}

func isDigit(c byte) bool    { return '0' <= c && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'f' }

// isIdentStart reports whether c may start a name: CPython's tokenizer
// takes any non-ASCII byte, and checks the name once it has it.
func isIdentStart(c byte) bool {
	return 'a' <= c|0x20 && c|0x20 <= 'z' || c == '_' || c >= 0x80
}

func isIdentChar(c byte) bool { return isIdentStart(c) || isDigit(c) }

// identOrString scans a name, or a string literal with a prefix.
func (s *scanner) identOrString() token {
	start := s.off
	if n := stringPrefixLen(s.src[s.off:]); n > 0 {
		if q := s.peekc(n); q == '"' || q == '\'' {
			return s.stringLit(start)
		}
	}
	nonASCII := false
	for isIdentChar(s.src[s.off]) {
		nonASCII = nonASCII || s.src[s.off] >= 0x80
		s.off++
	}
	text := string(s.src[start:s.off])
	if nonASCII {
		if bad, ok := badIdentRune(text); ok {
			s.off = start + bad
			r, size := utf8.DecodeRuneInString(text[bad:])
			s.off += size
			if r == utf8.RuneError && size <= 1 {
				return s.syntaxError(s.off, "invalid character in identifier")
			}
			if unicode.IsPrint(r) {
				return s.syntaxError(s.off, "invalid character '%c' (U+%04X)", r, r)
			}
			return s.syntaxError(s.off, "invalid non-printable character U+%04X", r)
		}
	}
	t := token{kind: tName, text: text, start: s.pos(start), end: s.pos(s.off), off: start}
	if keywords[text] {
		t.kind = tKeyword
	}
	if nonASCII {
		t.text = normalizeIdent(text)
	}
	return t
}

// stringPrefixLen returns the length of the string prefix (b, r, u, f,
// br, rb, fr, rf in any case) at the start of b, or 0.
func stringPrefixLen(b []byte) int {
	lower := func(i int) byte {
		if i < len(b) {
			return b[i] | 0x20
		}
		return 0
	}
	switch c0, c1 := lower(0), lower(1); {
	case (c0 == 'b' || c0 == 'f') && c1 == 'r', c0 == 'r' && (c1 == 'b' || c1 == 'f'):
		return 2
	case c0 == 'b' || c0 == 'r' || c0 == 'u' || c0 == 'f':
		return 1
	}
	return 0
}

// badIdentRune returns the byte index of the first rune that may not
// stand where it does in an identifier.
func badIdentRune(name string) (int, bool) {
	for i, r := range name {
		ok := isXIDContinue(r)
		if i == 0 {
			ok = r == '_' || isXIDStart(r)
		}
		if !ok {
			return i, true
		}
	}
	return 0, false
}

// isXIDStart approximates Unicode's XID_Start, which Python identifiers
// start with.
func isXIDStart(r rune) bool {
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)
}

// isXIDContinue approximates Unicode's XID_Continue.
func isXIDContinue(r rune) bool {
	return isXIDStart(r) || unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc, unicode.Other_ID_Continue)
}

// stringLit scans a string literal whose prefix starts at start and whose
// quote is at the cursor. The token's text is the literal as written.
func (s *scanner) stringLit(start int) token {
	for s.src[s.off] != '"' && s.src[s.off] != '\'' {
		s.off++
	}
	p := s.pos(start)
	quote := s.src[s.off]
	triple := s.peekc(1) == quote && s.peekc(2) == quote
	size := 1
	if triple {
		size = 3
	}
	s.off += size
	for {
		c := s.src[s.off]
		switch {
		case c == '\n' && (!triple || s.off == len(s.src)-1):
			return s.unterminated(p, start, triple, triple)
		case c == quote && (!triple || s.peekc(1) == quote && s.peekc(2) == quote):
			s.off += size
			return token{kind: tString, text: string(s.src[start:s.off]), start: p, end: s.pos(s.off), off: start}
		case c == '\\':
			if s.off+2 == len(s.src) {
				return s.unterminated(p, start, triple, true) // the last newline is escaped
			}
			s.off++
			if s.src[s.off] == '\n' {
				s.newline()
				continue
			}
		case c == '\n':
			s.newline()
			continue
		}
		s.off++
	}
}

// unterminated is the error for the string literal at p (offset start)
// that the line, or with triple quotes the input, ends inside. atEOF says
// whether more lines could end it.
func (s *scanner) unterminated(p Pos, start int, triple, atEOF bool) token {
	s.done = true
	e := &Error{Filename: s.file, Pos: p, Kind: kindSyntax}
	e.Msg = fmt.Sprintf("unterminated string literal (detected at line %d)", s.line)
	if triple {
		e.Msg = fmt.Sprintf("unterminated triple-quoted string literal (detected at line %d)", s.line)
	}
	return token{kind: tError, start: p, end: p, off: start, err: e, hard: true, atEOF: atEOF}
}
