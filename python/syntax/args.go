package syntax

// parameters parses a def's parameter list up to ")", or a lambda's up to
// ":" (where there are no annotations). Errors are CPython's.
func (p *parser) parameters(closer string) *Arguments {
	a := &Arguments{}
	annotated := closer == ")"
	var seenDefault, seenSlash bool
	var star *token // the '*' token, once seen
	for !p.isOp(closer) {
		t := *p.cur()
		switch {
		case t.isOp("/"):
			switch {
			case star != nil:
				p.fail(t.start, "/ must be ahead of *")
			case seenSlash:
				p.fail(t.start, "/ may appear only once")
			case len(a.Args) == 0:
				p.fail(t.start, "at least one argument must precede /")
			}
			p.next()
			a.Posonlyargs, a.Args = a.Args, nil
			seenSlash = true
		case t.isOp("*"):
			if star != nil {
				p.fail(t.start, "* argument may appear only once")
			}
			p.next()
			star = &t
			if p.cur().kind != tName {
				if !p.isOp(",") || p.peek(1).isOp(closer) || p.peek(1).isOp("**") {
					p.fail(t.start, "named arguments must follow bare *")
				}
				break
			}
			a.Vararg = p.param(annotated, true)
			if p.isOp("=") {
				p.fail(p.cur().start, "var-positional argument cannot have default value")
			}
		case t.isOp("**"):
			p.next()
			a.Kwarg = p.param(annotated, false)
			if p.isOp("=") {
				p.fail(p.cur().start, "var-keyword argument cannot have default value")
			}
			if p.acceptOp(",") && !p.isOp(closer) {
				p.fail(p.cur().start, "arguments cannot follow var-keyword argument")
			}
			return a
		case t.isOp("("):
			p.parenthesizedParams(closer)
		default:
			arg := p.param(annotated, false)
			var def Expr
			if p.acceptOp("=") {
				def = p.expression()
			}
			switch {
			case star != nil:
				a.Kwonlyargs = append(a.Kwonlyargs, arg)
				a.KwDefaults = append(a.KwDefaults, def)
			case def != nil:
				a.Args = append(a.Args, arg)
				a.Defaults = append(a.Defaults, def)
				seenDefault = true
			case seenDefault:
				p.fail(arg.Start, "non-default argument follows default argument")
			default:
				a.Args = append(a.Args, arg)
			}
		}
		if !p.acceptOp(",") {
			break
		}
	}
	return a
}

// parenthesizedParams fails on Python 2's tuple parameters, def f((a, b)).
func (p *parser) parenthesizedParams(closer string) {
	lp := p.cur().start
	if p.probe(func() bool {
		p.next()
		for p.cur().kind == tName {
			p.next()
			if !p.acceptOp(",") {
				break
			}
		}
		return p.isOp(")")
	}) {
		if closer == ":" {
			p.fail(lp, "Lambda expression parameters cannot be parenthesized")
		}
		p.fail(lp, "Function parameters cannot be parenthesized")
	}
	p.invalidSyntax()
}

// param parses one parameter's name and, in a def, its annotation, which
// after * may itself be starred (*args: *Ts).
func (p *parser) param(annotated, starAnnotation bool) *Arg {
	t := p.name()
	arg := &Arg{Arg: t.text}
	if annotated && p.acceptOp(":") {
		if starAnnotation {
			arg.Annotation = p.starExpression()
		} else {
			arg.Annotation = p.expression()
		}
	}
	arg.Node = Node{t.start, p.lastEnd()}
	return arg
}

// arguments parses a class's bases and keywords, up to the ')'.
func (p *parser) arguments() ([]Expr, []*Keyword) {
	return p.argumentList(Pos{}, false)
}

// callArguments parses a call's arguments up to the ')'; lparen is where
// the '(' stands, which starts a generator expression that is the sole
// argument.
func (p *parser) callArguments(lparen Pos) ([]Expr, []*Keyword) {
	return p.argumentList(lparen, true)
}

// argumentList parses positional, starred, keyword and ** arguments.
func (p *parser) argumentList(lparen Pos, genexpOK bool) ([]Expr, []*Keyword) {
	var args []Expr
	var kws []*Keyword
	var seenKeyword, seenDoubleStar bool
	for !p.isOp(")") {
		t := *p.cur()
		switch {
		case t.isOp("*"):
			if seenDoubleStar {
				p.fail(t.start, "iterable argument unpacking follows keyword argument unpacking")
			}
			p.next()
			v := p.expression()
			args = append(args, &Starred{Node{t.start, p.lastEnd()}, v, Load})
		case t.isOp("**"):
			p.next()
			v := p.expression()
			kws = append(kws, &Keyword{Node{t.start, p.lastEnd()}, "", v})
			seenDoubleStar = true
		case (t.kind == tName || t.isKw("True") || t.isKw("False") || t.isKw("None")) && p.peek(1).isOp("="):
			if t.kind == tKeyword {
				p.fail(t.start, "cannot assign to %s", t.text)
			}
			p.next()
			p.next()
			v := p.expression()
			if p.isKw("for") {
				p.fail(t.start, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?")
			}
			kws = append(kws, &Keyword{Node{t.start, p.lastEnd()}, t.text, v})
			seenKeyword = true
		default:
			e := p.argument()
			if p.isKw("for") {
				if !genexpOK || len(args) > 0 || len(kws) > 0 {
					p.fail(exprStart(e), "Generator expression must be parenthesized")
				}
				gens := p.comprehensions()
				if !p.isOp(")") {
					p.fail(exprStart(e), "Generator expression must be parenthesized")
				}
				return []Expr{&GeneratorExp{Node: Node{lparen, p.cur().end}, Elt: e, Generators: gens}}, nil
			}
			switch {
			case seenDoubleStar:
				p.failAfterArgs("positional argument follows keyword argument unpacking")
			case seenKeyword:
				p.failAfterArgs("positional argument follows keyword argument")
			}
			args = append(args, e)
		}
		if !p.acceptOp(",") {
			break
		}
	}
	return args, kws
}

// argument parses a positional argument: an expression or NAME := value,
// which may not be followed by '='.
func (p *parser) argument() Expr {
	t := *p.cur()
	if t.kind == tName && p.peek(1).isOp(":=") {
		return p.namedExpression()
	}
	e := p.expression()
	if p.isOp("=") {
		p.fail(exprStart(e), "expression cannot contain assignment, perhaps you meant \"==\"?")
	}
	return e
}

// failAfterArgs fails with msg where CPython does for misordered
// arguments: at the furthest token it read, having read the arguments
// that follow.
func (p *parser) failAfterArgs(msg string) {
	p.probe(func() bool {
		for !p.isOp(")") {
			if p.cur().kind == tName && p.peek(1).isOp("=") {
				p.next()
				p.next()
			} else if !p.acceptOp("*") {
				p.acceptOp("**")
			}
			p.expression()
			if !p.acceptOp(",") {
				break
			}
		}
		return true
	})
	p.failFurthest("%s", msg)
}
