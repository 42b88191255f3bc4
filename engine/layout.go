package engine

// The layout of an elementwise op's output, as PyTorch's TensorIterator
// decides it: the output's dimensions are laid out in the order its
// operands lay theirs out in memory, so an op over transposed views
// makes an output whose transpose back is contiguous
// (testdata/pyrules/ops_split_grad.py: q * k + v over heads).

// layoutOf is t's strides as TensorIterator reads them: a broadcast
// gradient's (expanded, without strides of its own) are all 0.
func layoutOf(t *Tensor) []int64 {
	if t.expanded && t.strides == nil {
		return make([]int64, len(t.Shape))
	}
	return t.Strides()
}

// iterStrides are the strides of an elementwise op's output of shape
// over operands laid out as layouts (each of its own shape, broadcast
// to shape): its dimensions, innermost first, sorted by how the first
// operand that tells two apart lays them out (a broadcast dimension
// tells nothing; of equal strides the smaller dimension goes inside),
// then laid out densely in that order.
func iterStrides(shape []int64, shapes, layouts [][]int64) []int64 {
	n := len(shape)
	strides := make([][]int64, len(layouts))
	for i, l := range layouts {
		strides[i] = make([]int64, n)
		lead := n - len(l)
		for d := lead; d < n; d++ {
			if shapes[i][d-lead] == shape[d] {
				strides[i][d] = l[d-lead]
			}
		}
	}
	// swap reports whether dimension d0, now inside d1, goes outside it
	swap := func(d0, d1 int) int {
		for _, st := range strides {
			s0, s1 := st[d0], st[d1]
			switch {
			case s0 == 0 || s1 == 0:
				continue
			case s0 < s1:
				return -1
			case s0 > s1:
				return 1
			case shape[d0] > shape[d1]:
				return 1
			}
		}
		return 0
	}
	perm := make([]int, n) // innermost first
	for i := range perm {
		perm[i] = n - 1 - i
	}
	for i := 1; i < n; i++ { // an insertion sort that leaves ties in place
		d1 := i
		for d0 := i - 1; d0 >= 0; d0-- {
			c := swap(perm[d0], perm[d1])
			if c > 0 {
				perm[d0], perm[d1] = perm[d1], perm[d0]
				d1 = d0
			} else if c < 0 {
				break
			}
		}
	}
	out := make([]int64, n)
	step := int64(1)
	for _, d := range perm {
		out[d] = step
		step *= max(shape[d], 1)
	}
	return out
}

// layOut gives out, a new tensor, the layout TensorIterator gives an
// elementwise op's output over operands (numbers are skipped).
func layOut(out *Tensor, operands ...*Tensor) {
	var shapes, layouts [][]int64
	for _, t := range operands {
		if t != nil && !t.number {
			shapes, layouts = append(shapes, t.Shape), append(layouts, layoutOf(t))
		}
	}
	st := iterStrides(out.Shape, shapes, layouts)
	if !contiguous(out.Shape, st) {
		out.strides, out.strided = st, true
	}
}
