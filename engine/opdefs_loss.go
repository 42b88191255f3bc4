package engine

import "fmt"

// The losses' entries: torch.nn.functional forms with PyTorch's
// signatures; their rules are in loss.go and loss_nll.go. What the
// tool has not recorded (weight= but nll_loss's, pos_weight=) it
// refuses.

var (
	lossReduction   = Param{Name: "reduction", Kind: StringParam, Default: "'mean'"}
	lossWeight      = Param{Name: "weight", Kind: TensorParam, Default: "None"}
	lossSizeAverage = Param{Name: "size_average", Kind: BoolParam, Default: "None"}
	lossReduce      = Param{Name: "reduce", Kind: BoolParam, Default: "None"}
	lossIgnoreIndex = Param{Name: "ignore_index", Kind: IntParam, Default: "-100"}
	// pointwiseEnd are the parameters after the target of mse_loss and l1_loss
	pointwiseEnd = []Param{lossSizeAverage, lossReduce, lossReduction, lossWeight}
)

func init() {
	declare(
		lossOp("mse_loss", pointwiseEnd, false,
			"new tensor of the input's size, resized to 0-d when reduced (it keeps the storage), and a temporary of that size for the reduction; saves input and target; backward makes a gradient per input",
			func(s *Session, a Args, red int) (*Tensor, error) { return s.mseLoss(a.Tensor(0), a.Tensor(1), red) }),
		lossOp("l1_loss", pointwiseEnd, false,
			"(input - target).abs() reduced: sub, abs and mean or sum, each recorded (abs saves the difference)",
			func(s *Session, a Args, red int) (*Tensor, error) { return s.l1Loss(a.Tensor(0), a.Tensor(1), red) }),
		lossOp("binary_cross_entropy_with_logits", []Param{lossWeight, lossSizeAverage, lossReduce, lossReduction, {Name: "pos_weight", Kind: TensorParam, Default: "None"}}, false,
			"log_sigmoid and 1 - target of the input's size, freed once reduced; saves input and target; backward makes the input's gradient, then the target's (after a temporary)",
			func(s *Session, a Args, red int) (*Tensor, error) {
				return s.bceWithLogits(a.Tensor(0), a.Tensor(1), red)
			}),
		lossOp("nll_loss", []Param{lossWeight, lossSizeAverage, lossIgnoreIndex, lossReduce, lossReduction}, true,
			"output and a 0-d total_weight, which the node saves with input, target and weight; backward makes the input's gradient, zeroed (weight=: recorded for a 2-d input and reduction='mean')",
			func(s *Session, a Args, red int) (*Tensor, error) {
				return s.nllLoss(a.Tensor(0), a.Tensor(1), a.Tensor(2), red)
			}),
		lossOp("cross_entropy", []Param{lossWeight, lossSizeAverage, lossIgnoreIndex, lossReduce, lossReduction, {Name: "label_smoothing", Kind: NumberParam, Default: "0.0"}}, true,
			"log_softmax along the classes (saved), then nll_loss of it (class indices) or -(log_softmax * target) summed (probabilities); backward makes nll_loss's gradient, then log_softmax's",
			func(s *Session, a Args, red int) (*Tensor, error) {
				return s.crossEntropy(a.Tensor(0), a.Tensor(1), a.Tensor(2), red, a.Number(7))
			}),
	)
}

// lossOp is the entry of F.name(input, target, rest...): its reduction
// read (from the deprecated size_average= and reduce= when either is
// given, as PyTorch reads them), weight= and pos_weight= refused unless
// weighted (run reads the weight), then run.
func lossOp(name string, rest []Param, weighted bool, memory string, run func(s *Session, a Args, red int) (*Tensor, error)) *OpDef {
	params := append([]Param{input, {Name: "target", Kind: TensorParam}}, rest...)
	at := map[string]int{}
	for i, p := range params {
		at[p.Name] = i
	}
	return functional(&OpDef{Name: name, Params: params, Memory: memory,
		run: func(s *Session, a Args) (*Tensor, error) {
			for _, p := range []string{"weight", "pos_weight"} {
				if i, ok := at[p]; ok && a[i] != nil && !weighted {
					return nil, NotModelledError(fmt.Sprintf("F.%s with %s=", name, p))
				}
			}
			red, err := reductionOf(a, at["reduction"])
			if sa, rd := a[at["size_average"]], a[at["reduce"]]; sa != nil || rd != nil {
				red, err = legacyReduction(sa, rd), nil
			}
			if err != nil {
				return nil, err
			}
			return run(s, a, red)
		}})
}

// legacyReduction is _Reduction.legacy_get_string: an unset
// size_average or reduce is True; reduce=False is none, else
// size_average says mean or sum.
func legacyReduction(sizeAverage, reduce any) int {
	switch {
	case reduce == false: // a bool as bound, nil when unset
		return reduceNone
	case sizeAverage == false:
		return reduceSum
	}
	return reduceMean
}
