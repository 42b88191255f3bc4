package engine

import (
	"slices"
)

// torch.einsum as aten computes it (testdata/pyrules/ops_einsum.py,
// ops_einsum_contractions.py, ops_einsum_forms.py): each operand's dimensions
// are laid out as the output's letters, then the contracted ones, each
// a view (a letter twice in one term a diagonal, then a permute; a
// letter the operand lacks an unsqueeze; then a permute); one operand's
// contracted letters are summed; operands are contracted a pair at a
// time (left to right, or in opt_einsum's order for three or more), a
// letter only one side has summed first, then the pair as one batched
// matrix product (einsum_pair.go), the contracted dimensions viewed
// away at the end. Every step is the engine's own op, so autograd
// records the graph PyTorch does and backward follows from it.

// einsumEllipsis stands for "..." among an operand's labels; labels are
// 0-25 for A-Z and 26-51 for a-z, PyTorch's order.
const (
	einsumLetters  = 52
	einsumEllipsis = einsumLetters
)

// einsumLabel is letter c's label, or false when c is not a letter.
func einsumLabel(c byte) (int, bool) {
	switch {
	case 'A' <= c && c <= 'Z':
		return int(c - 'A'), true
	case 'a' <= c && c <= 'z':
		return int(c-'a') + 26, true
	}
	return 0, false
}

// einsumLetter is label l's letter.
func einsumLetter(l int) byte {
	if l < 26 {
		return 'A' + byte(l)
	}
	return 'a' + byte(l-26)
}

// einsumEquation is a parsed equation: each operand's labels and where
// each label goes among the aligned dimensions (the output's, then the
// contracted ones).
type einsumEquation struct {
	terms    [][]int
	perm     [einsumLetters]int // aligned dimension of each label, -1 when unused
	ellAt    int                // aligned dimension of the first one "..." covers
	ellDims  int                // dimensions "..." covers (the most any operand has)
	outDims  int                // aligned dimensions in the output
	allDims  int                // aligned dimensions in all
	explicit bool
}

// parseEinsum reads eq for operands of the given ranks, with PyTorch's
// errors.
func parseEinsum(eq string, ranks []int) (*einsumEquation, error) {
	e := &einsumEquation{terms: make([][]int, len(ranks))}
	lhs, rhs, explicit := cutArrow(eq)
	e.explicit = explicit
	op, ellSeen := 0, false
	for i := 0; i < len(lhs); i++ {
		switch c := lhs[i]; c {
		case ' ':
		case '.':
			if ellSeen {
				return nil, Errorf(RuntimeError, "einsum(): found '.' for operand %d for which an ellipsis was already found", op)
			}
			if i+2 >= len(lhs) || lhs[i+1] != '.' || lhs[i+2] != '.' {
				return nil, Errorf(RuntimeError, "einsum(): found '.' for operand %d that is not part of any ellipsis", op)
			}
			i += 2
			e.terms[op] = append(e.terms[op], einsumEllipsis)
			ellSeen = true
		case ',':
			op++
			if op >= len(ranks) {
				return nil, Errorf(RuntimeError, "einsum(): fewer operands were provided than specified in the equation")
			}
			ellSeen = false
		default:
			l, ok := einsumLabel(c)
			if !ok {
				return nil, Errorf(RuntimeError, "einsum(): invalid subscript given at index %d in the equation string, subscripts must be in [a-zA-Z]", i)
			}
			e.terms[op] = append(e.terms[op], l)
		}
	}
	if op != len(ranks)-1 {
		return nil, Errorf(RuntimeError, "einsum(): more operands were provided than specified in the equation")
	}
	var count [einsumLetters]int
	for i, term := range e.terms {
		labels, ell := len(term), slices.Contains(term, einsumEllipsis)
		for _, l := range term {
			if l != einsumEllipsis {
				count[l]++
			}
		}
		if ell {
			labels--
			e.ellDims = max(e.ellDims, ranks[i]-labels)
		}
		switch {
		case ell && labels > ranks[i]:
			return nil, Errorf(RuntimeError, "einsum(): the number of subscripts in the equation (%d) is more than the number of dimensions (%d) for operand %d", labels, ranks[i], i)
		case !ell && labels != ranks[i]:
			return nil, Errorf(RuntimeError, "einsum(): the number of subscripts in the equation (%d) does not match the number of dimensions (%d) for operand %d and no ellipsis was given", labels, ranks[i], i)
		}
	}
	for l := range e.perm {
		e.perm[l] = -1
	}
	at, ellOut := 0, false
	if !explicit { // "..." then the letters that appear once, in label order
		at, ellOut = e.ellDims, true
		for l, n := range count {
			if n == 1 {
				e.perm[l] = at
				at++
			}
		}
	}
	for i := 0; explicit && i < len(rhs); i++ {
		switch c := rhs[i]; c {
		case ' ':
		case '.':
			if ellOut {
				return nil, Errorf(RuntimeError, "einsum(): found '.' for output but an ellipsis (...) was already found")
			}
			if i+2 >= len(rhs) || rhs[i+1] != '.' || rhs[i+2] != '.' {
				return nil, Errorf(RuntimeError, "einsum(): found '.' for output that is not part of any ellipsis (...)")
			}
			i += 2
			e.ellAt, ellOut = at, true
			at += e.ellDims
		default:
			l, ok := einsumLabel(c)
			if !ok {
				return nil, Errorf(RuntimeError, "einsum(): invalid subscript given at index %d in the equation string, subscripts must be in [a-zA-Z]", len(lhs)+2+i)
			}
			switch {
			case e.perm[l] != -1:
				return nil, Errorf(RuntimeError, "einsum(): output subscript %c appears more than once in the output", c)
			case count[l] == 0:
				return nil, Errorf(RuntimeError, "einsum(): output subscript %c does not appear in the equation for any input operand", c)
			}
			e.perm[l] = at
			at++
		}
	}
	e.outDims = at
	if !ellOut {
		e.ellAt = at
		at += e.ellDims
	}
	for l, n := range count { // the contracted letters, in label order
		if n > 0 && e.perm[l] == -1 {
			e.perm[l] = at
			at++
		}
	}
	e.allDims = at
	return e, nil
}

// cutArrow splits an equation at "->".
func cutArrow(eq string) (lhs, rhs string, explicit bool) {
	for i := 0; i+1 < len(eq); i++ {
		if eq[i] == '-' && eq[i+1] == '>' {
			return eq[:i], eq[i+2:], true
		}
	}
	return eq, "", false
}

// Einsum is torch.einsum(eq, operands...).
func (s *Session) Einsum(eq string, ts []*Tensor) (*Tensor, error) {
	if len(ts) == 0 {
		return nil, Errorf(RuntimeError, "einsum(): must provide at least one operand")
	}
	ranks := make([]int, len(ts))
	for i, t := range ts {
		ranks[i] = len(t.Shape)
	}
	e, err := parseEinsum(eq, ranks)
	if err != nil {
		return nil, err
	}
	if _, err := sameDevice(ts...); err != nil {
		return nil, err
	}
	counts, err := e.sizes(ts)
	if err != nil {
		return nil, err
	}
	path, err := s.einsumOrder(e, ts)
	if err != nil {
		return nil, err
	}
	ops := make([]*Tensor, 0, len(ts))
	defer func() {
		for _, t := range ops {
			s.dropTensor(t)
		}
	}()
	for i, t := range ts {
		op, err := s.einsumAlign(e, i, t)
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	for step := 0; len(ops) > 1; step++ {
		i, j := 0, 1
		if path != nil {
			i, j = path[step][0], path[step][1]
		}
		a, b := ops[i], ops[j]
		ops = slices.Delete(ops, j, j+1)
		ops = slices.Delete(ops, i, i+1)
		r, err := s.einsumContract(e, counts, a, b)
		s.dropTensor(b)
		s.dropTensor(a)
		if err != nil {
			return nil, err
		}
		if path != nil {
			ops = append(ops, r)
		} else {
			ops = slices.Insert(ops, 0, r)
		}
	}
	if e.allDims == e.outDims {
		return share(ops[0]), nil
	}
	if len(ts) > 1 { // the contracted dimensions are 1 now: viewed away
		return s.View(ops[0], ops[0].Shape[:e.outDims])
	}
	return s.einsumSum(ops[0], dimRange(e.outDims, e.allDims), false)
}

// sizes checks that each label and each dimension "..." covers has one
// size (or 1) across the operands, and counts, for each aligned
// dimension, the operands in which it is more than 1.
func (e *einsumEquation) sizes(ts []*Tensor) ([]int, error) {
	var size [einsumLetters]int64
	ell := make([]int64, e.ellDims)
	counts := make([]int, e.allDims)
	for i, t := range ts {
		dim := 0
		seen := map[int]int{}
		for _, l := range e.terms[i] {
			if l == einsumEllipsis {
				n := len(t.Shape) - (len(e.terms[i]) - 1)
				for j := e.ellDims - n; j < e.ellDims; j++ {
					if d := t.Shape[dim]; d != 1 {
						if ell[j] > 1 && ell[j] != d {
							return nil, Errorf(RuntimeError, "einsum(): dimension %d covered by ellipsis in operand %dhas size %d which does not broadcast with previously seen ellipsis with size %d for the respective dimension", dim, i, d, ell[j])
						}
						ell[j] = d
						counts[e.ellAt+j]++
					}
					dim++
				}
				continue
			}
			if prev, ok := seen[l]; ok {
				if t.Shape[dim] != t.Shape[prev] {
					return nil, Errorf(RuntimeError, "einsum(): subscript %c is repeated for operand %d but the sizes don't match, %d != %d", einsumLetter(l), i, t.Shape[dim], t.Shape[prev])
				}
				dim++
				continue
			}
			seen[l] = dim
			if d := t.Shape[dim]; d != 1 {
				if size[l] > 1 && size[l] != d {
					return nil, Errorf(RuntimeError, "einsum(): subscript %c has size %d for operand %d which does not broadcast with previously seen size %d", einsumLetter(l), d, i, size[l])
				}
				size[l] = d
				counts[e.perm[l]]++
			}
			dim++
		}
	}
	return counts, nil
}

// einsumAlign is operand i laid out on the aligned dimensions: a letter
// twice a diagonal moved to the letter's first place, a letter it lacks
// an unsqueezed dimension at its end, then one permute.
func (s *Session) einsumAlign(e *einsumEquation, i int, t *Tensor) (*Tensor, error) {
	op := share(t)
	perm := make([]int64, e.allDims)
	for d := range perm {
		perm[d] = -1
	}
	dim := int64(0)
	step := func(next *Tensor, err error) error {
		if err != nil {
			return err
		}
		s.dropTensor(op)
		op = next
		return nil
	}
	for _, l := range e.terms[i] {
		switch {
		case l == einsumEllipsis:
			n := len(t.Shape) - (len(e.terms[i]) - 1)
			for j := e.ellDims - n; j < e.ellDims; j++ {
				perm[e.ellAt+j] = dim
				dim++
			}
		case perm[e.perm[l]] == -1:
			perm[e.perm[l]] = dim
			dim++
		default:
			prev := perm[e.perm[l]]
			if err := step(s.Diagonal(op, int(prev), int(dim))); err != nil {
				s.dropTensor(op)
				return nil, err
			}
			if err := step(s.Permute(op, movedLast(len(op.Shape), int(prev)))); err != nil {
				s.dropTensor(op)
				return nil, err
			}
		}
	}
	for d := range perm {
		if perm[d] == -1 {
			if err := step(s.Unsqueeze(op, dim)); err != nil {
				s.dropTensor(op)
				return nil, err
			}
			perm[d] = dim
			dim++
		}
	}
	if err := step(s.Permute(op, perm)); err != nil {
		s.dropTensor(op)
		return nil, err
	}
	return op, nil
}

// movedLast is the permutation movedim(-1, to) makes of n dimensions.
func movedLast(n, to int) []int64 {
	perm := make([]int64, 0, n)
	for d := range n - 1 {
		if d == to {
			perm = append(perm, int64(n-1))
		}
		perm = append(perm, int64(d))
	}
	if to == n-1 {
		perm = append(perm, int64(n-1))
	}
	return perm
}

// dimRange is the dimensions from lo up to hi.
func dimRange(lo, hi int) []int {
	var ds []int
	for d := lo; d < hi; d++ {
		ds = append(ds, d)
	}
	return ds
}

// einsumContract is one step of the contraction: a and b's dimensions
// that no later operand has summed (in one of them alone, first), then
// the pair's product.
func (s *Session) einsumContract(e *einsumEquation, counts []int, a, b *Tensor) (*Tensor, error) {
	var sum, aSum, bSum []int
	for d := e.outDims; d < e.allDims; d++ {
		sa, sb := a.Shape[d] != 1, b.Shape[d] != 1
		switch {
		case sa && sb:
			if a.Shape[d] != b.Shape[d] {
				return nil, Errorf(RuntimeError, "non-broadcast dimensions must match")
			}
			if counts[d]--; counts[d] == 1 {
				sum, counts[d] = append(sum, d), 0
			}
		case counts[d] == 1 && sa:
			aSum, counts[d] = append(aSum, d), 0
		case counts[d] == 1 && sb:
			bSum, counts[d] = append(bSum, d), 0
		}
	}
	a, b = share(a), share(b)
	defer func() { s.dropTensor(b); s.dropTensor(a) }()
	if err := s.sumKept(&a, aSum); err != nil {
		return nil, err
	}
	if err := s.sumKept(&b, bSum); err != nil {
		return nil, err
	}
	return s.sumProduct(a, b, sum)
}

func init() {
	declare(&OpDef{Name: "einsum", Function: true,
		Params: []Param{{Name: "equation", Kind: StringParam}, {Name: "operands", Kind: TensorsParam}},
		Usage:  "torch.einsum(equation, *operands)",
		Memory: "aten's steps, each an op of its own: views (permute, unsqueeze, a diagonal for a repeated letter), sum for a letter one operand alone has, a pair as permute, reshape (a copy where no view fits) and bmm (a new output; a dense copy of an operand cuBLAS cannot read; the workspace), three or more operands in opt_einsum's order; backward is theirs",
		run:    func(s *Session, a Args) (*Tensor, error) { return s.Einsum(a.String(0), a.TensorList(1)) }})
}
