package syntax

import "strconv"

// BinOpKind is a binary operator (also the operator of an AugAssign).
// The zero BinOpKind is no operator.
type BinOpKind uint8

// The binary operators, as CPython's ast names them.
const (
	Add      BinOpKind = iota + 1 // +
	Sub                           // -
	Mult                          // *
	MatMult                       // @
	Div                           // /
	Mod                           // %
	Pow                           // **
	LShift                        // <<
	RShift                        // >>
	BitOr                         // |
	BitXor                        // ^
	BitAnd                        // &
	FloorDiv                      // //
)

// UnaryOpKind is a unary operator.
type UnaryOpKind uint8

// The unary operators.
const (
	Invert UnaryOpKind = iota + 1 // ~
	Not                           // not
	UAdd                          // +
	USub                          // -
)

// CmpOpKind is a comparison operator.
type CmpOpKind uint8

// The comparison operators.
const (
	Eq    CmpOpKind = iota + 1 // ==
	NotEq                      // !=
	Lt                         // <
	LtE                        // <=
	Gt                         // >
	GtE                        // >=
	Is                         // is
	IsNot                      // is not
	In                         // in
	NotIn                      // not in
)

// BoolOpKind is and or or.
type BoolOpKind uint8

// The boolean operators.
const (
	And BoolOpKind = iota + 1 // and
	Or                        // or
)

// Ctx says whether an expression is read, assigned or deleted.
type Ctx uint8

// The expression contexts.
const (
	Load  Ctx = iota + 1 // read
	Store                // assigned to
	Del                  // deleted
)

// opName is one operator's CPython class name and its spelling.
type opName struct{ class, symbol string }

var binOps = [...]opName{
	Add: {"Add", "+"}, Sub: {"Sub", "-"}, Mult: {"Mult", "*"}, MatMult: {"MatMult", "@"},
	Div: {"Div", "/"}, Mod: {"Mod", "%"}, Pow: {"Pow", "**"}, LShift: {"LShift", "<<"},
	RShift: {"RShift", ">>"}, BitOr: {"BitOr", "|"}, BitXor: {"BitXor", "^"},
	BitAnd: {"BitAnd", "&"}, FloorDiv: {"FloorDiv", "//"},
}

var unaryOps = [...]opName{
	Invert: {"Invert", "~"}, Not: {"Not", "not"}, UAdd: {"UAdd", "+"}, USub: {"USub", "-"},
}

var cmpOps = [...]opName{
	Eq: {"Eq", "=="}, NotEq: {"NotEq", "!="}, Lt: {"Lt", "<"}, LtE: {"LtE", "<="},
	Gt: {"Gt", ">"}, GtE: {"GtE", ">="}, Is: {"Is", "is"}, IsNot: {"IsNot", "is not"},
	In: {"In", "in"}, NotIn: {"NotIn", "not in"},
}

var boolOps = [...]opName{And: {"And", "and"}, Or: {"Or", "or"}}

var ctxNames = [...]opName{Load: {"Load", ""}, Store: {"Store", ""}, Del: {"Del", ""}}

// lookup returns names[i], or a placeholder naming typ for an index that
// is no operator (such as the zero value).
func lookup(names []opName, i uint8, typ string) opName {
	if int(i) < len(names) && names[i].class != "" {
		return names[i]
	}
	s := typ + "(" + strconv.Itoa(int(i)) + ")"
	return opName{s, s}
}

// String returns CPython's class name for the operator, such as "Add".
func (k BinOpKind) String() string { return lookup(binOps[:], uint8(k), "BinOpKind").class }

// Symbol returns the operator as written, such as "+".
func (k BinOpKind) Symbol() string { return lookup(binOps[:], uint8(k), "BinOpKind").symbol }

// String returns CPython's class name for the operator, such as "USub".
func (k UnaryOpKind) String() string { return lookup(unaryOps[:], uint8(k), "UnaryOpKind").class }

// Symbol returns the operator as written, such as "-" or "not".
func (k UnaryOpKind) Symbol() string { return lookup(unaryOps[:], uint8(k), "UnaryOpKind").symbol }

// String returns CPython's class name for the operator, such as "NotIn".
func (k CmpOpKind) String() string { return lookup(cmpOps[:], uint8(k), "CmpOpKind").class }

// Symbol returns the operator as written, such as "not in".
func (k CmpOpKind) Symbol() string { return lookup(cmpOps[:], uint8(k), "CmpOpKind").symbol }

// String returns CPython's class name for the operator, "And" or "Or".
func (k BoolOpKind) String() string { return lookup(boolOps[:], uint8(k), "BoolOpKind").class }

// Symbol returns the operator as written, "and" or "or".
func (k BoolOpKind) Symbol() string { return lookup(boolOps[:], uint8(k), "BoolOpKind").symbol }

// String returns CPython's class name for the context, such as "Store".
func (c Ctx) String() string { return lookup(ctxNames[:], uint8(c), "Ctx").class }
