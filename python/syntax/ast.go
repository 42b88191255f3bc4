package syntax

// The node types below are named as CPython 3.11's ast classes, with
// CPython's fields in CPython's order, so a reader who knows Python's ast
// module finds their way. Fields that CPython leaves as None are nil here.

// A Stmt is a statement node.
type Stmt interface {
	Span() (start, end Pos)
	stmtNode()
}

// An Expr is an expression node.
type Expr interface {
	Span() (start, end Pos)
	exprNode()
}

// Module is a parsed file, or one input at the prompt.
type Module struct {
	Node
	Body []Stmt
}

// Statements.
type (
	// FunctionDef is a def statement.
	FunctionDef struct {
		Node
		Name          string
		Args          *Arguments
		Body          []Stmt
		DecoratorList []Expr
		Returns       Expr
		Scope         *Scope
	}

	// ClassDef is a class statement.
	ClassDef struct {
		Node
		Name          string
		Bases         []Expr
		Keywords      []*Keyword
		Body          []Stmt
		DecoratorList []Expr
		Scope         *Scope
	}

	// Return is a return statement; Value is nil for a bare return.
	Return struct {
		Node
		Value Expr
	}

	// Delete is a del statement.
	Delete struct {
		Node
		Targets []Expr
	}

	// Assign is an assignment, Targets[0] = Targets[1] = ... = Value.
	Assign struct {
		Node
		Targets []Expr
		Value   Expr
	}

	// AugAssign is an augmented assignment such as x += 1.
	AugAssign struct {
		Node
		Target Expr
		Op     BinOpKind
		Value  Expr
	}

	// AnnAssign is an annotated assignment; Value is nil without "= value".
	// Simple is true when Target is a plain name not in parentheses.
	// Deferred is set by Resolve under from __future__ import annotations:
	// the annotation is kept as its text, not evaluated.
	AnnAssign struct {
		Node
		Target     Expr
		Annotation Expr
		Value      Expr
		Simple     bool
		Deferred   bool
	}

	// For is a for loop; Orelse is its else block.
	For struct {
		Node
		Target Expr
		Iter   Expr
		Body   []Stmt
		Orelse []Stmt
	}

	// While is a while loop; Orelse is its else block.
	While struct {
		Node
		Test   Expr
		Body   []Stmt
		Orelse []Stmt
	}

	// If is an if statement; an elif is an If alone in Orelse.
	If struct {
		Node
		Test   Expr
		Body   []Stmt
		Orelse []Stmt
	}

	// With is a with statement.
	With struct {
		Node
		Items []*WithItem
		Body  []Stmt
	}

	// Raise is a raise statement; Exc and Cause may be nil.
	Raise struct {
		Node
		Exc   Expr
		Cause Expr
	}

	// Try is a try statement.
	Try struct {
		Node
		Body      []Stmt
		Handlers  []*ExceptHandler
		Orelse    []Stmt
		Finalbody []Stmt
	}

	// Assert is an assert statement; Msg may be nil.
	Assert struct {
		Node
		Test Expr
		Msg  Expr
	}

	// Import is an import statement.
	Import struct {
		Node
		Names []*Alias
	}

	// ImportFrom is a from ... import statement; Level counts the leading
	// dots and Module is "" for "from . import x".
	ImportFrom struct {
		Node
		Module string
		Names  []*Alias
		Level  int
	}

	// Global is a global declaration.
	Global struct {
		Node
		Names []string
	}

	// Nonlocal is a nonlocal declaration.
	Nonlocal struct {
		Node
		Names []string
	}

	// ExprStmt is an expression used as a statement (CPython's ast.Expr).
	ExprStmt struct {
		Node
		Value Expr
	}

	// Pass is a pass statement.
	Pass struct{ Node }

	// Break is a break statement.
	Break struct{ Node }

	// Continue is a continue statement.
	Continue struct{ Node }

	// Command is a line in the tool's own short command form, which is not
	// Python: Options.IsCommand chose it, and Text is the line without its
	// indentation and newline.
	Command struct {
		Node
		Text string
	}
)

// Expressions.
type (
	// BoolOp is a chain of and, or of or: a and b and c has three Values.
	BoolOp struct {
		Node
		Op     BoolOpKind
		Values []Expr
	}

	// NamedExpr is an assignment expression, Target := Value.
	NamedExpr struct {
		Node
		Target *Name
		Value  Expr
	}

	// BinOp is a binary operation.
	BinOp struct {
		Node
		Left  Expr
		Op    BinOpKind
		Right Expr
	}

	// UnaryOp is a unary operation.
	UnaryOp struct {
		Node
		Op      UnaryOpKind
		Operand Expr
	}

	// Lambda is a lambda expression.
	Lambda struct {
		Node
		Args  *Arguments
		Body  Expr
		Scope *Scope
	}

	// IfExp is a conditional expression, Body if Test else Orelse.
	IfExp struct {
		Node
		Test   Expr
		Body   Expr
		Orelse Expr
	}

	// Dict is a dict display; a nil key stands for **Values[i].
	Dict struct {
		Node
		Keys   []Expr
		Values []Expr
	}

	// Set is a set display.
	Set struct {
		Node
		Elts []Expr
	}

	// ListComp is a list comprehension.
	ListComp struct {
		Node
		Elt        Expr
		Generators []*Comprehension
		Scope      *Scope
	}

	// SetComp is a set comprehension.
	SetComp struct {
		Node
		Elt        Expr
		Generators []*Comprehension
		Scope      *Scope
	}

	// DictComp is a dict comprehension.
	DictComp struct {
		Node
		Key        Expr
		Value      Expr
		Generators []*Comprehension
		Scope      *Scope
	}

	// GeneratorExp is a generator expression.
	GeneratorExp struct {
		Node
		Elt        Expr
		Generators []*Comprehension
		Scope      *Scope
	}

	// Yield is a yield expression; Value is nil for a bare yield.
	Yield struct {
		Node
		Value Expr
	}

	// YieldFrom is a yield from expression.
	YieldFrom struct {
		Node
		Value Expr
	}

	// Compare is a comparison chain: Left Ops[0] Comparators[0] Ops[1] ...
	Compare struct {
		Node
		Left        Expr
		Ops         []CmpOpKind
		Comparators []Expr
	}

	// Call is a call; a *x argument is a Starred in Args, a **x argument a
	// Keyword with Arg "".
	Call struct {
		Node
		Func     Expr
		Args     []Expr
		Keywords []*Keyword
	}

	// FormattedValue is one replacement field of an f-string. Conversion
	// is -1 without one, else 's', 'r' or 'a'; FormatSpec may be nil.
	FormattedValue struct {
		Node
		Value      Expr
		Conversion int
		FormatSpec *JoinedStr
	}

	// JoinedStr is an f-string: Constant strings and FormattedValues.
	JoinedStr struct {
		Node
		Values []Expr
	}

	// Constant is a literal. Value is nil (None), bool, int64, *big.Int
	// (only for an int that does not fit int64), float64, complex128,
	// string, Bytes or Ellipsis. Kind is "u" for a u-prefixed string.
	Constant struct {
		Node
		Value any
		Kind  string
	}

	// Attribute is Value.Attr.
	Attribute struct {
		Node
		Value Expr
		Attr  string
		Ctx   Ctx
	}

	// Subscript is Value[Slice]; x[a:b, c] has a Tuple as Slice.
	Subscript struct {
		Node
		Value Expr
		Slice Expr
		Ctx   Ctx
	}

	// Starred is *Value, in a call, a display or an assignment target.
	Starred struct {
		Node
		Value Expr
		Ctx   Ctx
	}

	// Name is an identifier.
	Name struct {
		Node
		Id  string
		Ctx Ctx
	}

	// List is a list display or target.
	List struct {
		Node
		Elts []Expr
		Ctx  Ctx
	}

	// Tuple is a tuple display or target.
	Tuple struct {
		Node
		Elts []Expr
		Ctx  Ctx
	}

	// Slice is lower:upper:step inside a subscript; any part may be nil.
	Slice struct {
		Node
		Lower Expr
		Upper Expr
		Step  Expr
	}
)

// Helpers: parts of statements and expressions that are neither.
type (
	// Arguments is a parameter list. KwDefaults[i] is Kwonlyargs[i]'s
	// default, nil where it has none; Defaults are those of the last
	// len(Defaults) of Posonlyargs followed by Args.
	Arguments struct {
		Posonlyargs []*Arg
		Args        []*Arg
		Vararg      *Arg
		Kwonlyargs  []*Arg
		KwDefaults  []Expr
		Kwarg       *Arg
		Defaults    []Expr
	}

	// Arg is one parameter; Annotation may be nil.
	Arg struct {
		Node
		Arg        string
		Annotation Expr
	}

	// Keyword is a keyword argument Arg=Value, or **Value when Arg is "".
	Keyword struct {
		Node
		Arg   string
		Value Expr
	}

	// Alias is one name of an import, with its "as" name or "".
	Alias struct {
		Node
		Name   string
		Asname string
	}

	// WithItem is one context manager of a with statement;
	// OptionalVars is the "as" target or nil.
	WithItem struct {
		ContextExpr  Expr
		OptionalVars Expr
	}

	// ExceptHandler is one except clause; Type is nil for a bare except
	// and Name is "" without "as name".
	ExceptHandler struct {
		Node
		Type Expr
		Name string
		Body []Stmt
	}

	// Comprehension is one for clause of a comprehension, with its ifs.
	Comprehension struct {
		Target Expr
		Iter   Expr
		Ifs    []Expr
	}
)

// Bytes is the value of a bytes literal.
type Bytes []byte

// Ellipsis is the value of the literal "...".
type Ellipsis struct{}

func (*FunctionDef) stmtNode() {}
func (*ClassDef) stmtNode()    {}
func (*Return) stmtNode()      {}
func (*Delete) stmtNode()      {}
func (*Assign) stmtNode()      {}
func (*AugAssign) stmtNode()   {}
func (*AnnAssign) stmtNode()   {}
func (*For) stmtNode()         {}
func (*While) stmtNode()       {}
func (*If) stmtNode()          {}
func (*With) stmtNode()        {}
func (*Raise) stmtNode()       {}
func (*Try) stmtNode()         {}
func (*Assert) stmtNode()      {}
func (*Import) stmtNode()      {}
func (*ImportFrom) stmtNode()  {}
func (*Global) stmtNode()      {}
func (*Nonlocal) stmtNode()    {}
func (*ExprStmt) stmtNode()    {}
func (*Pass) stmtNode()        {}
func (*Break) stmtNode()       {}
func (*Continue) stmtNode()    {}
func (*Command) stmtNode()     {}

func (*BoolOp) exprNode()         {}
func (*NamedExpr) exprNode()      {}
func (*BinOp) exprNode()          {}
func (*UnaryOp) exprNode()        {}
func (*Lambda) exprNode()         {}
func (*IfExp) exprNode()          {}
func (*Dict) exprNode()           {}
func (*Set) exprNode()            {}
func (*ListComp) exprNode()       {}
func (*SetComp) exprNode()        {}
func (*DictComp) exprNode()       {}
func (*GeneratorExp) exprNode()   {}
func (*Yield) exprNode()          {}
func (*YieldFrom) exprNode()      {}
func (*Compare) exprNode()        {}
func (*Call) exprNode()           {}
func (*FormattedValue) exprNode() {}
func (*JoinedStr) exprNode()      {}
func (*Constant) exprNode()       {}
func (*Attribute) exprNode()      {}
func (*Subscript) exprNode()      {}
func (*Starred) exprNode()        {}
func (*Name) exprNode()           {}
func (*List) exprNode()           {}
func (*Tuple) exprNode()          {}
func (*Slice) exprNode()          {}
