package syntax

import "fmt"

// Options configure a parse. A nil *Options means the zero Options.
type Options struct {
	// IsCommand, when set, is handed the text of each physical line that
	// starts a logical line (outside brackets, strings and continuations),
	// without its indentation and newline. When it returns true the whole
	// line is one Command statement; it is indented, and ends a block, as
	// any simple statement does.
	IsCommand func(line string) bool
	// At, when valid, is where the text stands in its file (it is one
	// line taken from a larger text): positions count lines from
	// At.Line, and the first line's columns from At.Col.
	At Pos
}

// ParseFile parses a whole file and resolves its names. The error, if
// any, is a *Error: the first syntax error, as CPython would report it.
func ParseFile(filename string, src []byte, opts *Options) (*Module, error) {
	p := newParser(filename, src, opts)
	return p.parseAndResolve(p.module)
}

// parseAndResolve runs parse and, when it gives a tree, the resolver.
func (p *parser) parseAndResolve(parse func() *Module) (*Module, error) {
	m, err := p.run(parse)
	if err != nil {
		return nil, err
	}
	if err := resolve(p.file, m); err != nil {
		return nil, err
	}
	return m, nil
}

// parser is a recursive-descent parser over a buffer of tokens, which it
// fills from the scanner as it looks ahead.
type parser struct {
	file string
	sc   *scanner
	toks []token
	i    int    // the current token
	err  *Error // the error that stopped the parse
	// groups maps an expression written in parentheses (a group, whose
	// span does not include them) to the position of its '('.
	groups map[Expr]Pos
	// fstring is set in a parser of an f-string's replacement field.
	fstring bool
	// inFunc is set in the body of a def or lambda, and unset in a class
	// body.
	inFunc bool
	// levels counts the recursion of expressions within expressions
	// (maxParseLevels bounds it).
	levels int
}

// enter is one level deeper into an expression at pos; leave is one
// back out.
func (p *parser) enter(pos Pos) {
	p.levels++
	if p.levels > maxParseLevels {
		p.failKind(pos, "MemoryError", "Parser stack overflowed - Python source too complex to parse")
	}
}

func (p *parser) leave() { p.levels-- }

// within runs parse with inFunc set to fn: in a function's body or not.
func (p *parser) within(fn bool, parse func()) {
	saved := p.inFunc
	defer func() { p.inFunc = saved }()
	p.inFunc = fn
	parse()
}

func newParser(filename string, src []byte, opts *Options) *parser {
	sc := newScanner(filename, src, nil)
	if opts != nil {
		sc.isCommand = opts.IsCommand
		if opts.At.IsValid() {
			sc.line, sc.firstLine, sc.colShift = opts.At.Line, opts.At.Line, opts.At.Col-1
		}
	}
	// room for a short text's tokens at once: a line of a script parsed
	// alone spent a tenth of its parse growing the buffer
	toks := make([]token, 0, min(len(src)/3+4, 1024))
	return &parser{file: filename, sc: sc, toks: toks, groups: map[Expr]Pos{}}
}

// bailout is the panic that unwinds the parser after p.err is set.
type bailout struct{}

// run calls parse and turns a bailout into the error. A syntax error the
// parser found gives way to a tokenizer error later in the text, as in
// CPython, which tokenizes the rest of the file before it reports one.
// At the prompt, a parse that stopped because the input ended is
// ErrIncomplete: CPython's prompt would have read another line.
func (p *parser) run(parse func() *Module) (m *Module, err error) {
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(bailout); !ok {
				err = internalError(p.file, p.lastRead(), r)
				return
			}
			if p.sc.interactive && p.stoppedAtEnd() {
				m, err = nil, ErrIncomplete
				return
			}
			m, err = nil, p.laterTokenError()
		}
	}()
	return parse(), nil
}

// lastRead is the start of the furthest token read, or 1:1 before any.
func (p *parser) lastRead() Pos {
	if len(p.toks) == 0 {
		return Pos{1, 1}
	}
	return p.toks[len(p.toks)-1].start
}

// stoppedAtEnd reports whether the parse stopped at the end of the input.
func (p *parser) stoppedAtEnd() bool {
	t := &p.toks[len(p.toks)-1]
	return t.kind == tEOF || t.atEOF
}

// laterTokenError returns p.err, or the tokenizer error that CPython
// reports in its place: a hard error anywhere after it, or a bracket
// left open on a line before the error's.
func (p *parser) laterTokenError() *Error {
	if p.toks[len(p.toks)-1].kind == tError {
		return p.err // the tokenizer's own error stopped the parse
	}
	for {
		t := p.sc.next()
		switch {
		case t.kind == tEOF:
			return p.err
		case t.kind != tError:
			continue
		case t.hard:
			return t.err
		case t.level > 0 && p.sc.parens[len(p.sc.parens)-1].pos.Line < p.errLine():
			return p.sc.unclosed().err
		}
		return p.err
	}
}

// errLine is the line CPython compares with an open bracket's: that of
// the furthest token read.
func (p *parser) errLine() int32 {
	return p.toks[len(p.toks)-1].start.Line
}

// fill makes sure the buffer holds the token n places past the current
// one. A tokenizer error stops the parse when it is read, as in CPython.
func (p *parser) fill(n int) {
	for len(p.toks) <= p.i+n {
		if k := len(p.toks); k > 0 && p.toks[k-1].kind == tEOF {
			p.toks = append(p.toks, p.toks[k-1])
			continue
		}
		t := p.sc.next()
		p.toks = append(p.toks, t)
		if t.kind == tError {
			p.err = t.err
			panic(bailout{})
		}
	}
}

// cur returns the current token.
func (p *parser) cur() *token {
	p.fill(0)
	return &p.toks[p.i]
}

// peek returns the token n places past the current one.
func (p *parser) peek(n int) *token {
	p.fill(n)
	return &p.toks[p.i+n]
}

// next consumes the current token and returns it.
func (p *parser) next() token {
	t := *p.cur()
	p.i++
	return t
}

// lastEnd is the end of the last token consumed: where a node ends.
func (p *parser) lastEnd() Pos { return p.toks[p.i-1].end }

func (t *token) isOp(s string) bool { return t.kind == tOp && t.text == s }
func (t *token) isKw(s string) bool { return t.kind == tKeyword && t.text == s }

// isOp reports whether the current token is the operator s.
func (p *parser) isOp(s string) bool { return p.cur().isOp(s) }

// isKw reports whether the current token is the keyword s.
func (p *parser) isKw(s string) bool { return p.cur().isKw(s) }

// acceptOp consumes the operator s if it is the current token.
func (p *parser) acceptOp(s string) bool {
	if p.isOp(s) {
		p.i++
		return true
	}
	return false
}

// acceptKw consumes the keyword s if it is the current token.
func (p *parser) acceptKw(s string) bool {
	if p.isKw(s) {
		p.i++
		return true
	}
	return false
}

// expectOp consumes the operator s, or fails with invalid syntax.
func (p *parser) expectOp(s string) {
	if !p.acceptOp(s) {
		p.invalidSyntax()
	}
}

// fail stops the parse with a SyntaxError at pos.
func (p *parser) fail(pos Pos, format string, args ...any) {
	p.failKind(pos, kindSyntax, format, args...)
}

// failKind stops the parse with an error of the given kind at pos.
func (p *parser) failKind(pos Pos, kind string, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if p.fstring {
		msg = "f-string: " + msg
	}
	p.err = &Error{Filename: p.file, Pos: pos, Kind: kind, Msg: msg}
	panic(bailout{})
}

// furthest returns the furthest token read: where CPython places an
// error that names no place.
func (p *parser) furthest() *token {
	p.fill(0)
	return &p.toks[len(p.toks)-1]
}

// failFurthest fails at the furthest token read.
func (p *parser) failFurthest(format string, args ...any) {
	p.fail(p.furthest().start, format, args...)
}

// invalidSyntax is CPython's generic error, at the furthest token read;
// an unexpected indentation token has its own.
func (p *parser) invalidSyntax() {
	t := p.furthest()
	switch t.kind {
	case tIndent:
		p.failKind(t.start, kindIndentation, "unexpected indent")
	case tDedent:
		p.failKind(t.start, kindIndentation, "unexpected unindent")
	}
	p.fail(t.start, "invalid syntax")
}

// name consumes a NAME token and returns it, or fails.
func (p *parser) name() token {
	if p.cur().kind != tName {
		p.invalidSyntax()
	}
	return p.next()
}

// module parses a whole file.
func (p *parser) module() *Module {
	m := &Module{}
	for p.cur().kind != tEOF {
		m.Body = append(m.Body, p.statement()...)
	}
	m.Start = Pos{1, 1}
	m.End = p.cur().start
	return m
}
