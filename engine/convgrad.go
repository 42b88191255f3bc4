package engine

import (
	"fmt"
	"slices"
	"strings"
)

// A convolution's backward whose incoming gradient is strided (a
// permute or a flatten(2).transpose(1, 2) after the convolution: the
// gradient comes back a view). PyTorch 2.11's convolution_backward
// (Convolution.cpp) hands the gradient as it is to the backend, and
// each makes it dense its own way:
//
//   - cuDNN (cudnn_convolution_backward, cudnn/ConvShared.cpp):
//     grad_output.to(input.suggest_memory_format()) once, before either
//     pass, where the gradient's suggested memory format is not the
//     input's (a channels_last-like gradient of a contiguous input),
//     freed when both passes are done; otherwise each pass makes its own
//     .contiguous() copy, freed when it returns (as the recorded
//     broadcast gradients show: withDenseGradient);
//   - cuDNN, transposed (cudnn_convolution_transpose_backward):
//     grad_output.contiguous(input.suggest_memory_format()) once;
//   - PyTorch's depthwise kernel (conv_depthwise2d_backward_cuda_out,
//     cuda/DepthwiseConv2d.cu): grad_output.expect_contiguous() once,
//     before the weight's and the input's gradients.
//
// The bias's gradient, grad_output.sum over every dimension but the
// channels, comes after and reads the gradient as it is: a reduction
// over its strides, with a buffer across blocks where its launch needs
// one (reduce_outer.go). What was recorded: gradientCopy.

// convCopy is how a backend makes a strided incoming gradient dense.
type convCopy int

const (
	copyEachPass convCopy = iota // each cuDNN pass its own copy
	copyOnce                     // one copy before the passes, freed after them
)

// gradientCopy is how e's backend makes g, a strided incoming gradient,
// dense for a backward of mask, and, where that way was not recorded
// for mask, the estimate's cause. Recorded (testdata/pyrules): cuDNN's
// one copy of a channels_last-like gradient for the weight's gradient
// (clip_train), the input's and weight's, and all three
// (conv_strided_grad.py, a conv1d's too), and the weight's and bias's
// (zoo_paths.py: vit_train's patch embedding); cuDNN's copy for each pass
// of a gradient taken for contiguous, for all three; the transposed
// convolution's one copy, for all three; the depthwise kernel's, for
// all three (zoo_paths.py) and for the weight's and bias's; a float16
// depthwise convolution's one copy of a channels_last-like gradient,
// for all three (cuDNN's, by the workload: its copy is the kernel's).
func (e *convEntry) gradientCopy(g *Tensor, mask string) (convCopy, string) {
	c := &e.cfg
	depthwise := !c.transposed && len(c.x) != 5 && c.groups > 1 && c.groups == c.x[1]
	lastLike := g.strides != nil && channelsLastLike(convGradient4d(g))
	const cudnnOnce = "cuDNN's one copy (grad_output.to(input.suggest_memory_format()))"
	how, way, recorded := copyOnce, cudnnOnce, []string{"w", "wb", "xw", "xwb"}
	switch {
	case c.transposed:
		way, recorded = "cudnn_convolution_transpose_backward's one copy (grad_output.contiguous())", []string{"xwb"}
	case depthwise && c.dtype.Name == "float16" && !lastLike:
		return copyOnce, "a float16 depthwise convolution of a gradient PyTorch takes for contiguous, which cuDNN copies for each pass and PyTorch's own kernel once, PyTorch picking one by the workload (use_cudnn_depthwise): taken as its own kernel's one copy, not recorded"
	case depthwise && c.dtype.Name == "float16":
		way, recorded = "a float16 depthwise convolution's one copy (cuDNN's or PyTorch's own kernel's, by the workload)", []string{"xwb"}
	case depthwise:
		way, recorded = "PyTorch's depthwise kernel's one copy (expect_contiguous)", []string{"wb", "xwb"}
	case len(c.x) == 5 && c.groups > 1 && c.groups == c.x[1]:
		return copyOnce, "a 3-d depthwise convolution (PyTorch's conv_depthwise3d kernel), taken as the 2-d one's one copy, not recorded"
	case g.strides == nil:
		return copyEachPass, "a gradient whose strides the tool does not follow, taken as copied for each cuDNN pass, not recorded"
	case !lastLike:
		how, way, recorded = copyEachPass, "a copy for each cuDNN pass of a gradient PyTorch takes for contiguous (suggest_memory_format)", []string{"xwb"}
	}
	if slices.Contains(recorded, mask) {
		return how, ""
	}
	return how, fmt.Sprintf("%s, recorded for the gradients of %s, not of %s", way, strings.Join(recorded, " and of "), mask)
}

// convGradient4d is g's shape and strides as convolution_backward sees
// them: a 1-d convolution's unsqueezed at dimension 2 (view4d).
func convGradient4d(g *Tensor) ([]int64, []int64) {
	shape, strides := g.Shape, g.Strides()
	if len(shape) == 3 {
		shape = []int64{shape[0], shape[1], 1, shape[2]}
		strides = []int64{strides[0], strides[1], g.Shape[2] * strides[2], strides[2]}
	}
	return shape, strides
}

// channelsLastLike is whether PyTorch's suggest_memory_format of a 4-d
// or 5-d tensor of shape and strides says channels_last
// (is_channels_last_strides_2d_s4 and _3d_s5 in c10's MemoryFormat.h):
// the channels the fastest-moving dimension, then the spatial ones from
// the last, then the batch, each at least as far apart as the one
// before spans; a zero channel stride, and a batch as close as the
// channels, say contiguous.
func channelsLastLike(shape, strides []int64) bool {
	order := map[int][]int{4: {1, 3, 2, 0}, 5: {1, 4, 3, 2, 0}}[len(shape)]
	if order == nil || strides[1] == 0 {
		return false
	}
	least := int64(0)
	for _, d := range order {
		if shape[d] == 0 || strides[d] < least || d == 0 && least == strides[1] {
			return false
		}
		least = strides[d]
		if shape[d] > 1 {
			least *= shape[d]
		}
	}
	return true
}

// stridedGradient is the backward events of e (those of a dense
// incoming gradient, which the table holds) made those of g, a strided
// one, for a backward of mask: its dense copies (gradientCopy), and the
// events after the bias's gradient (its sum's buffer, of a dense
// gradient) left out where the sum over g launches otherwise, since it
// is then made apart (biasGradientTemps).
func (s *Session) stridedGradient(op string, e *convEntry, g *Tensor, mask string, events []convEvent) ([]convEvent, error) {
	how, cause := e.gradientCopy(g, mask)
	if cause != "" {
		if err := s.estimate(nil, op+" backward", "%s with an incoming gradient that is not contiguous: %s", e.cfg.brief(), cause); err != nil {
			return nil, err
		}
	}
	if i := slices.IndexFunc(events, func(ev convEvent) bool { return ev.alloc && ev.kept && ev.role == 'b' }); i >= 0 && !sameIteration(g, biasSumDims(g)) {
		events = events[:i+1]
	}
	if how == copyEachPass {
		return withDenseGradient(events, e.yBytes), nil
	}
	return withGradientCopy(events, e.yBytes), nil
}

// withGradientCopy is a phase's events after one dense copy of the
// incoming gradient (y bytes) made before the backend's passes and freed
// when they are done, before the bias's gradient.
func withGradientCopy(events []convEvent, yBytes uint64) []convEvent {
	id := len(events) + 1 // beyond every id of the phase's
	out := []convEvent{{alloc: true, bytes: yBytes, id: id}}
	freed := false
	for _, e := range events {
		if e.alloc && e.kept && e.role == 'b' {
			out = append(out, convEvent{bytes: yBytes, id: id})
			freed = true
		}
		out = append(out, e)
	}
	if !freed {
		out = append(out, convEvent{bytes: yBytes, id: id})
	}
	return renumbered(out)
}

// biasSumDims are the dimensions the bias's gradient sums g over: all
// but the channels.
func biasSumDims(g *Tensor) []int {
	var dims []int
	for d := range g.Shape {
		if d != 1 {
			dims = append(dims, d)
		}
	}
	return dims
}

// biasGradientTemps allocates and frees what the bias's gradient of a
// strided incoming gradient g takes besides itself: the sum over every
// dimension but the channels, a reduction along g's strides; nothing
// where it launches as a dense gradient's does (a channel slice of a
// concatenation's gradient: the table's events stay, stridedGradient).
func (s *Session) biasGradientTemps(op string, e *convEntry, g *Tensor) error {
	dims := biasSumDims(g)
	switch {
	case sameIteration(g, dims):
		return nil
	case reductionLayout(g, dims).inner:
		names := make([]string, len(dims))
		for i, d := range dims {
			names[i] = fmt.Sprint(d)
		}
		return s.estimate(nil, op+" backward", "%s: the bias's gradient, a sum over dimensions (%s) of an incoming gradient whose fastest-moving dimension is one summed, taken to need no buffer across blocks (that launch is not modelled)", e.cfg.brief(), strings.Join(names, ", "))
	}
	return s.outerReductionTemps(g, dims, opmath(g.DType))
}
