package syntax

import "strconv"

// Pos is a position in source text as a user sees it: Line counts lines
// from 1 and Col counts characters (runes, not bytes) from 1. The zero Pos
// is not a valid position.
type Pos struct{ Line, Col int32 }

// IsValid reports whether p is a real position (line 1 or later).
func (p Pos) IsValid() bool { return p.Line > 0 }

// String returns "line:col".
func (p Pos) String() string {
	return strconv.Itoa(int(p.Line)) + ":" + strconv.Itoa(int(p.Col))
}

// Before reports whether p comes before q in the text.
func (p Pos) Before(q Pos) bool {
	return p.Line < q.Line || p.Line == q.Line && p.Col < q.Col
}

// Node holds the span of a syntax tree node. Every node struct embeds it.
// End is exclusive: the position just past the node's last character.
type Node struct{ Start, End Pos }

// Span returns the node's start and (exclusive) end.
func (n *Node) Span() (start, end Pos) { return n.Start, n.End }

// node is the node's span, to be moved (Spans).
func (n *Node) node() *Node { return n }
