package syntax

// targetKind says what a target is for, which changes what is valid in
// it and how CPython words the error.
type targetKind uint8

const (
	starTargets targetKind = iota // assignment and with ... as
	forTargets                    // for loops and comprehensions
	delTargets                    // del
)

// invalidTarget returns the first part of e that cannot be a target of
// the kind, or nil when e is a valid target. Only tuples, lists and
// starred expressions are searched inside, as in CPython; in a for target
// a comparison "x in y" stands for the target x.
func invalidTarget(e Expr, kind targetKind) Expr {
	switch e := e.(type) {
	case *List:
		return firstInvalidTarget(e.Elts, kind)
	case *Tuple:
		return firstInvalidTarget(e.Elts, kind)
	case *Starred:
		if kind == delTargets {
			return e
		}
		return invalidTarget(e.Value, kind)
	case *Compare:
		if kind == forTargets {
			if e.Ops[0] == In {
				return invalidTarget(e.Left, kind)
			}
			return nil
		}
		return e
	case *Name, *Subscript, *Attribute:
		return nil
	}
	return e
}

func firstInvalidTarget(elts []Expr, kind targetKind) Expr {
	for _, x := range elts {
		if bad := invalidTarget(x, kind); bad != nil {
			return bad
		}
	}
	return nil
}

// setCtx marks a valid target e, and the names, tuples and lists in it,
// as assigned (Store) or deleted (Del).
func setCtx(e Expr, ctx Ctx) {
	switch e := e.(type) {
	case *Name:
		e.Ctx = ctx
	case *Attribute:
		e.Ctx = ctx
	case *Subscript:
		e.Ctx = ctx
	case *Starred:
		e.Ctx = ctx
		setCtx(e.Value, ctx)
	case *List:
		e.Ctx = ctx
		for _, x := range e.Elts {
			setCtx(x, ctx)
		}
	case *Tuple:
		e.Ctx = ctx
		for _, x := range e.Elts {
			setCtx(x, ctx)
		}
	}
}

// exprStart returns where e starts.
func exprStart(e Expr) Pos {
	start, _ := e.Span()
	return start
}

// exprName names e's kind as CPython's error messages do.
func exprName(e Expr) string {
	switch e := e.(type) {
	case *Attribute:
		return "attribute"
	case *Subscript:
		return "subscript"
	case *Starred:
		return "starred"
	case *Name:
		return "name"
	case *List:
		return "list"
	case *Tuple:
		return "tuple"
	case *Lambda:
		return "lambda"
	case *Call:
		return "function call"
	case *BoolOp, *BinOp, *UnaryOp:
		return "expression"
	case *GeneratorExp:
		return "generator expression"
	case *Yield, *YieldFrom:
		return "yield expression"
	case *ListComp:
		return "list comprehension"
	case *SetComp:
		return "set comprehension"
	case *DictComp:
		return "dict comprehension"
	case *Dict:
		return "dict literal"
	case *Set:
		return "set display"
	case *JoinedStr, *FormattedValue:
		return "f-string expression"
	case *Constant:
		switch v := e.Value.(type) {
		case nil:
			return "None"
		case bool:
			if v {
				return "True"
			}
			return "False"
		case Ellipsis:
			return "ellipsis"
		}
		return "literal"
	case *Compare:
		return "comparison"
	case *IfExp:
		return "conditional expression"
	case *NamedExpr:
		return "named expression"
	}
	return "expression"
}

// checkTarget fails unless e is a valid target of the kind, then marks it.
func (p *parser) checkTarget(e Expr, kind targetKind) {
	if bad := invalidTarget(e, kind); bad != nil {
		p.fail(exprStart(bad), "cannot assign to %s", exprName(bad))
	}
	setCtx(e, Store)
}

// forTargets parses the targets of a for loop or clause and the 'in'.
func (p *parser) forTargets() Expr {
	start := p.cur().start
	e := p.starTarget()
	if p.isOp(",") {
		elts := []Expr{e}
		for p.acceptOp(",") && !p.isKw("in") {
			elts = append(elts, p.starTarget())
		}
		e = &Tuple{Node{start, p.lastEnd()}, elts, Load}
	}
	p.checkTarget(e, forTargets)
	if !p.acceptKw("in") {
		p.invalidSyntax()
	}
	return e
}

// starTarget parses one target: *target or an operand. It is checked by
// the caller.
func (p *parser) starTarget() Expr {
	if p.isOp("*") {
		star := p.next()
		v := p.starTarget()
		return &Starred{Node{star.start, p.lastEnd()}, v, Load}
	}
	return p.bitwiseOr()
}

// exprOrAssign parses an expression statement or an assignment of any
// kind: plain (chained), augmented or annotated.
func (p *parser) exprOrAssign() Stmt {
	start := p.cur().start
	first := p.yieldOrStarExpressions()
	switch {
	case p.isOp(":"):
		return p.annAssign(start, first)
	case p.isOp("="):
		return p.assign(start, first)
	}
	if op, ok := augAssignOp(p.cur()); ok {
		switch first.(type) {
		case *Name, *Attribute, *Subscript:
		default:
			p.fail(exprStart(first), "'%s' is an illegal expression for augmented assignment", exprName(first))
		}
		p.next()
		setCtx(first, Store)
		v := p.yieldOrStarExpressions()
		return &AugAssign{Node{start, p.lastEnd()}, first, op, v}
	}
	return &ExprStmt{Node{start, p.lastEnd()}, first}
}

// augAssignOp returns the operator of an augmented assignment token.
func augAssignOp(t *token) (BinOpKind, bool) {
	if t.kind != tOp || len(t.text) < 2 || t.text[len(t.text)-1] != '=' {
		return 0, false
	}
	for k, o := range binOps {
		if k != 0 && o.symbol+"=" == t.text {
			return BinOpKind(k), true
		}
	}
	return 0, false
}

// annAssign parses target: annotation [= value].
func (p *parser) annAssign(start Pos, target Expr) Stmt {
	switch target.(type) {
	case *Tuple, *List:
		p.fail(exprStart(target), "only single target (not %s) can be annotated", exprName(target))
	case *Name, *Attribute, *Subscript:
	default:
		p.fail(exprStart(target), "illegal target for annotation")
	}
	p.next()
	s := &AnnAssign{Target: target, Annotation: p.expression()}
	_, isName := target.(*Name)
	s.Simple = isName && !p.isGroup(target)
	setCtx(target, Store)
	if p.acceptOp("=") {
		s.Value = p.yieldOrStarExpressions()
	}
	s.Node = Node{start, p.lastEnd()}
	return s
}

// assign parses the rest of target = target = ... = value.
func (p *parser) assign(start Pos, first Expr) Stmt {
	parts := []Expr{first}
	for p.acceptOp("=") {
		parts = append(parts, p.yieldOrStarExpressions())
	}
	targets, value := parts[:len(parts)-1], parts[len(parts)-1]
	for i, t := range targets {
		if bad := invalidTarget(t, starTargets); bad != nil {
			p.badAssignTarget(i, t, bad, parts[i+1], i+1 == len(targets))
		}
		setCtx(t, Store)
	}
	return &Assign{Node{start, p.lastEnd()}, targets, value}
}

// badAssignTarget fails on target i, which holds the invalid part bad;
// next is what follows its '='. Where CPython's invalid_named_expression
// rule matches first it adds a hint that == was meant.
func (p *parser) badAssignTarget(i int, target, bad, next Expr, nextIsValue bool) {
	if isYield(target) {
		p.fail(exprStart(target), "assignment to yield expression not possible")
	}
	last := target
	if t, ok := target.(*Tuple); ok && p.unparenthesized(t) {
		last = t.Elts[len(t.Elts)-1]
	}
	if i == 0 && last == bad && p.bitwiseOrLevel(bad) && !p.startsWithDisplay(bad) && p.operandStarts(next, !nextIsValue) {
		p.fail(exprStart(bad), "cannot assign to %s here. Maybe you meant '==' instead of '='?", exprName(bad))
	}
	p.fail(exprStart(bad), "cannot assign to %s", exprName(bad))
}

// unparenthesized reports whether t is a tuple written without brackets.
func (p *parser) unparenthesized(t *Tuple) bool {
	return len(t.Elts) > 0 && p.exprOuterStart(t.Elts[0]) == exprStart(t)
}

func isYield(e Expr) bool {
	switch e.(type) {
	case *Yield, *YieldFrom:
		return true
	}
	return false
}

// operandStarts reports whether e, the text after an '=', starts with an
// operand (CPython's bitwise_or) that is not followed by '=' or ':='.
// beforeEquals says that e itself is followed by '='.
func (p *parser) operandStarts(e Expr, beforeEquals bool) bool {
	for {
		if p.isGroup(e) {
			return !beforeEquals
		}
		var inner Expr
		switch x := e.(type) {
		case *Tuple:
			if !p.unparenthesized(x) {
				return !beforeEquals
			}
			inner = x.Elts[0]
		case *Compare:
			inner = x.Left
		case *BoolOp:
			inner = x.Values[0]
		case *IfExp:
			inner = x.Body
		default:
			return p.bitwiseOrLevel(e) && !beforeEquals
		}
		e, beforeEquals = inner, false
	}
}
