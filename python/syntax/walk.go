package syntax

// Inspect visits the tree under n in depth-first order, fields in
// CPython's order: it calls f(n) and, if f returns true, inspects n's
// children. n and the nodes f sees are a *Module, a Stmt, an Expr, or one
// of the helpers *Arguments, *Arg, *Keyword, *Alias, *WithItem,
// *ExceptHandler and *Comprehension; absent (nil) children are skipped.
func Inspect(n any, f func(n any) bool) {
	if !f(n) {
		return
	}
	for _, c := range children(n) {
		Inspect(c, f)
	}
}

// children lists n's child nodes in CPython's field order.
func children(n any) []any {
	var out []any
	add := func(xs ...any) {
		for _, x := range xs {
			if !isNil(x) {
				out = append(out, x)
			}
		}
	}
	switch n := n.(type) {
	case Stmt:
		stmtChildren(n, add)
	case Expr:
		exprNodeChildren(n, add)
	default:
		helperChildren(n, add)
	}
	return out
}

// stmtChildren adds a statement's children.
func stmtChildren(n Stmt, add func(...any)) {
	switch n := n.(type) {
	case *FunctionDef:
		add(n.Args)
		addStmts(add, n.Body)
		addExprs(add, n.DecoratorList)
		add(n.Returns)
	case *ClassDef:
		addExprs(add, n.Bases)
		for _, k := range n.Keywords {
			add(k)
		}
		addStmts(add, n.Body)
		addExprs(add, n.DecoratorList)
	case *Return:
		add(n.Value)
	case *Delete:
		addExprs(add, n.Targets)
	case *Assign:
		addExprs(add, n.Targets)
		add(n.Value)
	case *AugAssign:
		add(n.Target, n.Value)
	case *AnnAssign:
		add(n.Target, n.Annotation, n.Value)
	case *For:
		add(n.Target, n.Iter)
		addStmts(add, n.Body)
		addStmts(add, n.Orelse)
	case *While:
		add(n.Test)
		addStmts(add, n.Body)
		addStmts(add, n.Orelse)
	case *If:
		add(n.Test)
		addStmts(add, n.Body)
		addStmts(add, n.Orelse)
	case *With:
		for _, it := range n.Items {
			add(it)
		}
		addStmts(add, n.Body)
	case *Raise:
		add(n.Exc, n.Cause)
	case *Try:
		addStmts(add, n.Body)
		for _, h := range n.Handlers {
			add(h)
		}
		addStmts(add, n.Orelse)
		addStmts(add, n.Finalbody)
	case *Assert:
		add(n.Test, n.Msg)
	case *Import:
		for _, a := range n.Names {
			add(a)
		}
	case *ImportFrom:
		for _, a := range n.Names {
			add(a)
		}
	case *ExprStmt:
		add(n.Value)
	}
}

// exprNodeChildren adds an expression's children.
func exprNodeChildren(n Expr, add func(...any)) {
	switch n := n.(type) {
	case *BoolOp:
		addExprs(add, n.Values)
	case *NamedExpr:
		add(n.Target, n.Value)
	case *BinOp:
		add(n.Left, n.Right)
	case *UnaryOp:
		add(n.Operand)
	case *Lambda:
		add(n.Args, n.Body)
	case *IfExp:
		add(n.Test, n.Body, n.Orelse)
	case *Dict:
		for i := range n.Keys {
			add(n.Keys[i], n.Values[i])
		}
	case *Set:
		addExprs(add, n.Elts)
	case *ListComp:
		add(n.Elt)
		addComps(add, n.Generators)
	case *SetComp:
		add(n.Elt)
		addComps(add, n.Generators)
	case *DictComp:
		add(n.Key, n.Value)
		addComps(add, n.Generators)
	case *GeneratorExp:
		add(n.Elt)
		addComps(add, n.Generators)
	case *Yield:
		add(n.Value)
	case *YieldFrom:
		add(n.Value)
	case *Compare:
		add(n.Left)
		addExprs(add, n.Comparators)
	case *Call:
		add(n.Func)
		addExprs(add, n.Args)
		for _, k := range n.Keywords {
			add(k)
		}
	case *FormattedValue:
		add(n.Value, n.FormatSpec)
	case *JoinedStr:
		addExprs(add, n.Values)
	case *Attribute:
		add(n.Value)
	case *Subscript:
		add(n.Value, n.Slice)
	case *Starred:
		add(n.Value)
	case *List:
		addExprs(add, n.Elts)
	case *Tuple:
		addExprs(add, n.Elts)
	case *Slice:
		add(n.Lower, n.Upper, n.Step)
	}
}

// helperChildren adds the children of a module or of a helper node
// (*Arguments, *Arg, *Keyword, *WithItem, *ExceptHandler, *Comprehension).
func helperChildren(n any, add func(...any)) {
	switch n := n.(type) {
	case *Module:
		addStmts(add, n.Body)
	case *Arguments:
		for _, a := range append(append([]*Arg{}, n.Posonlyargs...), n.Args...) {
			add(a)
		}
		add(n.Vararg)
		for _, a := range n.Kwonlyargs {
			add(a)
		}
		addExprs(add, n.KwDefaults)
		add(n.Kwarg)
		addExprs(add, n.Defaults)
	case *Arg:
		add(n.Annotation)
	case *Keyword:
		add(n.Value)
	case *WithItem:
		add(n.ContextExpr, n.OptionalVars)
	case *ExceptHandler:
		add(n.Type)
		addStmts(add, n.Body)
	case *Comprehension:
		add(n.Target, n.Iter)
		addExprs(add, n.Ifs)
	}
}
func addStmts(add func(...any), ss []Stmt) {
	for _, s := range ss {
		add(s)
	}
}

func addExprs(add func(...any), es []Expr) {
	for _, e := range es {
		add(e)
	}
}

func addComps(add func(...any), cs []*Comprehension) {
	for _, c := range cs {
		add(c)
	}
}

// isNil reports whether x is absent: nil, or a nil pointer of one of the
// pointer types that stand in fields for an optional child.
func isNil(x any) bool {
	switch x := x.(type) {
	case nil:
		return true
	case *JoinedStr:
		return x == nil
	case *Arguments:
		return x == nil
	case *Arg:
		return x == nil
	}
	return false
}

// Spans lists the span of every node of the tree under n, helpers
// included, to be moved together: a line that recurs in a script (a
// generated sweep's) is parsed once and its tree moved to each of its
// lines by adding to every span's lines.
func Spans(n any) []*Node {
	var out []*Node
	Inspect(n, func(n any) bool {
		if p, ok := n.(interface{ node() *Node }); ok {
			out = append(out, p.node())
		}
		return true
	})
	return out
}
