package syntax

import "fmt"

// The resolver fills the Scope of every function, lambda, class and
// comprehension, and reports the errors CPython finds after parsing, in
// CPython's order: those of __future__ imports, then those of its symbol
// table (in the order of the tree, then those of name analysis), then
// those of its compiler.

// symFlag records how a scope uses a name.
type symFlag uint16

const (
	symBound    symFlag = 1 << iota // assigned, imported, defined or deleted
	symParam                        // a parameter
	symGlobal                       // declared global
	symNonlocal                     // declared nonlocal
	symUse                          // read
	symAnnot                        // annotated (x: int)
	symCompIter                     // a comprehension's iteration variable
	symOrdered                      // in order
)

// scopeKind is the kind of a scope.
type scopeKind uint8

const (
	moduleScope scopeKind = iota
	functionScope
	classScope
)

// symScope is a scope while the resolver works on it.
type symScope struct {
	kind       scopeKind
	comp       string // for a comprehension, its kind as errors name it
	out        *Scope
	parent     *symScope
	flags      map[string]symFlag
	order      []string // names in the order the scope first meets them
	params     []string
	children   []*symScope
	directives map[string]Pos // the first global or nonlocal of each name
	iterDepth  int            // >0 inside a comprehension's iterable
}

func newSymScope(kind scopeKind, parent *symScope, out *Scope) *symScope {
	s := &symScope{kind: kind, parent: parent, out: out, flags: map[string]symFlag{}, directives: map[string]Pos{}}
	if parent != nil {
		parent.children = append(parent.children, s)
	}
	return s
}

// add records a use of name.
func (s *symScope) add(name string, f symFlag) {
	if s.flags[name]&symOrdered == 0 {
		s.order = append(s.order, name)
	}
	s.flags[name] |= f | symOrdered
}

// annotate records x: T without a value, which makes x local but, as no
// code touches x, does not give it a place in Locals (nor CPython's
// co_varnames) until something else does.
func (s *symScope) annotate(name string) {
	s.flags[name] |= symAnnot | symBound
}

// resolver walks a module.
type resolver struct {
	file        string
	err         *Error
	cur         *symScope
	annotations bool // from __future__ import annotations: annotations are not evaluated
}

// resolve fills the module's scopes or returns its first compile-time
// error.
func resolve(filename string, m *Module) (err error) {
	r := &resolver{file: filename}
	defer func() {
		if x := recover(); x != nil {
			if _, ok := x.(bailout); !ok {
				err = internalError(filename, m.Start, x)
				return
			}
			err = r.err
		}
	}()
	r.futures(m.Body)
	// CPython's compiler bounds the tree's depth before its symbol
	// table sees a name
	if e := checkDepth(filename, m); e != nil {
		return e
	}
	top := newSymScope(moduleScope, nil, nil)
	r.cur = top
	r.stmts(m.Body)
	r.analyze(top, nil, newNameSet())
	(&checker{r: r}).stmts(m.Body)
	return nil
}

// fail stops the resolver with a SyntaxError at pos.
func (r *resolver) fail(pos Pos, format string, args ...any) {
	r.err = &Error{Filename: r.file, Pos: pos, Kind: kindSyntax, Msg: fmt.Sprintf(format, args...)}
	panic(bailout{})
}

// FutureFeatures are the names from __future__ Python 3.11 knows (the
// evaluator's __future__ module declares them).
var FutureFeatures = map[string]bool{
	"nested_scopes": true, "generators": true, "division": true, "absolute_import": true,
	"with_statement": true, "print_function": true, "unicode_literals": true,
	"barry_as_FLUFL": true, "generator_stop": true, "annotations": true,
}

// futures checks from __future__ imports, which must come first (after
// a docstring).
func (r *resolver) futures(body []Stmt) {
	first := true
	for i, s := range body {
		imp, ok := s.(*ImportFrom)
		if ok && imp.Module == "__future__" && imp.Level == 0 {
			if !first {
				r.fail(imp.Start, "from __future__ imports must occur at the beginning of the file")
			}
			for _, a := range imp.Names {
				switch {
				case a.Name == "braces":
					r.fail(imp.Start, "not a chance")
				case !FutureFeatures[a.Name]:
					r.fail(imp.Start, "future feature %s is not defined", a.Name)
				case a.Name == "annotations":
					r.annotations = true
				}
			}
			continue
		}
		if i == 0 && isDocstring(s) {
			continue
		}
		first = false
	}
}

func isDocstring(s Stmt) bool {
	e, ok := s.(*ExprStmt)
	if !ok {
		return false
	}
	c, ok := e.Value.(*Constant)
	if !ok {
		return false
	}
	_, isStr := c.Value.(string)
	return isStr
}

func (r *resolver) stmts(body []Stmt) {
	for _, s := range body {
		r.stmt(s)
	}
}

func (r *resolver) exprs(es []Expr) {
	for _, e := range es {
		if e != nil {
			r.expr(e)
		}
	}
}

// stmt visits a statement in the order CPython's compiler evaluates it.
func (r *resolver) stmt(s Stmt) {
	switch s := s.(type) {
	case *FunctionDef:
		r.exprs(s.DecoratorList)
		r.function(s.Args, s.Returns, &s.Scope, func() { r.stmts(s.Body) })
		r.cur.add(s.Name, symBound)
	case *ClassDef:
		r.exprs(s.DecoratorList)
		r.exprs(s.Bases)
		for _, k := range s.Keywords {
			r.expr(k.Value)
		}
		s.Scope = &Scope{}
		outer := r.cur
		r.cur = newSymScope(classScope, outer, s.Scope)
		r.stmts(s.Body)
		r.cur = outer
		r.cur.add(s.Name, symBound)
	case *Return:
		r.exprs([]Expr{s.Value})
	case *Delete:
		r.exprs(s.Targets)
	case *Assign:
		r.expr(s.Value)
		r.exprs(s.Targets)
	case *AugAssign:
		if n, ok := s.Target.(*Name); ok {
			r.cur.add(n.Id, symUse)
		}
		r.expr(s.Target)
		r.expr(s.Value)
	case *AnnAssign:
		r.annAssign(s)
	case *For:
		r.expr(s.Iter)
		r.expr(s.Target)
		r.stmts(s.Body)
		r.stmts(s.Orelse)
	case *While:
		r.expr(s.Test)
		r.stmts(s.Body)
		r.stmts(s.Orelse)
	case *If:
		r.expr(s.Test)
		r.stmts(s.Body)
		r.stmts(s.Orelse)
	case *With:
		for _, it := range s.Items {
			r.exprs([]Expr{it.ContextExpr, it.OptionalVars})
		}
		r.stmts(s.Body)
	case *Raise:
		r.exprs([]Expr{s.Exc, s.Cause})
	case *Try:
		r.stmts(s.Body)
		r.stmts(s.Orelse) // compiled before the handlers, as CPython does
		for _, h := range s.Handlers {
			r.exprs([]Expr{h.Type})
			if h.Name != "" {
				r.cur.add(h.Name, symBound)
			}
			r.stmts(h.Body)
		}
		r.stmts(s.Finalbody)
	case *Assert:
		r.exprs([]Expr{s.Test, s.Msg})
	case *Import:
		for _, a := range s.Names {
			r.cur.add(importedName(a), symBound)
		}
	case *ImportFrom:
		for _, a := range s.Names {
			if a.Name == "*" {
				if r.cur.kind != moduleScope {
					r.fail(a.Start, "import * only allowed at module level")
				}
				continue
			}
			r.cur.add(importedName(a), symBound)
		}
	case *Global:
		r.declare(s.Node, s.Names, symGlobal, "global")
	case *Nonlocal:
		r.declare(s.Node, s.Names, symNonlocal, "nonlocal")
	case *ExprStmt:
		r.expr(s.Value)
	}
}

// importedName is the name an import binds: the "as" name, or the first
// part of a dotted module name.
func importedName(a *Alias) string {
	if a.Asname != "" {
		return a.Asname
	}
	for i := 0; i < len(a.Name); i++ {
		if a.Name[i] == '.' {
			return a.Name[:i]
		}
	}
	return a.Name
}

// declare records a global or nonlocal statement.
func (r *resolver) declare(n Node, names []string, f symFlag, word string) {
	for _, name := range names {
		cur := r.cur.flags[name]
		switch {
		case cur&symParam != 0:
			r.fail(n.Start, "name '%s' is parameter and %s", name, word)
		case cur&symUse != 0:
			r.fail(n.Start, "name '%s' is used prior to %s declaration", name, word)
		case cur&symAnnot != 0:
			r.fail(n.Start, "annotated name '%s' can't be %s", name, word)
		case cur&symBound != 0:
			r.fail(n.Start, "name '%s' is assigned to before %s declaration", name, word)
		}
		r.cur.add(name, f)
		if _, ok := r.cur.directives[name]; !ok {
			r.cur.directives[name] = n.Start
		}
	}
}

// annAssign records target: annotation = value.
func (r *resolver) annAssign(s *AnnAssign) {
	s.Deferred = r.annotations
	if n, ok := s.Target.(*Name); ok {
		cur := r.cur.flags[n.Id]
		if cur&(symGlobal|symNonlocal) != 0 && r.cur.kind != moduleScope && s.Simple {
			word := "nonlocal"
			if cur&symGlobal != 0 {
				word = "global"
			}
			r.fail(s.Start, "annotated name '%s' can't be %s", n.Id, word)
		}
		if s.Value != nil {
			r.expr(s.Value)
		}
		switch {
		case s.Simple && s.Value != nil:
			r.cur.add(n.Id, symAnnot|symBound)
		case s.Simple:
			r.cur.annotate(n.Id)
		case s.Value != nil:
			r.cur.add(n.Id, symBound)
		}
	} else {
		r.exprs([]Expr{s.Value})
		r.expr(s.Target)
	}
	r.annotation(s.Annotation)
}

// annotation visits an annotation, which from __future__ import
// annotations leaves unevaluated.
func (r *resolver) annotation(e Expr) {
	if e != nil && !r.annotations {
		r.expr(e)
	}
}

// function visits a def's or lambda's defaults and annotations in the
// enclosing scope, then body in a new scope whose Scope it stores in out.
func (r *resolver) function(a *Arguments, returns Expr, out **Scope, body func()) {
	r.exprs(a.Defaults)
	r.exprs(a.KwDefaults)
	for _, arg := range allArgs(a) {
		r.annotation(arg.Annotation)
	}
	r.annotation(returns)
	*out = &Scope{}
	outer := r.cur
	r.cur = newSymScope(functionScope, outer, *out)
	for _, arg := range allArgs(a) {
		if r.cur.flags[arg.Arg]&symParam != 0 {
			r.fail(arg.Start, "duplicate argument '%s' in function definition", arg.Arg)
		}
		r.cur.add(arg.Arg, symParam|symBound)
		r.cur.params = append(r.cur.params, arg.Arg)
	}
	body()
	r.cur = outer
}

// allArgs lists the parameters in co_varnames order: positional-only,
// positional, keyword-only, *args, **kwargs.
func allArgs(a *Arguments) []*Arg {
	args := append(append(append([]*Arg{}, a.Posonlyargs...), a.Args...), a.Kwonlyargs...)
	if a.Vararg != nil {
		args = append(args, a.Vararg)
	}
	if a.Kwarg != nil {
		args = append(args, a.Kwarg)
	}
	return args
}

// expr visits an expression in evaluation order.
func (r *resolver) expr(e Expr) {
	switch e := e.(type) {
	case *Name:
		if e.Ctx == Load {
			r.cur.add(e.Id, symUse)
			if e.Id == "super" && r.cur.kind == functionScope {
				r.cur.add("__class__", symUse) // super() finds the class through this cell
			}
		} else {
			r.cur.add(e.Id, symBound)
		}
	case *NamedExpr:
		r.namedExpr(e)
	case *Lambda:
		r.function(e.Args, nil, &e.Scope, func() { r.expr(e.Body) })
	case *ListComp:
		r.comprehension("list comprehension", e.Generators, &e.Scope, e.Elt)
	case *SetComp:
		r.comprehension("set comprehension", e.Generators, &e.Scope, e.Elt)
	case *DictComp:
		r.comprehension("dict comprehension", e.Generators, &e.Scope, e.Key, e.Value)
	case *GeneratorExp:
		r.comprehension("generator expression", e.Generators, &e.Scope, e.Elt)
		e.Scope.HasYield = true
	case *Yield, *YieldFrom:
		if r.cur.comp != "" {
			r.fail(exprStart(e), "'yield' inside %s", r.cur.comp)
		}
		if r.cur.out != nil {
			r.cur.out.HasYield = true
		}
		for _, c := range children(e) {
			r.expr(c.(Expr))
		}
	default:
		for _, c := range children(e) {
			if k, ok := c.(*Keyword); ok {
				r.expr(k.Value)
			} else {
				r.expr(c.(Expr))
			}
		}
	}
}

// namedExpr visits target := value. In a comprehension the target is
// bound in the nearest enclosing function or module scope.
func (r *resolver) namedExpr(e *NamedExpr) {
	if r.cur.iterDepth > 0 {
		r.fail(e.Start, "assignment expression cannot be used in a comprehension iterable expression")
	}
	r.expr(e.Value)
	name := e.Target.Id
	if r.cur.comp == "" {
		r.cur.add(name, symBound)
		return
	}
	for s := r.cur; s != nil; s = s.parent {
		switch {
		case s.comp != "":
			if s.flags[name]&symCompIter != 0 {
				r.fail(e.Start, "assignment expression cannot rebind comprehension iteration variable '%s'", name)
			}
			continue
		case s.kind == functionScope:
			if s.flags[name]&symGlobal != 0 {
				r.cur.add(name, symGlobal)
			} else {
				r.cur.add(name, symNonlocal)
			}
			s.add(name, symBound)
		case s.kind == moduleScope:
			r.cur.add(name, symGlobal)
			s.add(name, symGlobal)
		default:
			r.fail(e.Start, "assignment expression within a comprehension cannot be used in a class body")
		}
		return
	}
}

// comprehension visits a comprehension: its first iterable in the
// enclosing scope, the rest in a scope of its own with parameter ".0".
func (r *resolver) comprehension(kind string, gens []*Comprehension, out **Scope, elts ...Expr) {
	r.cur.iterDepth++
	r.expr(gens[0].Iter)
	r.cur.iterDepth--
	*out = &Scope{}
	outer := r.cur
	r.cur = newSymScope(functionScope, outer, *out)
	r.cur.comp = kind
	r.cur.add(".0", symParam|symBound)
	r.cur.params = []string{".0"}
	for i, g := range gens {
		if i > 0 {
			r.cur.iterDepth++
			r.expr(g.Iter)
			r.cur.iterDepth--
		}
		r.expr(g.Target)
		markCompIter(r.cur, g.Target)
		r.exprs(g.Ifs)
	}
	r.exprs(elts)
	r.cur = outer
}

// markCompIter flags the names a comprehension's for clause binds.
func markCompIter(s *symScope, target Expr) {
	switch t := target.(type) {
	case *Name:
		s.flags[t.Id] |= symCompIter
	case *Starred:
		markCompIter(s, t.Value)
	case *Tuple:
		for _, x := range t.Elts {
			markCompIter(s, x)
		}
	case *List:
		for _, x := range t.Elts {
			markCompIter(s, x)
		}
	}
}
