package allocator

import (
	"errors"
	"fmt"
)

// blockIndex is the ordered set behind a BlockPool (PyTorch's
// std::set<Block*, Comparison>): entries by (size, address), as a B+ tree
// whose nodes hold up to nodeCap entries. A pool of up to nodeCap cached
// blocks is a single leaf, one sorted array; a larger one costs a descent
// that grows with the logarithm of its size, and no insert or removal
// moves more than one node's entries.
type blockIndex struct {
	root *indexNode // nil until the first insert
	n    int
}

// nodeCap is the most entries of a leaf and children of an inner node:
// 4 × 4 × 4, the shape searchLeaf is written for.
const nodeCap = 64

// indexNode is a leaf (kids nil), whose ents are cached blocks in order
// and past n noEntry (made by newLeaf), or an inner node, whose kids[i] holds keys at least ents[i] (for i > 0)
// and below ents[i+1]. Separators are lower bounds only, so removing
// entries never updates them.
type indexNode struct {
	ents       [nodeCap]poolEntry
	kids       *[nodeCap]*indexNode
	n          int
	parent     *indexNode
	prev, next *indexNode // a leaf's neighbours, in order
}

// newLeaf is an empty leaf.
func newLeaf() *indexNode {
	x := &indexNode{}
	x.clearFrom(0)
	return x
}

// clearFrom makes a leaf's entries from i on unused.
func (x *indexNode) clearFrom(i int) {
	for k := i; k < nodeCap; k++ {
		x.ents[k] = noEntry
	}
}

// poolCursor is a position in a blockIndex: an entry, or the end.
type poolCursor struct {
	leaf *indexNode // nil: the block is in no pool
	i    int
}

// ok reports whether the cursor is at an entry (not at the end).
func (c poolCursor) ok() bool { return c.leaf != nil && c.i < c.leaf.n }

func (c poolCursor) entry() *poolEntry { return &c.leaf.ents[c.i] }

// next moves to the following entry, or the end.
func (c *poolCursor) next() {
	c.i++
	if c.i == c.leaf.n && c.leaf.next != nil {
		c.leaf, c.i = c.leaf.next, 0
	}
}

// prev moves to the entry before; false (and no move) at the first.
func (c *poolCursor) prev() bool {
	switch {
	case c.leaf == nil:
		return false
	case c.i > 0:
		c.i--
	case c.leaf.prev == nil:
		return false
	default:
		c.leaf = c.leaf.prev
		c.i = c.leaf.n - 1
	}
	return true
}

// keyLess reports whether (size, ptr) orders before e's key.
func keyLess(size, ptr uint64, e *poolEntry) bool {
	return size < e.size || (size == e.size && ptr < e.ptr)
}

// kidFor is the child of the inner node x whose range holds (size, ptr).
// It inlines into seek, which then calls nothing and keeps its key in
// registers.
func (x *indexNode) kidFor(size, ptr uint64) *indexNode {
	lo, hi := 1, x.n // the first separator above the key is in [lo, hi]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keyLess(size, ptr, &x.ents[m]) {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return x.kids[lo-1]
}

// seek is where (size, ptr) belongs: the leaf whose range holds it and
// the index of that leaf's first entry at or above it, the leaf's count
// when none is. With toEntry, a place past a leaf's last entry moves to
// the next leaf's first, so that the cursor is at an entry or the end.
// An empty index gives a cursor without a leaf.
//
// The search in the leaf has no branch on the data: three steps each
// compare the key with entries a quarter of the range apart, whose loads
// do not wait on one another, and keep the quarter the count picks (64
// entries, 16, 4); each comparison of (size, ptr) keys is one 128-bit
// subtraction's borrow. The entries past the count are sentinels above
// every key (see noEntry), so the shape is the same for any number of
// entries; nodeCap is 4 × 4 × 4. The descent and the search are one
// function, one call on every malloc and free.
func (ix *blockIndex) seek(size, ptr uint64, toEntry bool) poolCursor {
	x := ix.root
	if x == nil {
		return poolCursor{}
	}
	for x.kids != nil {
		x = x.kidFor(size, ptr)
	}
	// Each step looks at a fixed-size view of the part the last one
	// kept, so every entry's offset is a constant; the masks change no
	// index (i is a multiple of 16 up to 48, j of 4 up to 12) and spare
	// the views' length checks.
	e := &x.ents
	i := 16 * (e[16].below(size, ptr) + e[32].below(size, ptr) + e[48].below(size, ptr))
	q := (*[16]poolEntry)(e[i&48:])
	i += 4 * (q[4].below(size, ptr) + q[8].below(size, ptr) + q[12].below(size, ptr))
	r := (*[4]poolEntry)(e[i&60:])
	i += r[0].below(size, ptr) + r[1].below(size, ptr) + r[2].below(size, ptr) + r[3].below(size, ptr)
	if i == x.n && toEntry && x.next != nil { // the rare test first
		return poolCursor{x.next, 0}
	}
	return poolCursor{x, i}
}

// lowerBound is the first entry at or above (size, ptr), or the end.
func (ix *blockIndex) lowerBound(size, ptr uint64) poolCursor { return ix.seek(size, ptr, true) }

// first is the smallest entry, or the end.
func (ix *blockIndex) first() poolCursor { return ix.lowerBound(0, 0) }

// firstLeaf is the leaf of the smallest entries, nil for an empty index.
func (ix *blockIndex) firstLeaf() *indexNode {
	x := ix.root
	for x != nil && x.kids != nil {
		x = x.kids[0]
	}
	return x
}

// find is the cursor at e's entry (same key and block), or one whose
// leaf is nil.
func (ix *blockIndex) find(e poolEntry) poolCursor {
	c := ix.lowerBound(e.size, e.ptr)
	if c.ok() && *c.entry() == e {
		return c
	}
	return poolCursor{}
}

// locate is the cursor at the entry of key (size, ptr), which the index
// holds: find without its checks, for a block known to be cached.
func (ix *blockIndex) locate(size, ptr uint64) poolCursor { return ix.seek(size, ptr, false) }

// insert adds e, whose key is not in the index.
func (ix *blockIndex) insert(e poolEntry) {
	if ix.root == nil {
		ix.root = newLeaf()
	}
	c := ix.seek(e.size, e.ptr, false)
	x, i := c.leaf, c.i
	if x.n == nodeCap {
		right := ix.splitLeaf(x)
		if i > x.n {
			x, i = right, i-x.n
		}
	}
	// A leaf is a few dozen entries: moving them by hand costs less than
	// a call to memmove. The slice's length bounds the loop, which spares
	// the bounds checks.
	w := x.ents[i : x.n+1]
	for k := len(w) - 1; k > 0; k-- {
		w[k] = w[k-1]
	}
	w[0] = e
	x.n++
	ix.n++
}

// rekey gives the entry at c the new key of e. An entry that stays
// between two others of its leaf (or in a tree of one leaf) walks there,
// as blocks mostly move a few places; one that leaves goes through the
// tree.
func (ix *blockIndex) rekey(c poolCursor, e poolEntry) {
	x, i := c.leaf, c.i
	size, ptr := e.size, e.ptr
	if x.ents[i].below(size, ptr) == 1 {
		// Up, over the leaf's entries after i. The walks go through a
		// slice whose length bounds them, which spares the bounds checks.
		w := x.ents[i:x.n]
		k := 1
		for k < len(w) && (w[k].size < size || w[k].size == size && w[k].ptr < ptr) {
			w[k-1] = w[k]
			k++
		}
		i += k - 1
	} else {
		w := x.ents[:i+1]
		for i > 0 && keyLess(size, ptr, &w[i-1]) {
			w[i] = w[i-1]
			i--
		}
	}
	x.ents[i] = e
	if x != ix.root && (i == 0 || i == x.n-1) {
		ix.removeAt(poolCursor{x, i}) // its bounds are the parent's to say
		ix.insert(e)
	}
}

// splitLeaf moves the upper half of the full leaf x to a new leaf after
// it and returns that leaf.
func (ix *blockIndex) splitLeaf(x *indexNode) *indexNode {
	right := newLeaf()
	right.prev, right.next = x, x.next
	right.n = copy(right.ents[:], x.ents[nodeCap/2:x.n])
	x.n = nodeCap / 2
	x.clearFrom(x.n)
	if x.next != nil {
		x.next.prev = right
	}
	x.next = right
	ix.addKid(x, right, right.ents[0])
	return right
}

// addKid places right after left in left's parent, with sep as right's
// lower bound, splitting parents that are full.
func (ix *blockIndex) addKid(left, right *indexNode, sep poolEntry) {
	p := left.parent
	if p == nil {
		p = &indexNode{kids: new([nodeCap]*indexNode), n: 2}
		p.kids[0], p.kids[1] = left, right
		p.ents[1] = sep
		left.parent, right.parent = p, p
		ix.root = p
		return
	}
	j := p.kidIndex(left) + 1
	if p.n == nodeCap {
		h := nodeCap / 2
		pr := &indexNode{kids: new([nodeCap]*indexNode), n: nodeCap - h}
		copy(pr.ents[:], p.ents[h:])
		copy(pr.kids[:], p.kids[h:])
		for _, k := range pr.kids[:pr.n] {
			k.parent = pr
		}
		p.n = h
		ix.addKid(p, pr, pr.ents[0])
		if j > h {
			p, j = pr, j-h
		}
	}
	copy(p.ents[j+1:p.n+1], p.ents[j:p.n])
	copy(p.kids[j+1:p.n+1], p.kids[j:p.n])
	p.ents[j], p.kids[j] = sep, right
	p.n++
	right.parent = p
}

// kidIndex is k's index among x's children.
func (x *indexNode) kidIndex(k *indexNode) int {
	for j, c := range x.kids[:x.n] {
		if c == k {
			return j
		}
	}
	panic("allocator: index node is not its parent's child") // a broken tree, not bad input
}

// removeAt drops the entry at c.
func (ix *blockIndex) removeAt(c poolCursor) {
	x := c.leaf
	w := x.ents[c.i:x.n]
	for k := 1; k < len(w); k++ {
		w[k-1] = w[k]
	}
	x.n--
	x.ents[x.n] = noEntry
	ix.n--
	if x != ix.root && x.n < nodeCap/4 {
		ix.rebalance(x)
	}
}

// rebalance merges the underfull node x into a neighbour under the same
// parent when their entries fit in three quarters of a node (the margin
// keeps a node near the threshold from splitting and merging by turns),
// and drops x when it is empty.
func (ix *blockIndex) rebalance(x *indexNode) {
	p := x.parent
	j := p.kidIndex(x)
	switch {
	case x.n == 0:
		ix.dropKid(p, j)
	case j+1 < p.n && x.n+p.kids[j+1].n <= nodeCap*3/4:
		ix.merge(p, j)
	case j > 0 && x.n+p.kids[j-1].n <= nodeCap*3/4:
		ix.merge(p, j-1)
	}
}

// merge moves the entries of p's child j+1 to the end of child j and
// drops child j+1.
func (ix *blockIndex) merge(p *indexNode, j int) {
	l, r := p.kids[j], p.kids[j+1]
	copy(l.ents[l.n:], r.ents[:r.n])
	if r.kids != nil {
		l.ents[l.n] = p.ents[j+1] // r's own first separator is not a bound
		copy(l.kids[l.n:], r.kids[:r.n])
		for _, k := range r.kids[:r.n] {
			k.parent = l
		}
	}
	l.n += r.n
	r.n = 0
	ix.dropKid(p, j+1)
}

// dropKid removes p's child j, which holds no entries any more.
func (ix *blockIndex) dropKid(p *indexNode, j int) {
	k := p.kids[j]
	if k.kids == nil { // a leaf: out of the list
		if k.prev != nil {
			k.prev.next = k.next
		}
		if k.next != nil {
			k.next.prev = k.prev
		}
	}
	copy(p.ents[j:p.n-1], p.ents[j+1:p.n])
	copy(p.kids[j:p.n-1], p.kids[j+1:p.n])
	p.n--
	p.kids[p.n] = nil
	switch {
	case p == ix.root && p.n == 1:
		ix.root = p.kids[0]
		ix.root.parent = nil
	case p != ix.root && p.n < nodeCap/4:
		ix.rebalance(p)
	}
}

// check verifies the tree: entries in strict order, every key within its
// node's bounds, parents and leaf links consistent.
func (ix *blockIndex) check() error {
	if ix.root == nil {
		return nil
	}
	var last *poolEntry
	var prevLeaf *indexNode
	n := 0
	var walk func(x *indexNode, lo, hi *poolEntry) error
	walk = func(x *indexNode, lo, hi *poolEntry) error {
		if x != ix.root && x.n == 0 {
			return errors.New("pool index: an empty node")
		}
		if x.kids == nil {
			if x.prev != prevLeaf || (prevLeaf != nil && prevLeaf.next != x) {
				return errors.New("pool index: leaf links broken")
			}
			prevLeaf = x
			for i := range x.ents[:x.n] {
				e := &x.ents[i]
				if (last != nil && !keyLess(last.size, last.ptr, e)) || (lo != nil && keyLess(e.size, e.ptr, lo)) || (hi != nil && !keyLess(e.size, e.ptr, hi)) {
					return fmt.Errorf("pool index: entry %#x out of order", e.ptr)
				}
				last = e
			}
			for _, e := range x.ents[x.n:] {
				if e != noEntry {
					return errors.New("pool index: a leaf's unused entry is not noEntry")
				}
			}
			n += x.n
			return nil
		}
		for j, k := range x.kids[:x.n] {
			if k.parent != x {
				return errors.New("pool index: a child's parent is wrong")
			}
			klo, khi := lo, hi
			if j > 0 {
				klo = &x.ents[j]
			}
			if j+1 < x.n {
				khi = &x.ents[j+1]
			}
			if err := walk(k, klo, khi); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(ix.root, nil, nil); err != nil {
		return err
	}
	if prevLeaf.next != nil || n != ix.n {
		return fmt.Errorf("pool index: %d entries reachable, %d counted", n, ix.n)
	}
	return nil
}
