package engine

import (
	"slices"
)

// Batch normalization on the GPU (testdata/pyrules/cnn_batchnorm.py;
// cnn_probe.txt: 12 shapes in float32, float16 and bfloat16, 2-d to
// 4-d inputs; a 5-d one, BatchNorm3d's, takes the same kernels: held to
// modules_census.py and modules_census_nn.py statement by statement).
// PyTorch runs cuDNN's kernels for a float32 or float16
// input of 3 or more dimensions with weight and bias (cudnnBatchNorm),
// its own otherwise (bfloat16, affine=False, a 2-d input):
//
//   - training: the output, then the batch's mean and inverse standard
//     deviation, one float32 per channel each, saved by the node with
//     the input (the running stats are updated in place, their version
//     counters not bumped, as PyTorch's batch_norm leaves them). PyTorch's
//     kernel, on an input whose channels are its innermost dimension (a
//     2-d input, or a plane of 1x1), reduces through a buffer across
//     blocks when it splits the batch (stagedBlocks);
//   - eval: cuDNN makes the output alone; PyTorch's kernel also the
//     mean and inverse std, saved too.
//
// Backward: cuDNN's (training) makes a dense copy of a gradient that
// is not contiguous, the input's gradient, the weight's and the bias's,
// then frees the copy; PyTorch's makes the gradients needed, after, on
// an input whose channels are innermost, two float32 sums per channel
// (and a 4-byte temporary without weight), freed after; cuDNN's eval
// backward (PyTorch's kernel without saved statistics) on such an
// input also an inverse std per channel first.

// F.batch_norm as a table entry.
func init() {
	declare(
		functional(&OpDef{Name: "batch_norm",
			Params: []Param{input, optTensor("running_mean"), optTensor("running_var"), optTensor("weight"), optTensor("bias"),
				boolParam("training", "False"), numberParam("momentum", "0.1"), numberParam("eps", "1e-05")},
			Usage:  "F.batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05)",
			Memory: "cuDNN's (float32 or float16, 3-d and up, weight and bias): training the output and a float32 mean and inverse std per channel (saved), eval the output alone; PyTorch's (bfloat16, affine=False, 2-d) the three in training and eval (a 2-d input's statistics through a buffer across blocks); the running stats updated in place; backward makes the gradients (cuDNN's after a dense copy of the incoming one, a 2-d input's after two float32 sums per channel)",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.batchNorm(a.Tensor(0), a.Tensor(1), a.Tensor(2), a.Tensor(3), a.Tensor(4), a.Bool(5))
			}}),
	)
}

// batchNormFloat is the dtype of the batch's statistics and of the
// weights the tool models.
var batchNormFloat = Float32

// cudnnBatchNorm reports whether PyTorch sends this batch norm to cuDNN
// (_batch_norm_impl_index's condition, for what the tool models).
func cudnnBatchNorm(x, mean, vr, w, b *Tensor, training bool) bool {
	n := x.Shape[0]
	return (x.DType == Float32 || x.DType.Name == "float16" && w != nil && w.DType == Float32) && w != nil && b != nil &&
		(mean != nil) == (vr != nil) && (mean != nil || training) &&
		len(x.Shape) >= 3 && (training && n <= 880801 || !training && n <= 65535) && x.Numel() < 1<<31-1
}

// channelsInnermost reports whether PyTorch's batch norm kernels take x
// as channels-last: its channels are the innermost dimension that is
// not 1 (a 2-d input, or a plane of 1x1).
func channelsInnermost(x *Tensor) bool { return numel(x.Shape[2:]) == 1 }

// stagedBlocks is how many blocks PyTorch's channels-last statistics
// kernel splits a batch of n values per channel (c channels) across
// (flexible_launch_configs: blocks of at most 512 threads, 16 values a
// thread, at most 128 blocks, and 1 under 8): more than 1 means a
// float32 buffer of 4 x c x blocks and an int per column of blocks,
// freed after (recorded at 9 shapes: (30000, 16) splits across 59
// blocks, (65536, 8) 64, (131072, 8) and (262144, 8) 128; (8192, 3),
// (1024, 512) and smaller do not).
func stagedBlocks(n, c int64) (blocks, columns int64) {
	const maxBlock, perThread, tileW, maxH = 512, 16, 32, 128
	bx := min(lastPow2(c), tileW)
	by := min(lastPow2((n+perThread-1)/perThread), maxBlock/bx)
	if bx*by != maxBlock {
		bx = min(lastPow2(c), maxBlock/by)
	}
	blocks = min((n+by*perThread-1)/(by*perThread), maxH)
	if blocks < 8 {
		blocks = 1
	}
	return blocks, (c + bx - 1) / bx
}

// lastPow2 is the largest power of 2 not above n (1 for n below 1).
func lastPow2(n int64) int64 {
	p := int64(1)
	for p*2 <= n {
		p *= 2
	}
	return p
}

// batchNorm is F.batch_norm(x, mean, vr, w, b, training).
func (s *Session) batchNorm(x, mean, vr, w, b *Tensor, training bool) (*Tensor, error) {
	if len(x.Shape) < 2 {
		return nil, Errorf(ValueError, "Expected 2D or more input (got %dD input)", len(x.Shape))
	}
	c := x.Shape[1]
	for _, p := range []struct {
		t    *Tensor
		name string
	}{{mean, "running_mean"}, {vr, "running_var"}, {w, "weight"}, {b, "bias"}} {
		if p.t != nil && (p.t.number || !slices.Equal(p.t.Shape, []int64{c})) {
			return nil, Errorf(RuntimeError, "%s should contain %d elements not %d", p.name, c, p.t.Numel())
		}
	}
	dev, err := sameDevice(x, mean, vr, w, b)
	if err != nil {
		return nil, err
	}
	if training && x.Numel()/uint64(c) == 1 {
		return nil, Errorf(ValueError, "Expected more than 1 value per channel when training, got input size torch.Size(%s)", dimList(x.Shape))
	}
	if err := s.batchNormModelled(x, mean, vr, w, b, dev, training); err != nil {
		return nil, err
	}
	k := bnBackward{cudnn: cudnnBatchNorm(x, mean, vr, w, b, training) && training, innermost: channelsInnermost(x)}
	k.evalStats = !training && k.innermost && cudnnBatchNorm(x, mean, vr, w, b, training)
	stat := tensorShape{[]int64{c}, batchNormFloat}
	want := []tensorShape{{x.Shape, x.DType}}
	if training || !cudnnBatchNorm(x, mean, vr, w, b, training) {
		want = append(want, stat, stat)
	}
	outs, err := s.allocAll(dev, want...)
	if err != nil {
		return nil, err
	}
	if training && k.innermost {
		if err := s.stagedStats(dev, int64(x.Numel())/c, c); err != nil {
			for _, t := range outs {
				s.dropTensor(t)
			}
			return nil, err
		}
	}
	if training {
		for _, t := range []*Tensor{mean, vr} {
			if t != nil {
				overwritten(t)
			}
		}
	}
	name := "NativeBatchNormBackward0"
	if cudnnBatchNorm(x, mean, vr, w, b, training) {
		name = "CudnnBatchNormBackward0"
	}
	save := []*Tensor{x}
	for _, t := range append([]*Tensor{w, mean, vr}, outs[1:]...) {
		if t != nil {
			save = append(save, t)
		}
	}
	s.record(name, outs[0], []*Tensor{x, w, b}, save, k.run)
	for _, t := range outs[1:] {
		s.dropTensor(t)
	}
	return outs[0], nil
}

// batchNormModelled refuses what the tool has not recorded: the host,
// float64, an input that is not contiguous, and weights or stats of
// another dtype than float32 or, for a float16 or bfloat16 input, its
// own: those (a model converted by .half()) take PyTorch's own kernel
// (cuDNN takes float32 weights only), which makes its output and float32
// statistics whatever the weights' dtype; in eval that is recorded
// (testdata/pyrules/zoo_paths.py, held statement by statement), in
// training estimated.
func (s *Session) batchNormModelled(x, mean, vr, w, b *Tensor, dev Device, training bool) error {
	if !dev.CUDA {
		return NotModelledError("F.batch_norm on the host")
	}
	if !isFloat(x.DType) || x.DType.Name == "float64" {
		return NotModelledError("F.batch_norm of a " + x.DType.Name + " input")
	}
	if !x.IsContiguous() {
		return NotModelledError("F.batch_norm of a tensor that is not contiguous (the kernels' copy or channels-last layout)")
	}
	own := false
	for _, t := range []*Tensor{mean, vr, w, b} {
		if t == nil || t.DType == batchNormFloat {
			continue
		}
		if t.DType != x.DType || x.DType.Name != "float16" && x.DType.Name != "bfloat16" {
			return NotModelledError("F.batch_norm with " + t.DType.Name + " weights or running stats")
		}
		own = true
	}
	if own && training {
		return s.estimate(NotModelledError("F.batch_norm with "+x.DType.Name+" weights or running stats"), "F.batch_norm",
			"%s with %s weights or running stats: PyTorch's own kernel, modelled as with float32 ones (its output, float32 statistics), not recorded", dimList(x.Shape), x.DType.Name)
	}
	return nil
}

// stagedStats allocates and frees the buffer and semaphores of PyTorch's
// channels-last statistics kernel over n values of c channels, when it
// splits them across blocks.
func (s *Session) stagedStats(dev Device, n, c int64) error {
	blocks, columns := stagedBlocks(n, c)
	if blocks == 1 {
		return nil
	}
	ts, err := s.allocAll(dev, tensorShape{[]int64{4 * c * blocks}, batchNormFloat}, tensorShape{[]int64{columns}, DTypes["int32"]})
	if err != nil {
		return err
	}
	s.dropTensor(ts[1])
	s.dropTensor(ts[0])
	return nil
}

// bnBackward is one of batch norm's backwards.
type bnBackward struct {
	cudnn     bool // cuDNN's (training)
	innermost bool // PyTorch's kernel on an input whose channels are innermost
	evalStats bool // which first computes an inverse std (no saved statistics)
}

// run makes the gradients and temporaries of k in PyTorch's order; the
// temporaries go once all are made, newest first.
func (k bnBackward) run(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	x := n.inputs[0].shape
	stat := tensorShape{[]int64{x[1]}, batchNormFloat}
	// the weight's and bias's gradients are of their dtype
	wstat, bstat := stat, stat
	if d := n.inputs[1].dtype; d.Name != "" {
		wstat.dtype = d
	}
	if d := n.inputs[2].dtype; d.Name != "" {
		bstat.dtype = d
	}
	need := func(i int) bool { return k.cudnn || n.inputs[i].to != nil }
	type made struct {
		shape tensorShape
		grad  int // the input it is the gradient of; -1: a temporary
	}
	var plan []made
	switch {
	case k.cudnn:
		if !g.IsContiguous() {
			plan = append(plan, made{tensorShape{g.Shape, g.DType}, -1})
		}
		plan = append(plan, made{tensorShape{x, g.DType}, 0}, made{stat, 1}, made{stat, 2})
	case k.innermost:
		if k.evalStats {
			plan = append(plan, made{stat, -1})
		}
		plan = append(plan, made{stat, -1}, made{stat, -1})
		if n.inputs[1].shape == nil {
			plan = append(plan, made{tensorShape{[]int64{1}, batchNormFloat}, -1})
		}
		for _, i := range []int{1, 2, 0} {
			if need(i) {
				plan = append(plan, made{[]tensorShape{{x, g.DType}, wstat, bstat}[i], i})
			}
		}
	default:
		for i, sh := range []tensorShape{{x, g.DType}, wstat, bstat} {
			if need(i) {
				plan = append(plan, made{sh, i})
			}
		}
	}
	shapes := make([]tensorShape, len(plan))
	for i, m := range plan {
		shapes[i] = m.shape
	}
	grads := make([]*Tensor, len(n.inputs))
	ts, err := s.allocAll(g.Device(), shapes...)
	if err != nil {
		return grads, err
	}
	for i := len(plan) - 1; i >= 0; i-- {
		if j := plan[i].grad; j >= 0 && n.inputs[j].to != nil {
			grads[j] = ts[i]
		} else {
			s.dropTensor(ts[i])
		}
	}
	return grads, nil
}
