package engine

import (
	"fmt"
	"slices"
)

// nll_loss and cross_entropy (testdata/pyrules/loss_ce.py).
// cross_entropy of class indices is log_softmax along the class
// dimension, then nll_loss of it: LogSoftmaxBackward0 saves the
// log-probabilities and NllLossBackward0 saves them too, with the
// target and its total_weight, a 0-d tensor. nll_loss of an input of
// more than two dimensions is nll_loss2d, whose kernel sizes
// total_weight before the output.
// cross_entropy of probabilities (a floating target of the input's
// shape) is -(log_softmax * target) summed, divided by the batch for
// mean, each op recorded.

// F.nll_loss and F.cross_entropy as table entries (lossOp, loss.go).
func init() {
	declare(
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

// nllLoss is F.nll_loss(x, t, weight=w, reduction) of class indices
// t (w nil: none).
func (s *Session) nllLoss(x, t, w *Tensor, red int) (*Tensor, error) {
	if _, err := sameDevice(x, t, w); err != nil {
		return nil, err
	}
	switch {
	case len(x.Shape) < 1:
		return nil, Errorf(ValueError, "Expected 1 or more dimensions (got 0)")
	case len(x.Shape) != 1 && (len(t.Shape) == 0 || x.Shape[0] != t.Shape[0]):
		return nil, Errorf(ValueError, "Expected input batch_size (%d) to match target batch_size (%d).", x.Shape[0], firstDim(t.Shape))
	case t.DType.Name != "int64":
		return nil, NotModelledError("F.nll_loss of a " + t.DType.Name + " target (class indices are int64)")
	}
	if err := checkWeight(x, w, red); err != nil {
		return nil, err
	}
	if len(x.Shape) <= 2 {
		return s.nllLoss1d(x, t, w, red)
	}
	if len(t.Shape) != len(x.Shape)-1 || !slices.Equal(t.Shape[1:], x.Shape[2:]) {
		if len(x.Shape) == 4 {
			return nil, Errorf(RuntimeError, "only batches of spatial targets supported (3D tensors) but got targets of size: : %s", dimList(t.Shape))
		}
		return nil, Errorf(RuntimeError, "Expected target size %s, got %s", dimList(append([]int64{x.Shape[0]}, x.Shape[2:]...)), dimList(t.Shape))
	}
	if !x.IsContiguous() {
		return nil, NotModelledError("F.nll_loss of a non-contiguous input of more than two dimensions")
	}
	// other than 4-d, the input is viewed as (N, C, 1, -1) and the
	// target as (N, 1, -1): the same storages
	var out []int64
	if red == reduceNone {
		out = t.Shape
	}
	// nll_loss2d sizes total_weight, then its output
	ts, err := s.allocAll(x.Device(), tensorShape{nil, x.DType}, tensorShape{out, x.DType})
	if err != nil {
		return nil, err
	}
	s.record("NllLoss2DBackward0", ts[1], []*Tensor{x, t}, []*Tensor{x, t, ts[0]}, gradPerInput)
	s.dropTensor(ts[0]) // total_weight: kept by the node alone
	return ts[1], nil
}

// nllLoss1d is nll_loss of a 1-d or 2-d input: its output, then
// total_weight; backward makes the input's gradient and, for
// reduction='none' of a gradient that is not dense (a sum's
// broadcast), a dense copy of it, freed after.
func (s *Session) nllLoss1d(x, t, w *Tensor, red int) (*Tensor, error) {
	if len(t.Shape) != len(x.Shape)-1 {
		return nil, Errorf(RuntimeError, "0D or 1D target tensor expected, multi-target not supported")
	}
	var out []int64
	bw := gradPerInput
	if red == reduceNone && len(x.Shape) == 2 {
		out, bw = t.Shape, nllNoReduceBackward
	}
	ts, err := s.allocAll(x.Device(), tensorShape{out, x.DType}, tensorShape{nil, x.DType})
	if err != nil {
		return nil, err
	}
	saved := []*Tensor{x, t, ts[1]}
	if w != nil {
		saved = []*Tensor{x, t, w, ts[1]}
	}
	s.record("NllLossBackward0", ts[0], []*Tensor{x, t}, saved, bw)
	s.dropTensor(ts[1]) // total_weight: kept by the node alone
	return ts[0], nil
}

// nllNoReduceBackward is nll_loss_backward of reduction='none': the
// input's gradient, then a dense copy of the incoming gradient unless
// it is dense already, freed after.
func nllNoReduceBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	grads, err := gradPerInput(s, n, g)
	if err != nil || g.IsContiguous() {
		return grads, err
	}
	c, err := s.alloc(g.Shape, g.DType, g.Device())
	if err != nil {
		return grads, err
	}
	s.dropTensor(c)
	return grads, nil
}

// classDim is the dimension of the classes in a loss's input.
func classDim(x *Tensor) int64 {
	if len(x.Shape) == 1 {
		return 0
	}
	return 1
}

// crossEntropy is F.cross_entropy(x, t, reduction): of class indices,
// or of probabilities when t is floating and of x's shape.
func (s *Session) crossEntropy(x, t, w *Tensor, red int, smoothing float64) (*Tensor, error) {
	if len(x.Shape) == 0 {
		return nil, Errorf(ValueError, "Expected 1 or more dimensions (got 0)")
	}
	probs := slices.Equal(x.Shape, t.Shape)
	if probs && !isFloat(t.DType) {
		return nil, Errorf(RuntimeError, "Expected floating point type for target with class probabilities, got %s", tensorTypes[t.DType.Name])
	}
	if probs && len(x.Shape) != 2 {
		return nil, NotModelledError(fmt.Sprintf("F.cross_entropy of probabilities of a %d-d input", len(x.Shape)))
	}
	if _, err := sameDevice(x, t); err != nil {
		return nil, err
	}
	switch {
	case smoothing < 0 || smoothing > 1:
		return nil, Errorf(RuntimeError, "label_smoothing must be between 0.0 and 1.0. Got: %g", smoothing)
	case smoothing > 0 && probs:
		return nil, NotModelledError("F.cross_entropy of probabilities with label_smoothing")
	case w != nil && (probs || smoothing > 0):
		return nil, NotModelledError("F.cross_entropy with weight= of probabilities or with label_smoothing")
	case smoothing > 0:
		return s.labelSmoothing(x, t, red)
	}
	lsm, err := s.Run(Ops["log_softmax"], Args{x, classDim(x)})
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(lsm)
	if !probs {
		return s.nllLoss(lsm, t, w, red)
	}
	return s.probabilityLoss(lsm, t, red)
}

// probabilityLoss is cross_entropy's loss of log-probabilities lsm
// against probabilities t: -(lsm * t).sum() (along the classes for
// none), divided by the batch for mean; the temporaries go after the
// result exists, the last made first.
func (s *Session) probabilityLoss(lsm, t *Tensor, red int) (*Tensor, error) {
	var temps []*Tensor
	defer func() {
		for i := len(temps) - 1; i >= 0; i-- {
			s.dropTensor(temps[i])
		}
	}()
	prod, err := s.binary("mul", lsm, t)
	if err != nil {
		return nil, err
	}
	temps = append(temps, prod)
	dim := any(nil)
	if red == reduceNone {
		dim = classDim(lsm)
	}
	sums, _, err := s.RunTuple(Ops["sum"], Args{prod, dim, false})
	if err != nil {
		return nil, err
	}
	temps = append(temps, sums[0])
	neg, err := s.Op("neg", sums[0])
	if err != nil || red != reduceMean {
		return neg, err
	}
	temps = append(temps, neg)
	out, err := s.binary("div", neg, Scalar())
	if err == nil {
		out.NameNode("DivBackward1") // C++'s div.Scalar (loss_ce.py line 109)
	}
	return out, err
}

// labelSmoothing is cross_entropy of class indices with
// label_smoothing > 0, as PyTorch composes it: nll_loss of the
// log-probabilities, the smoothing term -lsm.sum(classes) with the
// ignored targets masked in place (the mask saved), reduced (mean
// divides its sum by the count of targets not ignored, an int64 sum of
// the inverted mask through an int64 copy of it), then
// (1 - ls) * nll + ls / C * smooth; each op recorded.
func (s *Session) labelSmoothing(x, t *Tensor, red int) (*Tensor, error) {
	if len(x.Shape) > 2 {
		return nil, NotModelledError("F.cross_entropy with label_smoothing of an input of more than two dimensions")
	}
	if red == reduceMean && x.Device().CUDA && reductionBlocks(t.Numel(), 1) > 1 {
		return nil, NotModelledError("F.cross_entropy with label_smoothing of so many targets (the count's reduction buffer)")
	}
	lsm, forNLL, err := s.smoothingLogProbs(x)
	if err != nil {
		return nil, err
	}
	var locals []*Tensor // dropped last first, as C++ destroys them
	defer func() {
		for i := len(locals) - 1; i >= 0; i-- {
			s.dropTensor(locals[i])
		}
	}()
	locals = append(locals, lsm)
	nll, err := s.nllLoss(forNLL, t, nil, red)
	s.dropTensor(forNLL) // autocast's cast goes as nll_loss returns (its node keeps it)
	if err != nil {
		return nil, err
	}
	locals = append(locals, nll)
	sums, _, err := s.RunTuple(Ops["sum"], Args{lsm, classDim(x), false})
	if err != nil {
		return nil, err
	}
	smooth, err := s.Op("neg", sums[0])
	s.dropTensor(sums[0])
	if err != nil {
		return nil, err
	}
	locals = append(locals, smooth)
	mask, err := s.compare(t, Scalar())
	if err != nil {
		return nil, err
	}
	locals = append(locals, mask)
	s.written(smooth) // masked_fill_(mask, 0)
	if old := smooth.fn; s.gradEnabled && old != nil {
		s.record("MaskedFillBackward0", smooth, []*Tensor{smooth}, []*Tensor{mask}, gradPerInput)
		s.replaced(smooth, old)
	}
	ret, err := s.smoothReduced(smooth, red)
	if err != nil {
		return nil, err
	}
	locals = append(locals, ret)
	// (1 - ls) * nllloss + ret * (ls / n_classes): the compiler computes
	// the right operand first, so backward reaches the smoothing term's
	// product after the nll term's (vit_train.py's first backward frees
	// the one it made second: testdata/segments/h100/vit_train.jsonl);
	// the temporaries go as made, the last first
	b, err := s.binary("mul", ret, Scalar())
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(b)
	a, err := s.binary("mul", nll, Scalar())
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(a)
	return s.binary("add", a, b)
}

// smoothReduced is label smoothing's term reduced: smooth.sum()
// divided by the count of targets not ignored (mean), smooth.sum(), or
// smooth itself.
func (s *Session) smoothReduced(smooth *Tensor, red int) (*Tensor, error) {
	if red == reduceNone {
		return share(smooth), nil
	}
	if red == reduceSum {
		return s.Op("sum", smooth)
	}
	int64s := DTypes["int64"]
	// ~mask, then its sum: the int64 count and an int64 copy of the mask, freed after
	ts, err := s.allocAll(smooth.Device(), tensorShape{smooth.Shape, boolDType}, tensorShape{nil, int64s}, tensorShape{smooth.Shape, int64s})
	if err != nil {
		return nil, err
	}
	notMask, count := ts[0], ts[1]
	defer s.dropTensor(notMask)
	s.dropTensor(ts[2])
	defer s.dropTensor(count)
	sum, err := s.Op("sum", smooth)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(sum)
	out, err := s.alloc(nil, sum.DType, sum.Device())
	if err != nil {
		return nil, err
	}
	s.record("DivBackward0", out, []*Tensor{sum, count}, []*Tensor{count}, gradPerInput)
	return out, nil
}

// checkWeight checks nll_loss's weight=, one per class of x, as
// recorded: a dense tensor of x's dtype for a 1-d or 2-d input and
// reduction='mean', which the node saves and nothing copies.
func checkWeight(x, w *Tensor, red int) error {
	if w == nil {
		return nil
	}
	classes := x.Shape[classDim(x)]
	switch {
	case len(w.Shape) != 1 || w.Shape[0] != classes:
		return Errorf(RuntimeError, "weight tensor should be defined either for all %d classes or no classes but got weight tensor of shape: %s", classes, dimList(w.Shape))
	case len(x.Shape) > 2 || red != reduceMean || w.DType != x.DType || !w.IsContiguous():
		return NotModelledError("F.nll_loss with weight= other than a dense one of the input's dtype, for a 1-d or 2-d input and reduction='mean'")
	}
	return nil
}
