package engine

import (
	"fmt"
	"slices"
	"strings"
)

// torch.einsum's common forms (testdata/pyrules/ops_einsum.py): one
// operand with its dimensions reordered is a permuted view; two operands
// whose every letter is in the output or in both are one batched matrix
// product: a new contiguous tensor of the output's shape (the cuBLAS
// workspace on first use), saving both operands; its backward makes the
// second operand's gradient, then the first's, each one product (after a
// dense copy of a broadcast gradient), each laid out as the product
// lays out that operand: batch letters, then its own, then the
// contracted one (so a gradient whose operand was transposed to get
// there is not contiguous, and a leaf's .grad is a copy of it).

// einsumTerms are an equation's input terms and its output.
func einsumTerms(eq string, operands int) ([]string, string, error) {
	eq = strings.ReplaceAll(eq, " ", "")
	in, out, explicit := strings.Cut(eq, "->")
	if strings.Contains(eq, ".") {
		return nil, "", NotModelledError("torch.einsum with ...")
	}
	terms := strings.Split(in, ",")
	if !explicit { // the letters that appear once, in alphabetical order (upper case first)
		var once []byte
		for _, c := range []byte(in) {
			if c != ',' && strings.Count(in, string(c)) == 1 {
				once = append(once, c)
			}
		}
		slices.Sort(once)
		out = string(once)
	}
	if len(terms) != operands {
		return nil, "", fmt.Errorf("RuntimeError: einsum(): more operands were provided than specified in the equation")
	}
	for _, t := range append(slices.Clone(terms), out) {
		for i, c := range t {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
				return nil, "", fmt.Errorf("RuntimeError: einsum(): invalid subscript given at index %d in the equation string, subscripts must be in [a-zA-Z]", i)
			}
			if strings.Count(t, string(c)) > 1 {
				return nil, "", NotModelledError("torch.einsum with a letter twice in one term (a diagonal)")
			}
		}
	}
	return terms, out, nil
}

// Einsum is torch.einsum(eq, operands...) in its common forms.
func (s *Session) Einsum(eq string, ts []*Tensor) (*Tensor, error) {
	terms, out, err := einsumTerms(eq, len(ts))
	if err != nil {
		return nil, err
	}
	size := map[rune]int64{}
	for i, t := range ts {
		if len(terms[i]) != len(t.Shape) {
			return nil, fmt.Errorf("RuntimeError: einsum(): the number of subscripts in the equation (%d) does not match the number of dimensions (%d) for operand %d and no ellipsis was given", len(terms[i]), len(t.Shape), i)
		}
		for j, c := range terms[i] {
			if n, ok := size[c]; ok && n != t.Shape[j] {
				return nil, fmt.Errorf("RuntimeError: einsum(): operands do not broadcast with remapped shapes (original->remapped)")
			}
			size[c] = t.Shape[j]
		}
	}
	switch len(ts) {
	case 1:
		return s.einsumPermute(ts[0], terms[0], out)
	case 2:
		return s.einsumProduct(ts[0], ts[1], terms[0], terms[1], out, size)
	}
	return nil, NotModelledError("torch.einsum of more than two operands")
}

// einsumPermute is one operand's dimensions reordered, a permuted view;
// with its letters not in the output summed (all of them, or one) by
// sum first, as PyTorch's einsum sums them (ops_einsum_more.py).
func (s *Session) einsumPermute(t *Tensor, term, out string) (*Tensor, error) {
	var summed []int
	for i, c := range term {
		if !strings.ContainsRune(out, c) {
			summed = append(summed, i)
		}
	}
	switch {
	case len(summed) == 0:
	case len(out) == 0:
		return s.Op("sum", t)
	case len(summed) == 1:
		d := summed[0]
		rs, _, err := s.RunTuple(Ops["sum"], Args{t, int64(d), false})
		if err != nil {
			return nil, err
		}
		if term = term[:d] + term[d+1:]; term == out {
			return rs[0], nil
		}
		defer s.dropTensor(rs[0])
		t = rs[0]
	default:
		return nil, NotModelledError("torch.einsum summing several but not all of one operand's dimensions")
	}
	dims := make([]int64, len(out))
	for i, c := range out {
		dims[i] = int64(strings.IndexRune(term, c))
	}
	return s.Permute(t, dims)
}

// einsumProduct is a and b as one batched matrix product.
func (s *Session) einsumProduct(a, b *Tensor, ta, tb, out string, size map[rune]int64) (*Tensor, error) {
	var batch, left, right, sum []rune
	for c := range size {
		inA, inB, inOut := strings.ContainsRune(ta, c), strings.ContainsRune(tb, c), strings.ContainsRune(out, c)
		switch {
		case inA && inB && inOut:
			batch = append(batch, c)
		case inA && inB:
			sum = append(sum, c)
		case inA && inOut:
			left = append(left, c)
		case inB && inOut:
			right = append(right, c)
		default:
			return nil, NotModelledError("torch.einsum summing a letter of one operand alone")
		}
	}
	if len(left) > 1 || len(right) > 1 || len(sum) > 1 || !sameOrder(batch, ta, tb, out) {
		return nil, NotModelledError("torch.einsum of other than one batched matrix product (at most one letter each operand's own and contracted, batch letters in one order)")
	}
	if len(sum) > 0 && (!batchLeads(batch, ta) || !batchLeads(batch, tb)) {
		// a contraction whose operand PyTorch permutes and copies before
		// its bmm ('ij,ij->j' copies both): those copies are not modelled
		return nil, NotModelledError("torch.einsum with a batch letter after an operand's own or contracted letters")
	}
	if (len(left) == 0 || len(right) == 0 || len(sum) == 0) && s.gradEnabled && (a.requiresGrad() || b.requiresGrad()) {
		return nil, NotModelledError("the backward of torch.einsum of other than a matrix product")
	}
	dev, err := sameDevice(a, b)
	if err != nil {
		return nil, err
	}
	shape := make([]int64, len(out))
	for i, c := range out {
		shape[i] = size[c]
	}
	r, err := s.alloc(shape, a.DType, dev)
	if err != nil {
		return nil, err
	}
	if err := s.workspace(dev, false); err != nil {
		s.dropTensor(r)
		return nil, err
	}
	layouts := [2][]int64{productLayout(ta, batch, left, sum, a.Shape), productLayout(tb, batch, sum, right, b.Shape)}
	s.record("ViewBackward0", r, []*Tensor{a, b}, savedForProduct(a, b), einsumBackward(layouts))
	return r, nil
}

// batchLeads reports whether term starts with its batch letters.
func batchLeads(batch []rune, term string) bool {
	for i, c := range term {
		if i >= len(batch) {
			break
		}
		if !slices.Contains(batch, c) {
			return false
		}
	}
	return true
}

// sameOrder reports whether the batch letters come in one order in
// every term.
func sameOrder(batch []rune, terms ...string) bool {
	var first []int
	for _, t := range terms {
		var order []rune
		for _, c := range t {
			if slices.Contains(batch, c) {
				order = append(order, c)
			}
		}
		at := make([]int, len(order))
		for i, c := range order {
			at[i] = slices.Index(batch, c)
		}
		if first == nil {
			first = at
		} else if !slices.Equal(first, at) {
			return false
		}
	}
	return true
}

// productLayout are the strides of an operand's gradient as the batched
// product makes it: dense in the order batch letters, outer, inner, then
// permuted back to the operand's term.
func productLayout(term string, batch, outer, inner []rune, shape []int64) []int64 {
	order := slices.Concat(orderIn(batch, term), outer, inner)
	strides := make([]int64, len(term))
	step := int64(1)
	for i := len(order) - 1; i >= 0; i-- {
		d := strings.IndexRune(term, order[i])
		strides[d] = step
		step *= max(shape[d], 1)
	}
	return strides
}

// orderIn is letters in the order term has them.
func orderIn(letters []rune, term string) []rune {
	var out []rune
	for _, c := range term {
		if slices.Contains(letters, c) {
			out = append(out, c)
		}
	}
	return out
}

// einsumBackward is the product's backward: the second operand's
// gradient, then the first's, each one product laid out as layouts say.
func einsumBackward(layouts [2][]int64) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		grads := make([]*Tensor, 2)
		for _, i := range []int{1, 0} {
			if n.inputs[i].to == nil {
				continue
			}
			shape := n.inputs[i].shape
			r, err := s.productGrad(g, shape)
			if err != nil {
				return grads, err
			}
			if !contiguous(shape, layouts[i]) {
				r.strides, r.strided = layouts[i], true
			}
			r.view = true // it comes back through the operand's permute and reshape
			grads[i] = r
		}
		return grads, nil
	}
}

func init() {
	declare(&OpDef{Name: "einsum", Function: true,
		Params: []Param{{Name: "equation", Kind: StringParam}, {Name: "operands", Kind: TensorsParam}},
		Usage:  "torch.einsum(equation, *operands)",
		Memory: "one operand reordered: a view; two: one batched matrix product, a new contiguous tensor (the cuBLAS workspace on first use); backward makes the second operand's gradient, then the first's",
		run:    func(s *Session, a Args) (*Tensor, error) { return s.Einsum(a.String(0), a.TensorList(1)) }})
}
