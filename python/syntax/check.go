package syntax

// checker finds the errors that CPython's compiler, rather than its
// parser or symbol table, reports: return, yield, break and continue out
// of place, misplaced starred expressions, a bare except that is not
// last, and assignments to __debug__.
type checker struct {
	r    *resolver
	fn   bool // in a function's body (a def, a lambda)
	loop int  // loops around the statement, in the current body
}

func (c *checker) stmts(body []Stmt) {
	for _, s := range body {
		c.stmt(s)
	}
}

// body checks the body of a def (fn) or class with no loop around it.
func (c *checker) body(fn bool, check func()) {
	saved := *c
	c.fn, c.loop = fn, 0
	check()
	c.fn, c.loop = saved.fn, saved.loop
}

func (c *checker) stmt(s Stmt) {
	switch s := s.(type) {
	case *FunctionDef:
		c.params(s.Args, s.Start)
		c.exprs(s.DecoratorList)
		c.body(true, func() { c.stmts(s.Body) })
	case *ClassDef:
		c.exprs(s.DecoratorList)
		c.arguments(s.Bases, s.Keywords, s.Start)
		c.body(false, func() { c.stmts(s.Body) })
	case *Return:
		if !c.fn {
			c.r.fail(s.Start, "'return' outside function")
		}
		c.optional(s.Value)
	case *Delete:
		for _, t := range s.Targets {
			c.target(t, "delete")
		}
	case *Assign:
		c.expr(s.Value)
		for _, t := range s.Targets {
			c.target(t, "assign to")
		}
	case *AugAssign:
		c.expr(s.Value)
		c.target(s.Target, "assign to")
	case *AnnAssign:
		c.optional(s.Value)
		c.target(s.Target, "assign to")
	case *For:
		c.expr(s.Iter)
		c.target(s.Target, "assign to")
		c.loopBody(s.Body)
		c.stmts(s.Orelse)
	case *While:
		c.expr(s.Test)
		c.loopBody(s.Body)
		c.stmts(s.Orelse)
	case *If:
		c.expr(s.Test)
		c.stmts(s.Body)
		c.stmts(s.Orelse)
	case *With:
		for _, it := range s.Items {
			c.expr(it.ContextExpr)
			if it.OptionalVars != nil {
				c.target(it.OptionalVars, "assign to")
			}
		}
		c.stmts(s.Body)
	case *Raise:
		c.optional(s.Exc)
		c.optional(s.Cause)
	case *Try:
		c.stmts(s.Body)
		for i, h := range s.Handlers {
			if h.Type == nil && i < len(s.Handlers)-1 {
				c.r.fail(h.Start, "default 'except:' must be last")
			}
			c.optional(h.Type)
			c.stmts(h.Body)
		}
		c.stmts(s.Orelse)
		c.stmts(s.Finalbody)
	case *Assert:
		c.expr(s.Test)
		c.optional(s.Msg)
	case *ExprStmt:
		c.expr(s.Value)
	case *Break:
		if c.loop == 0 {
			c.r.fail(s.Start, "'break' outside loop")
		}
	case *Continue:
		if c.loop == 0 {
			c.r.fail(s.Start, "'continue' not properly in loop")
		}
	}
}

func (c *checker) loopBody(body []Stmt) {
	c.loop++
	c.stmts(body)
	c.loop--
}

// params checks a def's or lambda's parameters and their defaults.
func (c *checker) params(a *Arguments, at Pos) {
	for _, arg := range allArgs(a) {
		if arg.Arg == "__debug__" {
			c.r.fail(at, "cannot assign to __debug__")
		}
	}
	c.exprs(a.Defaults)
	c.exprs(a.KwDefaults)
}

// arguments checks the arguments of a call or class definition at at:
// the keywords' names first, as CPython's compiler does.
func (c *checker) arguments(args []Expr, ks []*Keyword, at Pos) {
	for i, k := range ks {
		if k.Arg == "__debug__" {
			c.r.fail(at, "cannot assign to __debug__")
		}
		for _, later := range ks[i+1:] {
			if k.Arg != "" && later.Arg == k.Arg {
				c.r.fail(later.Start, "keyword argument repeated: %s", k.Arg)
			}
		}
	}
	c.elts(args)
	for _, k := range ks {
		c.expr(k.Value)
	}
}

func (c *checker) optional(e Expr) {
	if e != nil {
		c.expr(e)
	}
}

func (c *checker) exprs(es []Expr) {
	for _, e := range es {
		c.optional(e)
	}
}

// elts checks the elements of a display or call, where *x may stand.
func (c *checker) elts(es []Expr) {
	for _, e := range es {
		if s, ok := e.(*Starred); ok {
			c.expr(s.Value)
		} else {
			c.expr(e)
		}
	}
}

// target checks an assignment (or del, when verb says so) target.
func (c *checker) target(e Expr, verb string) {
	switch t := e.(type) {
	case *Name:
		if t.Id == "__debug__" {
			c.r.fail(t.Start, "cannot %s __debug__", verb)
		}
	case *Starred:
		c.r.fail(t.Start, "starred assignment target must be in a list or tuple")
	case *Tuple:
		c.targetElts(t.Start, t.Elts, verb)
	case *List:
		c.targetElts(t.Start, t.Elts, verb)
	default:
		c.expr(e)
	}
}

func (c *checker) targetElts(at Pos, elts []Expr, verb string) {
	starred := false
	for _, x := range elts {
		if s, ok := x.(*Starred); ok {
			if starred {
				c.r.fail(at, "multiple starred expressions in assignment")
			}
			starred = true
			c.target(s.Value, verb)
			continue
		}
		c.target(x, verb)
	}
}

// expr checks an expression that is read.
func (c *checker) expr(e Expr) {
	switch e := e.(type) {
	case *Starred:
		c.r.fail(e.Start, "can't use starred expression here")
	case *Yield, *YieldFrom:
		if !c.fn {
			c.r.fail(exprStart(e), "'yield' outside function")
		}
		c.exprs(exprChildren(e))
	case *Lambda:
		c.params(e.Args, e.Start)
		c.body(true, func() { c.expr(e.Body) })
	case *List:
		c.elts(e.Elts)
	case *Tuple:
		c.elts(e.Elts)
	case *Set:
		c.elts(e.Elts)
	case *Call:
		c.expr(e.Func)
		c.arguments(e.Args, e.Keywords, e.Start)
	case *NamedExpr:
		c.expr(e.Value)
		c.target(e.Target, "assign to")
	case *ListComp, *SetComp, *DictComp, *GeneratorExp:
		for _, x := range children(e) {
			if g, ok := x.(*Comprehension); ok {
				c.expr(g.Iter)
				c.target(g.Target, "assign to")
				c.exprs(g.Ifs)
			} else {
				c.expr(x.(Expr))
			}
		}
	default:
		c.exprs(exprChildren(e))
	}
}

// exprChildren lists e's child expressions.
func exprChildren(e Expr) []Expr {
	var out []Expr
	for _, x := range children(e) {
		if x, ok := x.(Expr); ok {
			out = append(out, x)
		}
	}
	return out
}
