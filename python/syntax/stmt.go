package syntax

// statement parses one line's worth of statements: a compound statement,
// or simple statements separated by semicolons.
func (p *parser) statement() []Stmt {
	t := p.cur()
	switch {
	case t.kind == tIndent:
		p.failKind(t.start, kindIndentation, "unexpected indent")
	case t.isOp("@"):
		return []Stmt{p.decorated()}
	case t.kind == tName && t.text == "match" && p.endsWithColon():
		p.fail(t.start, "'match' is not supported")
	case t.kind == tKeyword:
		switch t.text {
		case "def":
			return []Stmt{p.funcDef(nil)}
		case "class":
			return []Stmt{p.classDef(nil)}
		case "if":
			return []Stmt{p.ifStmt()}
		case "while":
			return []Stmt{p.whileStmt()}
		case "for":
			return []Stmt{p.forStmt()}
		case "try":
			return []Stmt{p.tryStmt()}
		case "with":
			return []Stmt{p.withStmt()}
		case "async":
			if n := p.peek(1); n.isKw("with") || n.isKw("for") {
				p.fail(t.start, "'async %s' outside async function", n.text)
			}
			p.fail(t.start, "'async' is not supported")
		}
	}
	return p.simpleStmts()
}

// endsWithColon reports whether the logical line at the current token
// ends with ':', as a compound statement's header does and a simple
// statement cannot: it tells match statements from uses of the name.
func (p *parser) endsWithColon() bool {
	k := 0
	for p.peek(k+1).kind != tNewline && p.peek(k+1).kind != tEOF {
		k++
	}
	return p.peek(k).isOp(":")
}

// simpleStmts parses simple statements separated by ';' up to the NEWLINE.
func (p *parser) simpleStmts() []Stmt {
	var out []Stmt
	for {
		out = append(out, p.simpleStmt())
		if !p.acceptOp(";") || p.cur().kind == tNewline {
			break
		}
	}
	if p.cur().kind != tNewline {
		p.invalidSyntax()
	}
	p.next()
	return out
}

// simpleStmt parses one simple statement.
func (p *parser) simpleStmt() Stmt {
	t := *p.cur()
	if t.kind == tCommand {
		p.next()
		return &Command{Node{t.start, t.end}, t.text}
	}
	if t.kind != tKeyword {
		return p.exprOrAssign()
	}
	switch t.text {
	case "pass":
		p.next()
		return &Pass{Node{t.start, t.end}}
	case "break":
		p.next()
		return &Break{Node{t.start, t.end}}
	case "continue":
		p.next()
		return &Continue{Node{t.start, t.end}}
	case "return":
		p.next()
		s := &Return{}
		if p.startsExpr() {
			s.Value = p.starExpressions()
		}
		s.Node = Node{t.start, p.lastEnd()}
		return s
	case "raise":
		p.next()
		s := &Raise{}
		if p.startsExpr() {
			s.Exc = p.expression()
			if p.acceptKw("from") {
				s.Cause = p.expression()
			}
		}
		s.Node = Node{t.start, p.lastEnd()}
		return s
	case "global", "nonlocal":
		p.next()
		names := []string{p.name().text}
		for p.acceptOp(",") {
			names = append(names, p.name().text)
		}
		n := Node{t.start, p.lastEnd()}
		if t.text == "global" {
			return &Global{n, names}
		}
		return &Nonlocal{n, names}
	case "del":
		return p.delStmt()
	case "assert":
		p.next()
		s := &Assert{Test: p.expression()}
		if p.acceptOp(",") {
			s.Msg = p.expression()
		}
		s.Node = Node{t.start, p.lastEnd()}
		return s
	case "import":
		return p.importStmt()
	case "from":
		return p.importFrom()
	}
	return p.exprOrAssign()
}

// delStmt parses del targets, a comma-separated list.
func (p *parser) delStmt() Stmt {
	start := p.next().start
	s := &Delete{}
	for {
		e := p.starExpression()
		if bad := invalidTarget(e, delTargets); bad != nil {
			p.fail(exprStart(bad), "cannot delete %s", exprName(bad))
		}
		setCtx(e, Del)
		s.Targets = append(s.Targets, e)
		if !p.acceptOp(",") || !p.startsExpr() {
			break
		}
	}
	if p.cur().kind != tNewline && !p.isOp(";") {
		p.invalidSyntax()
	}
	s.Node = Node{start, p.lastEnd()}
	return s
}

// importStmt parses import a.b as c, d.
func (p *parser) importStmt() Stmt {
	start := p.next().start
	s := &Import{}
	for {
		start := p.cur().start
		a := &Alias{Name: p.dottedName()}
		a.Start = start
		if p.acceptKw("as") {
			a.Asname = p.name().text
		}
		a.End = p.lastEnd()
		s.Names = append(s.Names, a)
		if !p.acceptOp(",") {
			break
		}
	}
	s.Node = Node{start, p.lastEnd()}
	return s
}

// dottedName parses NAME ('.' NAME)*.
func (p *parser) dottedName() string {
	s := p.name().text
	for p.isOp(".") {
		p.next()
		s += "." + p.name().text
	}
	return s
}

// importFrom parses from .mod import a as b, c or from . import (a, b).
func (p *parser) importFrom() Stmt {
	start := p.next().start
	s := &ImportFrom{}
	for p.isOp(".") || p.isOp("...") {
		s.Level += len(p.next().text)
	}
	if s.Level == 0 || !p.isKw("import") {
		s.Module = p.dottedName()
	}
	if !p.acceptKw("import") {
		p.invalidSyntax()
	}
	switch {
	case p.isOp("*"):
		t := p.next()
		s.Names = []*Alias{{Node: Node{t.start, t.end}, Name: "*"}}
	case p.acceptOp("("):
		s.Names = p.importNames(true)
		p.expectOp(")")
	default:
		s.Names = p.importNames(false)
	}
	s.Node = Node{start, p.lastEnd()}
	return s
}

// importNames parses the names after from ... import.
func (p *parser) importNames(parenthesized bool) []*Alias {
	var names []*Alias
	for {
		t := p.name()
		a := &Alias{Name: t.text}
		if p.acceptKw("as") {
			a.Asname = p.name().text
		}
		a.Node = Node{t.start, p.lastEnd()}
		names = append(names, a)
		if !p.acceptOp(",") {
			return names
		}
		if parenthesized && p.isOp(")") {
			return names
		}
		if !parenthesized && p.cur().kind == tNewline {
			p.failFurthest("trailing comma not allowed without surrounding parentheses")
		}
	}
}

// block parses the body of a compound statement: an indented block, or
// simple statements on the header's line. what names the statement for
// CPython's IndentationError, and line is the header's.
func (p *parser) block(what string, line int32) []Stmt {
	if p.cur().kind != tNewline {
		return p.simpleStmts()
	}
	p.next()
	if t := p.cur(); t.kind != tIndent {
		p.failKind(t.start, kindIndentation, "expected an indented block after %s on line %d", what, line)
	}
	p.next()
	var body []Stmt
	for p.cur().kind != tDedent {
		body = append(body, p.statement()...)
	}
	p.next()
	return body
}

// headerColon consumes the ':' after a compound statement's header.
// CPython says "expected ':'" where the line ends instead, and "invalid
// syntax" where something else stands there.
func (p *parser) headerColon() {
	if p.acceptOp(":") {
		return
	}
	if p.cur().kind == tNewline {
		p.failFurthest("expected ':'")
	}
	p.invalidSyntax()
}

// forcedColon consumes a ':' that CPython's grammar forces: anything else
// is "expected ':'" at that token.
func (p *parser) forcedColon() {
	if !p.acceptOp(":") {
		p.fail(p.cur().start, "expected ':'")
	}
}

// lastRealEnd is the end of the last token consumed that is not a
// NEWLINE, INDENT or DEDENT: where CPython ends a compound statement
// (a trailing ';' included).
func (p *parser) lastRealEnd() Pos {
	i := p.i - 1
	for i > 0 && (p.toks[i].kind == tNewline || p.toks[i].kind == tIndent || p.toks[i].kind == tDedent) {
		i--
	}
	return p.toks[i].end
}

// ifStmt parses an if statement, or an elif clause as a nested If.
func (p *parser) ifStmt() Stmt {
	kw := p.next()
	s := &If{Test: p.namedExpression()}
	p.headerColon()
	s.Body = p.block("'"+kw.text+"' statement", kw.start.Line)
	switch {
	case p.isKw("elif"):
		s.Orelse = []Stmt{p.ifStmt()}
	case p.isKw("else"):
		s.Orelse = p.elseBlock()
	}
	s.Node = Node{kw.start, p.lastRealEnd()}
	return s
}

// elseBlock parses else: and its block.
func (p *parser) elseBlock() []Stmt {
	kw := p.next()
	p.forcedColon()
	return p.block("'else' statement", kw.start.Line)
}

// whileStmt parses a while loop.
func (p *parser) whileStmt() Stmt {
	kw := p.next()
	s := &While{Test: p.namedExpression()}
	p.headerColon()
	s.Body = p.block("'while' statement", kw.start.Line)
	if p.isKw("else") {
		s.Orelse = p.elseBlock()
	}
	s.Node = Node{kw.start, p.lastRealEnd()}
	return s
}

// forStmt parses a for loop.
func (p *parser) forStmt() Stmt {
	kw := p.next()
	s := &For{Target: p.forTargets()}
	s.Iter = p.starExpressions()
	p.headerColon()
	s.Body = p.block("'for' statement", kw.start.Line)
	if p.isKw("else") {
		s.Orelse = p.elseBlock()
	}
	s.Node = Node{kw.start, p.lastRealEnd()}
	return s
}

// tryStmt parses try with its except, else and finally clauses.
func (p *parser) tryStmt() Stmt {
	kw := p.next()
	p.forcedColon()
	s := &Try{Body: p.block("'try' statement", kw.start.Line)}
	for p.isKw("except") {
		s.Handlers = append(s.Handlers, p.exceptClause())
	}
	if len(s.Handlers) > 0 && p.isKw("else") {
		s.Orelse = p.elseBlock()
	}
	if p.isKw("finally") {
		fin := p.next()
		p.forcedColon()
		s.Finalbody = p.block("'finally' statement", fin.start.Line)
	}
	if len(s.Handlers) == 0 && len(s.Finalbody) == 0 {
		p.fail(p.cur().start, "expected 'except' or 'finally' block")
	}
	s.Node = Node{kw.start, p.lastRealEnd()}
	return s
}

// exceptClause parses except [type [as name]]: block.
func (p *parser) exceptClause() *ExceptHandler {
	kw := p.next()
	h := &ExceptHandler{}
	if p.isOp("*") {
		p.fail(p.cur().start, "'except*' is not supported")
	}
	if !p.isOp(":") && p.cur().kind != tNewline {
		h.Type = p.expression()
		if p.isOp(",") {
			start := exprStart(h.Type)
			if p.attempt(func() {
				p.next()
				p.expressions()
				if p.acceptKw("as") {
					p.name()
				}
				p.expectOp(":")
			}) {
				p.fail(start, "multiple exception types must be parenthesized")
			}
		}
		if p.acceptKw("as") {
			h.Name = p.name().text
		}
	}
	p.headerColon()
	h.Body = p.block("'except' statement", kw.start.Line)
	h.Node = Node{kw.start, p.lastRealEnd()}
	return h
}

// withStmt parses a with statement, whose items may stand in brackets.
func (p *parser) withStmt() Stmt {
	kw := p.next()
	s := &With{}
	if p.isOp("(") {
		var items []*WithItem
		if p.attempt(func() {
			p.next()
			items = p.withItems(")")
			p.expectOp(")")
			p.expectOp(":")
		}) {
			s.Items = items
			s.Body = p.block("'with' statement", kw.start.Line)
			s.Node = Node{kw.start, p.lastRealEnd()}
			return s
		}
	}
	s.Items = p.withItems(":")
	p.headerColon()
	s.Body = p.block("'with' statement", kw.start.Line)
	s.Node = Node{kw.start, p.lastRealEnd()}
	return s
}

// withItems parses with items separated by commas; in brackets a comma
// may end them before closer.
func (p *parser) withItems(closer string) []*WithItem {
	var items []*WithItem
	for {
		it := &WithItem{ContextExpr: p.expression()}
		if p.acceptKw("as") {
			it.OptionalVars = p.starTarget()
			p.checkTarget(it.OptionalVars, starTargets)
			if p.cur().kind == tNewline {
				p.failFurthest("expected ':'")
			}
			if !p.isOp(",") && !p.isOp(")") && !p.isOp(":") {
				p.invalidSyntax()
			}
		}
		items = append(items, it)
		if !p.acceptOp(",") || closer == ")" && p.isOp(")") {
			return items
		}
	}
}

// decorated parses decorators and the def or class they decorate.
func (p *parser) decorated() Stmt {
	var decorators []Expr
	for p.acceptOp("@") {
		decorators = append(decorators, p.namedExpression())
		if p.cur().kind != tNewline {
			p.invalidSyntax()
		}
		p.next()
	}
	switch {
	case p.isKw("def"):
		return p.funcDef(decorators)
	case p.isKw("class"):
		return p.classDef(decorators)
	case p.isKw("async"):
		p.fail(p.cur().start, "'async' is not supported")
	}
	p.invalidSyntax()
	return nil
}

// funcDef parses def name(params) -> returns: block.
func (p *parser) funcDef(decorators []Expr) Stmt {
	kw := p.next()
	s := &FunctionDef{Name: p.name().text, DecoratorList: decorators}
	if !p.acceptOp("(") {
		p.fail(p.cur().start, "expected '('")
	}
	s.Args = p.parameters(")")
	p.expectOp(")")
	if p.isOp("->") {
		// An arrow with no annotation is skipped, so CPython expects the
		// ':' at the arrow.
		p.attempt(func() {
			p.next()
			s.Returns = p.expression()
		})
	}
	p.forcedColon()
	p.within(true, func() { s.Body = p.block("function definition", kw.start.Line) })
	s.Node = Node{kw.start, p.lastRealEnd()}
	return s
}

// classDef parses class name(bases, keywords): block.
func (p *parser) classDef(decorators []Expr) Stmt {
	kw := p.next()
	s := &ClassDef{Name: p.name().text, DecoratorList: decorators}
	if p.acceptOp("(") {
		s.Bases, s.Keywords = p.arguments()
		p.expectOp(")")
	}
	p.headerColon()
	p.within(false, func() { s.Body = p.block("class definition", kw.start.Line) })
	s.Node = Node{kw.start, p.lastRealEnd()}
	return s
}
