package syntax

// ParseInteractive parses the text typed at the prompt so far (whole
// lines, each ended by '\n') as one statement, the way CPython 3.11's
// interactive prompt reads it, and resolves its names. It returns
// ErrIncomplete while the statement needs more lines: a bracket or a
// triple-quoted string is open, the last line ends in a backslash, a
// decorator has no def or class yet, or a compound statement has not
// been ended by an empty line (a line holding only spaces or a comment
// does not end it). A syntax error the text already has is returned at
// once; a compile-time error (such as 'return' outside a function) only
// once the statement is complete, as the prompt compiles no sooner. Text
// of blank lines and comments only is an empty Module.
func ParseInteractive(filename string, src []byte, opts *Options) (*Module, error) {
	p := newParser(filename, src, opts)
	p.sc.interactive = true
	return p.parseAndResolve(p.interactiveInput)
}

// interactiveInput parses one statement of the prompt: CPython's
// statement_newline, where a compound statement is followed by the
// NEWLINE of an empty line, and nothing may follow the statement but
// empty lines.
func (p *parser) interactiveInput() *Module {
	m := &Module{}
	m.Start = Pos{1, 1}
	p.skipNewlines()
	if p.cur().kind != tEOF {
		m.Body = p.statement()
		if isCompound(m.Body[0]) {
			if p.cur().kind != tNewline {
				p.invalidSyntax() // at the end of input: the block goes on
			}
			p.next()
		}
		end := p.toks[p.i-1].start
		p.skipNewlines()
		if p.cur().kind != tEOF {
			p.fail(end, "multiple statements found while compiling a single statement")
		}
	}
	m.End = p.cur().start
	return m
}

// skipNewlines consumes NEWLINE tokens: the prompt's empty lines.
func (p *parser) skipNewlines() {
	for p.cur().kind == tNewline {
		p.next()
	}
}

// isCompound reports whether s is a compound statement, one with a block.
func isCompound(s Stmt) bool {
	switch s.(type) {
	case *FunctionDef, *ClassDef, *If, *While, *For, *Try, *With:
		return true
	}
	return false
}
