package syntax

// maxDepth is how deep statements and expressions may nest in a file
// that CPython 3.12 compiles: a path down from the module through 3000
// of them compiles, one through 3001 raises RecursionError, wherever the
// path runs (an expression, a def, blocks, call arguments), as
// scripts/cpython_limits.py measured (testdata/cpython_limits.json).
// Keywords, arguments, comprehensions and the like do not count.
const maxDepth = 3000

// maxParseLevels bounds the parser's own recursion (an expression in an
// expression, a unary operator, ** and not): a line of a million '-'
// would otherwise take the parser's stack past what Go allows. CPython's
// parser stops at about as many levels, with MemoryError.
const maxParseLevels = 6000

// checkDepth returns CPython's RecursionError at the first node (in
// CPython's order) deeper than maxDepth, or nil.
func checkDepth(file string, m *Module) *Error {
	var deepest func(n any, depth int) any
	var pos Pos
	deepest = func(n any, depth int) any {
		switch n := n.(type) {
		case Stmt:
			pos, _ = n.Span()
			depth++
		case Expr:
			pos, _ = n.Span()
			depth++
		}
		if depth > maxDepth {
			return n
		}
		for _, c := range children(n) {
			if at := deepest(c, depth); at != nil {
				return at
			}
		}
		return nil
	}
	if deepest(m, 0) == nil {
		return nil
	}
	return &Error{Filename: file, Pos: pos, Kind: "RecursionError", Msg: "maximum recursion depth exceeded during compilation"}
}
