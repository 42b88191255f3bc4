package engine

import (
	"fmt"
	"slices"
)

// The losses as memory (testdata/pyrules/loss_*.py, recorded with
// their allocator events). PyTorch computes each on the GPU in one of
// three ways, and the tool follows the same three:
//
//   - mse_loss is a structured kernel: its output is allocated with the
//     inputs' shape and, reduced, resized to 0-d, which keeps that
//     storage (a 0-d loss holds as many bytes as its input); the
//     elementwise loss is a temporary of the same size, reduced by the
//     sum kernel (its buffer and semaphore) and freed.
//   - binary_cross_entropy_with_logits and nll_loss are autograd ops of
//     their own: their node saves the inputs (nll_loss also its
//     total_weight, a 0-d tensor) and their backward makes one gradient
//     per input that needs one.
//   - l1_loss and cross_entropy are compositions of other ops (sub,
//     abs and mean; log_softmax then nll_loss), each recording its own
//     node.

// The losses' entries, torch.nn.functional forms with PyTorch's
// signatures; what the tool has not recorded (weight= but nll_loss's,
// pos_weight=) they refuse.

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
		// the census's (testdata/pyrules/ops_census_misc.py, held
		// statement by statement by TestRecordedStatements): smooth_l1_loss is a kernel as
		// mse_loss's; binary_cross_entropy makes the loss of the input's
		// size, reduced into a 0-d tensor copied back into it (PyTorch's
		// resize_as_ keeps the storage), the 0-d freed; its backward makes
		// the input's gradient (the target's is PyTorch's error)
		lossOp("smooth_l1_loss", []Param{lossSizeAverage, lossReduce, lossReduction, numberParam("beta", "1.0")}, false,
			"as mse_loss",
			func(s *Session, a Args, red int) (*Tensor, error) {
				if a.Number(5) < 0 {
					return nil, Errorf(RuntimeError, "smooth_l1_loss does not support negative values for beta.")
				}
				return s.pointwiseLoss("smooth_l1_loss", "SmoothL1LossBackward0", a.Tensor(0), a.Tensor(1), red)
			}),
		lossOp("binary_cross_entropy", []Param{lossWeight, lossSizeAverage, lossReduce, lossReduction}, false,
			"the loss of the input's size (reduced: a 0-d tensor and the reduction's temporaries, copied back into it, freed); saves input and target; backward makes the input's gradient",
			func(s *Session, a Args, red int) (*Tensor, error) {
				return s.binaryCrossEntropy(a.Tensor(0), a.Tensor(1), red)
			}),
		lossOp("binary_cross_entropy_with_logits", []Param{lossWeight, lossSizeAverage, lossReduce, lossReduction, {Name: "pos_weight", Kind: TensorParam, Default: "None"}}, false,
			"log_sigmoid and 1 - target of the input's size, freed once reduced; saves input and target; backward makes the input's gradient, then the target's (after a temporary)",
			func(s *Session, a Args, red int) (*Tensor, error) {
				return s.bceWithLogits(a.Tensor(0), a.Tensor(1), red)
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

// The values of a loss's reduction=, as _Reduction.get_enum reads them.
const (
	reduceNone = iota
	reduceMean
	reduceSum
)

// reductionOf is the reduction named by argument i.
func reductionOf(a Args, i int) (int, error) {
	switch r := a.String(i); r {
	case "none":
		return reduceNone, nil
	case "mean":
		return reduceMean, nil
	case "sum":
		return reduceSum, nil
	default:
		return 0, Errorf(ValueError, "%s is not a valid value for reduction", r)
	}
}

// sameShapes refuses a loss of operands whose shapes differ: PyTorch
// broadcasts them (with a warning), which the tool does not model.
func sameShapes(name string, x, t *Tensor) error {
	if _, err := sameDevice(x, t); err != nil {
		return err
	}
	if !slices.Equal(x.Shape, t.Shape) {
		return NotModelledError(fmt.Sprintf("F.%s of an input of size %s and a target of size %s (broadcast)", name, dimList(x.Shape), dimList(t.Shape)))
	}
	if x.DType != t.DType {
		return NotModelledError(fmt.Sprintf("F.%s of a %s input and a %s target", name, x.DType.Name, t.DType.Name))
	}
	return nil
}

// reduceLoss reduces an elementwise loss, l, as sum() does: the sum
// kernel's temporaries on the GPU (mean is sum, then a division in
// place).
func (s *Session) reduceLoss(l *Tensor) error { return s.reductionTemps(l, opmath(l.DType)) }

// mseLoss is F.mse_loss(x, t, reduction).
func (s *Session) mseLoss(x, t *Tensor, red int) (*Tensor, error) {
	return s.pointwiseLoss("mse_loss", "MseLossBackward0", x, t, red)
}

// pointwiseLoss is F.name(x, t, reduction) of a loss PyTorch computes
// as mse_loss (one kernel of the input's size, reduced), recording node.
func (s *Session) pointwiseLoss(name, node string, x, t *Tensor, red int) (*Tensor, error) {
	if err := sameShapes(name, x, t); err != nil {
		return nil, err
	}
	out, err := s.alloc(x.Shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	if red != reduceNone {
		out.Shape = nil // resize_({}) keeps the storage
		l, err := s.alloc(x.Shape, x.DType, x.Device())
		if err == nil {
			err = s.reduceLoss(l)
			s.dropTensor(l)
		}
		if err != nil {
			s.dropTensor(out)
			return nil, err
		}
	}
	s.record(node, out, []*Tensor{x, t}, []*Tensor{x, t}, gradPerInput)
	return out, nil
}

// bceWithLogits is F.binary_cross_entropy_with_logits(x, t,
// reduction): log_sigmoid(x), then (1 - t) written in place into the
// loss, reduced; both freed after the reduction, the loss first.
func (s *Session) bceWithLogits(x, t *Tensor, red int) (*Tensor, error) {
	if !slices.Equal(x.Shape, t.Shape) {
		return nil, Errorf(ValueError, "Target size (torch.Size(%s)) must be the same as input size (torch.Size(%s))", dimList(t.Shape), dimList(x.Shape))
	}
	if err := sameShapes("binary_cross_entropy_with_logits", x, t); err != nil {
		return nil, err
	}
	ts, err := s.allocAll(x.Device(), tensorShape{x.Shape, x.DType}, tensorShape{x.Shape, x.DType})
	if err != nil {
		return nil, err
	}
	logSigmoid, out := ts[0], ts[1]
	if red != reduceNone {
		loss := out
		out, err = s.reduced(loss)
		s.dropTensor(loss)
	}
	s.dropTensor(logSigmoid)
	if err != nil {
		return nil, err
	}
	s.record("BinaryCrossEntropyWithLogitsBackward0", out, []*Tensor{x, t}, []*Tensor{x, t}, lossGrads(1, 2))
	return out, nil
}

// reduced is l.mean() or l.sum() inside a kernel, below autograd: a
// new 0-d tensor and the reduction's temporaries.
func (s *Session) reduced(l *Tensor) (*Tensor, error) {
	out, err := s.alloc(nil, l.DType, l.Device())
	if err != nil {
		return nil, err
	}
	if err := s.reduceLoss(l); err != nil {
		s.dropTensor(out)
		return nil, err
	}
	return out, nil
}

// lossGrads is the backward of a loss that is one autograd op: each
// input i that needs a gradient gets temps[i] new tensors of its shape
// (1 past the end of temps), in order, the last its gradient and the
// others freed once it exists. mse_loss_backward's zeros_like and
// nll_loss_backward's zeroed gradient are one;
// binary_cross_entropy_with_logits' input gradient is its sigmoid
// written in place, one, and its target's -input * grad, two
// (testdata/pyrules/loss_probe.txt, "bce u").
func lossGrads(temps ...int) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		grads := make([]*Tensor, len(n.inputs))
		for i, e := range n.inputs {
			if e.to == nil {
				continue
			}
			k := 1
			if i < len(temps) {
				k = temps[i]
			}
			ts, err := s.allocAll(g.Device(), slices.Repeat([]tensorShape{{e.shape, g.DType}}, k)...)
			if err != nil {
				return grads, err
			}
			for _, t := range ts[:k-1] {
				s.dropTensor(t)
			}
			grads[i] = ts[k-1]
		}
		return grads, nil
	}
}

// gradPerInput is lossGrads' common case: one gradient per input.
var gradPerInput = lossGrads()

// l1Loss is F.l1_loss(x, t, reduction): (x - t).abs() reduced, each
// op recorded by autograd; the difference and its absolute value live
// until the reduction is made (abs saves the difference).
func (s *Session) l1Loss(x, t *Tensor, red int) (*Tensor, error) {
	if err := sameShapes("l1_loss", x, t); err != nil {
		return nil, err
	}
	d, err := s.binary("sub", x, t)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(d)
	abs, err := s.Op("abs", d)
	if err != nil || red == reduceNone {
		return abs, err
	}
	defer s.dropTensor(abs)
	return s.Op([...]string{reduceMean: "mean", reduceSum: "sum"}[red], abs)
}

// binaryCrossEntropy is F.binary_cross_entropy(x, t, reduction).
func (s *Session) binaryCrossEntropy(x, t *Tensor, red int) (*Tensor, error) {
	if !slices.Equal(x.Shape, t.Shape) {
		return nil, Errorf(ValueError, "Using a target size (torch.Size(%s)) that is different to the input size (torch.Size(%s)) is deprecated. Please ensure they have the same size.", dimList(t.Shape), dimList(x.Shape))
	}
	if err := sameShapes("binary_cross_entropy", x, t); err != nil {
		return nil, err
	}
	if s.gradEnabled && t.requiresGrad() {
		return nil, Errorf(RuntimeError, "the derivative for 'target' is not implemented.")
	}
	out, err := s.alloc(slices.Clone(x.Shape), x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	if red != reduceNone {
		r, err := s.reduced(out)
		if err != nil {
			s.dropTensor(out)
			return nil, err
		}
		s.dropTensor(r)
		out.Shape = nil
	}
	s.record("BinaryCrossEntropyBackward0", out, []*Tensor{x, t}, []*Tensor{x, t}, gradPerInput)
	return out, nil
}
