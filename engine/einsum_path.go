package engine

import (
	"maps"
	"slices"
)

// torch.einsum of three or more operands, with opt_einsum installed and
// torch.backends.opt_einsum.enabled (the default), contracts them in the
// order opt_einsum.contract_path picks: under the default strategy
// "auto", for up to four operands, its "optimal" search, every order of
// pairs tried in turn and the first of the fewest flops kept, a pair
// costing the product of the sizes of every letter either has, twice
// that when a letter is summed away (ops_einsum_forms.py and
// testdata/pyrules/einsum_probe.txt: 'ij,jk,kl->il' contracts jk and kl
// first). Without it, left to right.

// EinsumPathFlags are torch.backends.opt_einsum's settings.
type EinsumPathFlags struct {
	Disabled bool   // enabled = False
	Strategy string // "auto", "greedy" or "optimal"
}

// SetEinsumPathFlags tells the session where torch.backends.opt_einsum's
// settings are read (the front end's module); unset, PyTorch's defaults
// (enabled, "auto").
func (s *Session) SetEinsumPathFlags(f func() EinsumPathFlags) { s.einsumPath = f }

// einsumOrder is the order einsum contracts its operands in: nil for
// left to right (two operands, or opt_einsum disabled), else
// opt_einsum's path.
func (s *Session) einsumOrder(e *einsumEquation, ts []*Tensor) ([][2]int, error) {
	flags := EinsumPathFlags{Strategy: "auto"}
	if s.einsumPath != nil {
		flags = s.einsumPath()
	}
	switch {
	case len(ts) <= 2 || flags.Disabled:
		return nil, nil
	case flags.Strategy != "auto" && flags.Strategy != "optimal":
		return nil, NotModelledError("opt_einsum's " + flags.Strategy + " contraction order")
	case len(ts) > maxOptimalOperands:
		return nil, NotModelledError("opt_einsum's contraction order for more than four operands")
	}
	return e.optimalPath(ts), nil
}

// maxOptimalOperands is the most operands "auto" searches exhaustively
// (and the most whose search order the tool follows: Python's set of up
// to four small ints iterates in order).
const maxOptimalOperands = 4

// optimalPath is opt_einsum's order of contractions: pairs of positions
// in the list of operands, each pair's result appended at its end.
func (e *einsumEquation) optimalPath(ts []*Tensor) [][2]int {
	size := map[int]int64{}
	inputs := make([]map[int]bool, len(ts))
	for i, t := range ts {
		inputs[i] = map[int]bool{}
		dim := 0
		for _, l := range e.terms[i] {
			if l != einsumEllipsis {
				inputs[i][l] = true
				size[l] = max(size[l], t.Shape[dim])
				dim++
				continue
			}
			n := len(t.Shape) - (len(e.terms[i]) - 1)
			for j := e.ellDims - n; j < e.ellDims; j++ {
				inputs[i][einsumLetters+j] = true
				size[einsumLetters+j] = max(size[einsumLetters+j], t.Shape[dim])
				dim++
			}
		}
	}
	output := map[int]bool{}
	for l, at := range e.perm {
		if at >= 0 && at < e.outDims {
			output[l] = true
		}
	}
	if e.ellAt < e.outDims {
		for j := range e.ellDims {
			output[einsumLetters+j] = true
		}
	}
	search := &pathSearch{size: size, output: output, best: -1}
	remaining := dimRange(0, len(ts))
	search.run(nil, inputs, remaining, 0)
	return linearPath(search.path, len(ts))
}

// pathSearch is opt_einsum's "optimal": a depth-first search over every
// order of pairs, pruned by the fewest flops found so far.
type pathSearch struct {
	size   map[int]int64
	output map[int]bool
	best   int64 // -1 until a whole path is found
	path   [][2]int
}

func (p *pathSearch) run(path [][2]int, inputs []map[int]bool, remaining []int, flops int64) {
	if len(remaining) == 1 {
		p.best, p.path = flops, slices.Clone(path)
		return
	}
	for x := 0; x < len(remaining); x++ {
		for y := x + 1; y < len(remaining); y++ {
			i, j := remaining[x], remaining[y]
			keep := maps.Clone(p.output)
			for _, r := range remaining {
				if r != i && r != j {
					maps.Copy(keep, inputs[r])
				}
			}
			either, result := map[int]bool{}, map[int]bool{}
			summed := false
			maps.Copy(either, inputs[i])
			maps.Copy(either, inputs[j])
			cost := int64(1)
			for l := range either {
				cost *= p.size[l]
				if keep[l] {
					result[l] = true
				} else if inputs[i][l] && inputs[j][l] {
					summed = true
				}
			}
			if summed {
				cost *= 2
			}
			if p.best >= 0 && flops+cost >= p.best {
				continue
			}
			rest := slices.DeleteFunc(slices.Clone(remaining), func(r int) bool { return r == i || r == j })
			p.run(append(path, [2]int{i, j}), append(slices.Clone(inputs), result), append(rest, len(inputs)), flops+cost)
		}
	}
}

// linearPath turns a path of operand ids (each result a new id after
// the inputs) into positions in the shrinking list of operands.
func linearPath(ssa [][2]int, n int) [][2]int {
	ids := dimRange(0, n+len(ssa))
	out := make([][2]int, len(ssa))
	for k, pair := range ssa {
		i, j := ids[pair[0]], ids[pair[1]]
		if j < i {
			i, j = j, i
		}
		out[k] = [2]int{i, j}
		for _, id := range pair {
			for m := id; m < len(ids); m++ {
				ids[m]--
			}
		}
	}
	return out
}
