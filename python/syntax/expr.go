package syntax

// attempt runs f as a trial parse. If f fails with a syntax error the
// parser goes back to where it was and attempt returns false; a
// tokenizer error still stops the parse, as it would in CPython.
func (p *parser) attempt(f func()) (ok bool) {
	mark, groups := p.i, len(p.groups)
	defer func() {
		if r := recover(); r != nil {
			if _, isBail := r.(bailout); !isBail || p.toks[len(p.toks)-1].kind == tError {
				panic(r)
			}
			p.i, p.err, ok = mark, nil, false
			if len(p.groups) != groups {
				p.forgetGroupsFrom(mark)
			}
		}
	}()
	f()
	return true
}

// probe runs f as a trial parse and goes back to where it started
// whatever happens. It returns f's result, or false if f fails.
func (p *parser) probe(f func() bool) bool {
	mark := p.i
	ok := false
	p.attempt(func() { ok = f() })
	p.i = mark
	return ok
}

// forgetGroupsFrom drops the groups recorded at or after token mark by a
// trial parse that failed.
func (p *parser) forgetGroupsFrom(mark int) {
	start := p.toks[mark].start
	for e, pos := range p.groups {
		if !pos.Before(start) {
			delete(p.groups, e)
		}
	}
}

// startsExpr reports whether the current token can begin an expression
// (or a starred one).
func (p *parser) startsExpr() bool {
	return p.cur().isOp("*") || startsOperand(p.cur())
}

// startsOperand reports whether t can begin an expression that is not
// starred.
func startsOperand(t *token) bool {
	switch t.kind {
	case tName, tNumber, tString:
		return true
	case tKeyword:
		switch t.text {
		case "None", "True", "False", "not", "lambda", "await":
			return true
		}
	case tOp:
		switch t.text {
		case "(", "[", "{", "-", "+", "~", "...":
			return true
		}
	}
	return false
}

// starExpressions parses star_expressions: one expression, or a tuple of
// (possibly starred) expressions with an optional trailing comma.
func (p *parser) starExpressions() Expr {
	return p.exprList(p.starExpression)
}

// expressions parses expressions separated by commas, as a tuple if
// there is a comma.
func (p *parser) expressions() Expr {
	return p.exprList(p.expression)
}

// exprList parses item (',' item)* [','], a Tuple when there is a comma.
func (p *parser) exprList(item func() Expr) Expr {
	start := p.cur().start
	e := item()
	if !p.isOp(",") {
		return e
	}
	elts := []Expr{e}
	for p.acceptOp(",") && p.startsExpr() {
		elts = append(elts, item())
	}
	return &Tuple{Node{start, p.lastEnd()}, elts, Load}
}

// starExpression parses '*' bitwise_or, or an expression.
func (p *parser) starExpression() Expr {
	if p.isOp("*") {
		star := p.next()
		v := p.bitwiseOr()
		return &Starred{Node{star.start, p.lastEnd()}, v, Load}
	}
	return p.expression()
}

// starNamedExpression parses '*' bitwise_or, or a named expression: an
// element of a display.
func (p *parser) starNamedExpression() Expr {
	if p.isOp("*") {
		return p.starExpression()
	}
	return p.namedExpression()
}

// yieldOrStarExpressions parses the right side of an assignment.
func (p *parser) yieldOrStarExpressions() Expr {
	if p.isKw("yield") {
		return p.yieldExpr()
	}
	return p.starExpressions()
}

// yieldExpr parses yield [star_expressions] or yield from expression.
func (p *parser) yieldExpr() Expr {
	kw := p.next()
	if p.acceptKw("from") {
		v := p.expression()
		return &YieldFrom{Node{kw.start, p.lastEnd()}, v}
	}
	y := &Yield{}
	if p.startsExpr() {
		y.Value = p.starExpressions()
	}
	y.Node = Node{kw.start, p.lastEnd()}
	return y
}

// namedExpression parses NAME := expression, or an expression. An
// expression followed by '=' is CPython's invalid_named_expression.
func (p *parser) namedExpression() Expr {
	t := *p.cur()
	if t.kind == tName && p.peek(1).isOp(":=") {
		p.next()
		p.next()
		v := p.expression()
		return &NamedExpr{Node{t.start, p.lastEnd()}, &Name{Node{t.start, t.end}, t.text, Store}, v}
	}
	e := p.expression()
	switch {
	case p.isOp(":="):
		p.fail(exprStart(e), "cannot use assignment expressions with %s", exprName(e))
	case p.isOp("="):
		p.equalsNotAssignment(e)
	}
	return e
}

// equalsNotAssignment fails as CPython does where an expression that is
// no assignment target's is followed by '=' and one more operand: the
// author most likely meant ==.
func (p *parser) equalsNotAssignment(e Expr) {
	if !p.bitwiseOrLevel(e) || !p.singleOperandFollows() {
		return
	}
	if _, ok := e.(*Name); ok {
		p.fail(exprStart(e), "invalid syntax. Maybe you meant '==' or ':=' instead of '='?")
	}
	if !p.startsWithDisplay(e) {
		p.fail(exprStart(e), "cannot assign to %s here. Maybe you meant '==' instead of '='?", exprName(e))
	}
}

// singleOperandFollows reports whether the current '=' is followed by a
// bitwise_or that is not itself followed by '=' or ':='.
func (p *parser) singleOperandFollows() bool {
	return p.probe(func() bool {
		p.next()
		p.bitwiseOr()
		return !p.isOp("=") && !p.isOp(":=")
	})
}

// bitwiseOrLevel reports whether e is what CPython's bitwise_or rule
// yields: an operand or an arithmetic expression, or anything in
// parentheses.
func (p *parser) bitwiseOrLevel(e Expr) bool {
	if _, ok := p.groups[e]; ok {
		return true
	}
	switch e := e.(type) {
	case *BoolOp, *Compare, *IfExp, *Lambda, *NamedExpr, *Starred, *Yield, *YieldFrom:
		return false
	case *UnaryOp:
		return e.Op != Not
	}
	return true
}

// startsWithDisplay reports whether e begins with a list or tuple
// display, a generator expression, or True, False or None: CPython's
// check for "cannot assign ... here" skips those.
func (p *parser) startsWithDisplay(e Expr) bool {
	start := p.exprOuterStart(e)
	for {
		var inner Expr
		switch x := e.(type) {
		case *BinOp:
			inner = x.Left
		case *Call:
			inner = x.Func
		case *Attribute:
			inner = x.Value
		case *Subscript:
			inner = x.Value
		case *List, *Tuple, *GeneratorExp:
			return p.exprOuterStart(e) == start && !p.isGroup(e)
		case *Constant:
			switch x.Value.(type) {
			case nil, bool:
				return p.exprOuterStart(e) == start && !p.isGroup(e)
			}
			return false
		default:
			return false
		}
		if p.exprOuterStart(inner) != start {
			return false
		}
		e = inner
	}
}

func (p *parser) isGroup(e Expr) bool { _, ok := p.groups[e]; return ok }

// exprOuterStart is where e's text starts, its parentheses included.
func (p *parser) exprOuterStart(e Expr) Pos {
	if pos, ok := p.groups[e]; ok {
		return pos
	}
	return exprStart(e)
}

// expression parses a conditional expression, a lambda, or a disjunction.
func (p *parser) expression() Expr {
	p.enter(p.cur().start)
	defer p.leave()
	if p.isKw("lambda") {
		return p.lambda()
	}
	start := p.cur().start
	first := p.i
	e := p.disjunction()
	if p.isKw("if") {
		p.next()
		test := p.disjunction()
		if !p.acceptKw("else") {
			if p.isOp(":") {
				p.invalidSyntax()
			}
			p.fail(start, "expected 'else' after 'if' expression")
		}
		orelse := p.expression()
		return &IfExp{Node{start, p.lastEnd()}, test, e, orelse}
	}
	p.adjacentExpression(e, first)
	return e
}

// adjacentExpression fails as CPython does where an expression e, which
// started at token first, is directly followed by another: a print
// statement of Python 2, or, inside brackets, a missing comma.
func (p *parser) adjacentExpression(e Expr, first int) {
	if !startsOperand(p.cur()) {
		return
	}
	if n, ok := e.(*Name); ok && (n.Id == "print" || n.Id == "exec") {
		if p.attempt(func() { p.starExpressions() }) {
			p.fail(n.Start, "Missing parentheses in call to '%s'. Did you mean %s(...)?", n.Id, n.Id)
		}
	}
	if p.cur().level == 0 || p.toks[first].kind == tName && (p.toks[first+1].kind == tString || softKeywords[p.toks[first].text]) {
		return
	}
	if p.probe(func() bool {
		p.expression()
		return p.toks[p.i-1].level > 0
	}) {
		p.fail(exprStart(e), "invalid syntax. Perhaps you forgot a comma?")
	}
}

// softKeywords are the names that are keywords only in match statements.
var softKeywords = map[string]bool{"match": true, "case": true, "_": true}

// lambda parses lambda params: body.
func (p *parser) lambda() Expr {
	kw := p.next()
	args := p.parameters(":")
	p.expectOp(":")
	var body Expr
	p.within(true, func() { body = p.expression() })
	return &Lambda{Node: Node{kw.start, p.lastEnd()}, Args: args, Body: body}
}

// await refuses an await expression: with no async def, every await
// is outside an async function, and CPython says so.
func (p *parser) await() {
	if p.inFunc {
		p.fail(p.cur().start, "'await' outside async function")
	}
	p.fail(p.cur().start, "'await' outside function")
}

// disjunction parses conjunctions joined by or.
func (p *parser) disjunction() Expr { return p.boolOp(Or, p.conjunction) }

// conjunction parses inversions joined by and.
func (p *parser) conjunction() Expr { return p.boolOp(And, p.inversion) }

// boolOp parses operand (op operand)* into one BoolOp.
func (p *parser) boolOp(op BoolOpKind, operand func() Expr) Expr {
	start := p.cur().start
	e := operand()
	if !p.isKw(op.Symbol()) {
		return e
	}
	values := []Expr{e}
	for p.acceptKw(op.Symbol()) {
		values = append(values, operand())
	}
	return &BoolOp{Node{start, p.lastEnd()}, op, values}
}

// inversion parses not inversion, or a comparison.
func (p *parser) inversion() Expr {
	if p.isKw("not") {
		p.enter(p.cur().start)
		defer p.leave()
		kw := p.next()
		v := p.inversion()
		return &UnaryOp{Node{kw.start, p.lastEnd()}, Not, v}
	}
	return p.comparison()
}

// comparison parses a chain of comparisons.
func (p *parser) comparison() Expr {
	start := p.cur().start
	left := p.bitwiseOr()
	var ops []CmpOpKind
	var comparators []Expr
	for {
		op, ok := p.cmpOp()
		if !ok {
			break
		}
		ops = append(ops, op)
		comparators = append(comparators, p.bitwiseOr())
	}
	if ops == nil {
		return left
	}
	return &Compare{Node{start, p.lastEnd()}, left, ops, comparators}
}

// cmpOp consumes a comparison operator, two tokens for not in and is not.
func (p *parser) cmpOp() (CmpOpKind, bool) {
	t := p.cur()
	switch {
	case t.kind == tOp:
		for k, o := range cmpOps {
			if o.symbol == t.text && k != 0 {
				p.next()
				return CmpOpKind(k), true
			}
		}
	case t.isKw("in"):
		p.next()
		return In, true
	case t.isKw("not") && p.peek(1).isKw("in"):
		p.next()
		p.next()
		return NotIn, true
	case t.isKw("is"):
		p.next()
		if p.acceptKw("not") {
			return IsNot, true
		}
		return Is, true
	}
	return 0, false
}

// binaryLevels lists the binary operators from the loosest binding
// (bitwise_or) to the tightest (term); ** is parsed by power.
var binaryLevels = [][]BinOpKind{
	{BitOr}, {BitXor}, {BitAnd}, {LShift, RShift}, {Add, Sub}, {Mult, Div, FloorDiv, Mod, MatMult},
}

// bitwiseOr parses CPython's bitwise_or: an arithmetic expression.
func (p *parser) bitwiseOr() Expr { return p.binary(0) }

// binary parses the left-associative operators of binaryLevels[level].
func (p *parser) binary(level int) Expr {
	if level == len(binaryLevels) {
		return p.factor()
	}
	start := p.cur().start
	left := p.binary(level + 1)
	for {
		op, ok := binaryOpAt(p.cur(), binaryLevels[level])
		if !ok {
			return left
		}
		p.next()
		right := p.binary(level + 1)
		left = &BinOp{Node{start, p.lastEnd()}, left, op, right}
	}
}

// binaryOpAt returns the operator among ops that t is.
func binaryOpAt(t *token, ops []BinOpKind) (BinOpKind, bool) {
	if t.kind != tOp {
		return 0, false
	}
	for _, op := range ops {
		if t.text == op.Symbol() {
			return op, true
		}
	}
	return 0, false
}

// factor parses unary +, - and ~, which bind looser than ** on their right.
func (p *parser) factor() Expr {
	t := p.cur()
	var op UnaryOpKind
	switch {
	case t.isOp("+"):
		op = UAdd
	case t.isOp("-"):
		op = USub
	case t.isOp("~"):
		op = Invert
	default:
		return p.power()
	}
	p.enter(t.start)
	defer p.leave()
	start := p.next().start
	v := p.factor()
	return &UnaryOp{Node{start, p.lastEnd()}, op, v}
}

// power parses primary ** factor, or a primary.
func (p *parser) power() Expr {
	start := p.cur().start
	e := p.primary()
	if p.acceptOp("**") {
		// two levels, as CPython's power and factor rules each take one
		p.enter(start)
		p.enter(start)
		defer func() { p.levels -= 2 }()
		right := p.factor()
		return &BinOp{Node{start, p.lastEnd()}, e, Pow, right}
	}
	return e
}

// primary parses an atom and its trailers: attributes, calls, subscripts.
func (p *parser) primary() Expr {
	start := p.cur().start
	e := p.atom()
	for {
		switch {
		case p.isOp("."):
			p.next()
			attr := p.name().text
			e = &Attribute{Node{start, p.lastEnd()}, e, attr, Load}
		case p.isOp("("):
			lp := p.next()
			args, kws := p.callArguments(lp.start)
			p.expectOp(")")
			e = &Call{Node{start, p.lastEnd()}, e, args, kws}
		case p.isOp("["):
			p.next()
			s := p.slices()
			p.expectOp("]")
			e = &Subscript{Node{start, p.lastEnd()}, e, s, Load}
		default:
			return e
		}
	}
}

// slices parses what stands in a subscript's brackets.
func (p *parser) slices() Expr {
	start := p.cur().start
	first := p.sliceItem()
	if _, starred := first.(*Starred); !starred && !p.isOp(",") {
		return first
	}
	elts := []Expr{first}
	for p.acceptOp(",") && !p.isOp("]") {
		elts = append(elts, p.sliceItem())
	}
	return &Tuple{Node{start, p.lastEnd()}, elts, Load}
}

// sliceItem parses lower:upper:step, a starred expression, or a named
// expression.
func (p *parser) sliceItem() Expr {
	start := p.cur().start
	if p.isOp("*") {
		star := p.next()
		v := p.expression()
		return &Starred{Node{star.start, p.lastEnd()}, v, Load}
	}
	var lower Expr
	if !p.isOp(":") {
		lower = p.namedExpression()
		if !p.isOp(":") {
			return lower
		}
		if _, ok := lower.(*NamedExpr); ok {
			p.invalidSyntax()
		}
	}
	s := &Slice{Lower: lower}
	p.next()
	if !p.isOp(":") && !p.isOp(",") && !p.isOp("]") {
		s.Upper = p.expression()
	}
	if p.acceptOp(":") && !p.isOp(",") && !p.isOp("]") {
		s.Step = p.expression()
	}
	s.Node = Node{start, p.lastEnd()}
	return s
}

// atom parses a name, a literal, or a bracketed display.
func (p *parser) atom() Expr {
	t := *p.cur()
	switch t.kind {
	case tName:
		p.next()
		return &Name{Node{t.start, t.end}, t.text, Load}
	case tNumber:
		p.next()
		return &Constant{Node: Node{t.start, t.end}, Value: numberValue(t.text)}
	case tString:
		return p.strings()
	case tKeyword:
		var v any
		switch t.text {
		case "None":
		case "True":
			v = true
		case "False":
			v = false
		case "await":
			p.await()
		default:
			p.invalidSyntax()
		}
		p.next()
		return &Constant{Node: Node{t.start, t.end}, Value: v}
	case tOp:
		switch t.text {
		case "(":
			return p.parenAtom()
		case "[":
			return p.listAtom()
		case "{":
			return p.braceAtom()
		case "...":
			p.next()
			return &Constant{Node: Node{t.start, t.end}, Value: Ellipsis{}}
		}
	}
	p.invalidSyntax()
	return nil
}

// parenAtom parses (), a group, a tuple, a generator expression, or a
// parenthesized yield.
func (p *parser) parenAtom() Expr {
	lp := p.next()
	if p.acceptOp(")") {
		return &Tuple{Node{lp.start, p.lastEnd()}, nil, Load}
	}
	if p.isKw("yield") {
		y := p.yieldExpr()
		p.expectOp(")")
		p.groups[y] = lp.start
		return y
	}
	if p.isOp("**") {
		p.fail(p.cur().start, "cannot use double starred expression here")
	}
	first := p.starNamedExpression()
	switch {
	case p.isKw("for"):
		p.noStarredElt(first)
		gens := p.comprehensions()
		p.expectOp(")")
		return &GeneratorExp{Node: Node{lp.start, p.lastEnd()}, Elt: first, Generators: gens}
	case p.isOp(","):
		elts := p.displayElts(first, ")")
		p.expectOp(")")
		return &Tuple{Node{lp.start, p.lastEnd()}, elts, Load}
	}
	if !p.isOp(")") {
		p.invalidSyntax()
	}
	if _, ok := first.(*Starred); ok {
		p.fail(exprStart(first), "cannot use starred expression here")
	}
	p.next()
	p.groups[first] = lp.start
	return first
}

// displayElts parses the elements after first of a tuple, list or set
// display, up to closer; a comprehension there lacks parentheses.
func (p *parser) displayElts(first Expr, closer string) []Expr {
	elts := []Expr{first}
	for p.acceptOp(",") && !p.isOp(closer) {
		elts = append(elts, p.starNamedExpression())
	}
	if p.isKw("for") && closer != ")" {
		p.fail(exprStart(first), "did you forget parentheses around the comprehension target?")
	}
	return elts
}

// noStarredElt fails where a comprehension's element is starred.
func (p *parser) noStarredElt(elt Expr) {
	if _, ok := elt.(*Starred); ok {
		p.fail(exprStart(elt), "iterable unpacking cannot be used in comprehension")
	}
}

// listAtom parses a list display or a list comprehension.
func (p *parser) listAtom() Expr {
	lb := p.next()
	if p.acceptOp("]") {
		return &List{Node{lb.start, p.lastEnd()}, nil, Load}
	}
	first := p.starNamedExpression()
	if p.isKw("for") {
		p.noStarredElt(first)
		gens := p.comprehensions()
		p.expectOp("]")
		return &ListComp{Node: Node{lb.start, p.lastEnd()}, Elt: first, Generators: gens}
	}
	elts := p.displayElts(first, "]")
	p.expectOp("]")
	return &List{Node{lb.start, p.lastEnd()}, elts, Load}
}

// braceAtom parses a dict or set display, or a dict or set comprehension.
func (p *parser) braceAtom() Expr {
	lb := p.next()
	if p.acceptOp("}") {
		return &Dict{Node: Node{lb.start, p.lastEnd()}}
	}
	if p.isOp("**") {
		return p.dictRest(lb, nil, nil)
	}
	first := p.starNamedExpression()
	if p.acceptOp(":") {
		value := p.dictValue()
		if p.isKw("for") {
			gens := p.comprehensions()
			p.expectOp("}")
			return &DictComp{Node: Node{lb.start, p.lastEnd()}, Key: first, Value: value, Generators: gens}
		}
		return p.dictRest(lb, first, value)
	}
	if p.isKw("for") {
		p.noStarredElt(first)
		gens := p.comprehensions()
		p.expectOp("}")
		return &SetComp{Node: Node{lb.start, p.lastEnd()}, Elt: first, Generators: gens}
	}
	elts := p.displayElts(first, "}")
	p.expectOp("}")
	return &Set{Node{lb.start, p.lastEnd()}, elts}
}

// dictValue parses the value after a key's ':'.
func (p *parser) dictValue() Expr {
	switch {
	case p.isOp("*"):
		p.fail(p.cur().start, "cannot use a starred expression in a dictionary value")
	case p.isOp("}") || p.isOp(","):
		p.fail(p.toks[p.i-1].start, "expression expected after dictionary key and ':'")
	}
	return p.expression()
}

// dictRest parses the rest of a dict display; key and value are its first
// item, or nil when it starts with **.
func (p *parser) dictRest(lb token, key, value Expr) Expr {
	d := &Dict{}
	if value != nil {
		d.Keys, d.Values = []Expr{key}, []Expr{value}
	}
	needItem := value == nil
	for needItem || p.acceptOp(",") {
		needItem = false
		if p.isOp("}") {
			break
		}
		if p.isOp("**") {
			stars := p.next()
			d.Keys = append(d.Keys, nil)
			d.Values = append(d.Values, p.bitwiseOr())
			if p.isKw("for") {
				p.fail(stars.start, "dict unpacking cannot be used in dict comprehension")
			}
			continue
		}
		k := p.expression()
		if !p.acceptOp(":") {
			_, end := k.Span()
			p.fail(Pos{end.Line, end.Col - 1}, "':' expected after dictionary key")
		}
		d.Keys = append(d.Keys, k)
		d.Values = append(d.Values, p.dictValue())
	}
	p.expectOp("}")
	d.Node = Node{lb.start, p.lastEnd()}
	return d
}

// comprehensions parses the for and if clauses of a comprehension.
func (p *parser) comprehensions() []*Comprehension {
	var gens []*Comprehension
	for p.acceptKw("for") {
		c := &Comprehension{Target: p.forTargets()}
		c.Iter = p.disjunction()
		for p.acceptKw("if") {
			c.Ifs = append(c.Ifs, p.disjunction())
		}
		gens = append(gens, c)
	}
	if p.isKw("async") {
		p.fail(p.cur().start, "'async' is not supported")
	}
	return gens
}
