package syntax

// Scope lists how the names of one function, lambda, class body or
// comprehension are bound, as CPython's symbol table decides (filled by
// the resolver that ParseFile and ParseInteractive run).
//
// Rules, as in CPython 3.11:
//
//   - A name is local to a function scope if the scope binds it anywhere
//     (assignment, augmented or annotated assignment target, for target,
//     with ... as, except ... as, import, def, class, del, :=, parameter)
//     and does not declare it global or nonlocal. A use of a local before
//     its binding is still local (UnboundLocalError at run time).
//   - Locals lists the scope's local names in CPython's co_varnames order:
//     the parameters first (positional-only, positional, keyword-only,
//     then *args, then **kwargs), then the other local names in the order
//     the compiler first meets them (evaluation order: in x = y the value
//     y before the target x). Unlike co_varnames, Locals also holds the
//     locals that are cells (CPython puts a non-parameter cell only in
//     co_cellvars); Cells says which they are.
//   - Cells lists the locals that an inner function, lambda or
//     comprehension reads or writes as a free variable, in Locals order.
//     A class body that holds a method using super or __class__ has the
//     implicit cell "__class__", as CPython's does.
//   - Free lists the names the scope takes from an enclosing function
//     scope (including names it only passes through to an inner scope),
//     in order of first appearance. Class bodies are never enclosing
//     scopes: a method does not see the class's names.
//   - Globals and Nonlocals list the names declared global and nonlocal,
//     in order of declaration. A name a function neither binds nor takes
//     from an enclosing function is global-or-builtin at run time.
//   - A class body's Locals are the names it binds, which go to the class
//     namespace; a name it reads that is free in it is looked up in the
//     class namespace first, then in the enclosing function's cell.
//   - A comprehension is a function scope of its own whose single
//     parameter ".0" is the iterator of its first for clause (that
//     iterable is evaluated in the enclosing scope). A := inside it binds
//     in the nearest enclosing function or module scope.
//   - HasYield is true for a function or lambda containing yield or
//     yield from (a generator), and for every generator expression.
type Scope struct {
	Locals    []string
	Cells     []string
	Free      []string
	Globals   []string
	Nonlocals []string
	HasYield  bool
}
