package engine

import (
	"fmt"
	"slices"
)

// Pooling over the last two dimensions of a (C, H, W) or (N, C, H, W)
// tensor (testdata/pyrules/cnn_pool.py, cnn_probe.txt):
//
//   - max_pool2d makes its output, then int64 indices of the output's
//     shape, on the GPU always (PyTorch runs max_pool2d_with_indices
//     there); the node saves input and indices (without grad the indices
//     go at once). Backward makes the input's gradient (zeroed, then
//     scattered into), then a dense copy of a gradient that is not
//     contiguous (a sum's broadcast), freed after.
//   - avg_pool2d makes its output and saves its input; backward makes
//     the gradient as max pooling's does.
//   - adaptive_avg_pool2d to 1x1 is a mean over the last two
//     dimensions (MeanBackward1: backward makes one tensor of the
//     input's shape); to another size its own kernel, whose backward
//     makes the gradient as the other poolings' do.

// The poolings as table entries, with PyTorch's signatures.
func init() {
	declare(
		functional(&OpDef{Name: "max_pool2d",
			Params: []Param{input, intsParam("kernel_size", ""), intsParam("stride", "None"), intsParam("padding", "0"), intsParam("dilation", "1"),
				boolParam("ceil_mode", "False"), boolParam("return_indices", "False")},
			Memory: "the output, then int64 indices of its shape (saved with the input; without grad freed at once); backward makes the input's gradient, then a dense copy of a broadcast gradient, freed after",
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				w, err := windows("max_pool2d", a, 4)
				if err != nil {
					return nil, false, err
				}
				outs, err := s.maxPool2d(a.Tensor(0), w, a.Bool(5), a.Bool(6))
				return outs, a.Bool(6), err
			}}),
		functional(&OpDef{Name: "avg_pool2d",
			Params: []Param{input, intsParam("kernel_size", ""), intsParam("stride", "None"), intsParam("padding", "0"),
				boolParam("ceil_mode", "False"), boolParam("count_include_pad", "True"), {Name: "divisor_override", Kind: IntParam, Default: "None"}},
			Memory: "the output (the input saved); backward makes the input's gradient, then a dense copy of a broadcast gradient, freed after",
			run: func(s *Session, a Args) (*Tensor, error) {
				w, err := windows("avg_pool2d", a, -1)
				if err != nil {
					return nil, err
				}
				return s.avgPool2d(a.Tensor(0), w, a.Bool(4))
			}}),
		functional(&OpDef{Name: "adaptive_avg_pool2d", Params: []Param{input, {Name: "output_size", Kind: DimsParam}},
			Memory: "to 1: a mean over the last two dimensions (backward makes one tensor of the input's shape); else the output (the input saved), backward as avg_pool2d's",
			run: func(s *Session, a Args) (*Tensor, error) {
				size, err := twoInts("adaptive_avg_pool2d", "output_size", a, 1, [2]int64{})
				if err != nil {
					return nil, err
				}
				if size[0] <= 0 || size[1] <= 0 {
					return nil, Errorf(RuntimeError, "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {%d, %d}", size[0], size[1])
				}
				return s.adaptiveAvgPool2d(a.Tensor(0), size)
			}}),
	)
}

// window is one dimension of a pooling: kernel, stride, padding,
// dilation.
type window struct{ kernel, stride, pad, dilation int64 }

// pooled is the output size of a dimension of size n, as PyTorch's
// pooling_output_shape computes it.
func (w window) pooled(n int64, ceil bool) int64 {
	num := n + 2*w.pad - w.dilation*(w.kernel-1) - 1
	if ceil {
		num += w.stride - 1
	}
	out := floorDiv(num, w.stride) + 1
	if ceil && (out-1)*w.stride >= n+w.pad {
		out-- // the last window would start in the padding
	}
	return out
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// twoInts reads argument i of a pooling as two ints (an int, or a
// sequence of one or two), def when it is None.
func twoInts(name, what string, a Args, i int, def [2]int64) ([2]int64, error) {
	switch v := a[i].(type) {
	case nil:
		return def, nil
	case int64:
		return [2]int64{v, v}, nil
	case []int64:
		switch len(v) {
		case 1:
			return [2]int64{v[0], v[0]}, nil
		case 2:
			return [2]int64{v[0], v[1]}, nil
		case 0:
			if what == "stride" {
				return def, nil
			}
		}
	}
	return def, Errorf(RuntimeError, "%s: %s must either be a single int, or a tuple of two ints", name, what)
}

// windows reads a pooling's kernel_size, stride (the kernel when None),
// padding and dilation (at 1, 2, 3 and dil; dil < 0: none).
func windows(name string, a Args, dil int) ([2]window, error) {
	var w [2]window
	k, err := twoInts(name, "kernel_size", a, 1, [2]int64{})
	if err != nil {
		return w, err
	}
	st, err := twoInts(name, "stride", a, 2, k)
	if err != nil {
		return w, err
	}
	p, err := twoInts(name, "padding", a, 3, [2]int64{})
	if err != nil {
		return w, err
	}
	d := [2]int64{1, 1}
	if dil >= 0 {
		if d, err = twoInts(name, "dilation", a, dil, d); err != nil {
			return w, err
		}
	}
	for i := range w {
		w[i] = window{k[i], st[i], p[i], d[i]}
		if k[i] <= 0 || st[i] <= 0 || d[i] <= 0 {
			return w, Errorf(RuntimeError, "%s: kernel_size, stride and dilation must be greater than zero", name)
		}
		if p[i] < 0 || p[i] > k[i]/2 {
			return w, Errorf(RuntimeError, "pad should be at most half of effective kernel size, but got pad=%d, kernel_size=%d and dilation=%d", p[i], k[i], d[i])
		}
	}
	return w, nil
}

// pooledShape is x's shape pooled by w, or PyTorch's error when x is
// not 3-d or 4-d or the output would be empty.
func pooledShape(name string, x *Tensor, w [2]window, ceil bool) ([]int64, error) {
	r := len(x.Shape)
	if r != 3 && r != 4 || slices.Contains(x.Shape[r-3:], 0) {
		return nil, Errorf(RuntimeError, "non-empty 3D or 4D (batch mode) tensor expected for input")
	}
	h, wd := x.Shape[r-2], x.Shape[r-1]
	oh, ow := w[0].pooled(h, ceil), w[1].pooled(wd, ceil)
	if oh < 1 || ow < 1 {
		return nil, Errorf(RuntimeError, "Given input size: (%dx%dx%d). Calculated output size: (%dx%dx%d). Output size is too small", x.Shape[r-3], h, wd, x.Shape[r-3], oh, ow)
	}
	return append(slices.Clone(x.Shape[:r-2]), oh, ow), nil
}

// poolModelled refuses a pooling the tool has not recorded: on the
// host, or of a tensor that is not contiguous (the kernel's copy, or a
// channels-last layout).
func poolModelled(name string, x *Tensor) error {
	switch {
	case !x.Device().CUDA:
		return NotModelledError(name + " on the host")
	case !x.IsContiguous():
		return NotModelledError(name + " of a tensor that is not contiguous")
	}
	return nil
}

// maxPool2d is F.max_pool2d: the output and its indices (the indices
// returned too when withIndices).
func (s *Session) maxPool2d(x *Tensor, w [2]window, ceil, withIndices bool) ([]*Tensor, error) {
	shape, err := pooledShape("max_pool2d", x, w, ceil)
	if err == nil {
		err = poolModelled("F.max_pool2d", x)
	}
	if err != nil {
		return nil, err
	}
	outs, err := s.allocAll(x.Device(), tensorShape{shape, x.DType}, tensorShape{shape, DTypes["int64"]})
	if err != nil {
		return nil, err
	}
	s.record("MaxPool2DWithIndicesBackward0", outs[0], []*Tensor{x}, []*Tensor{x, outs[1]}, poolBackward)
	if withIndices {
		return outs, nil
	}
	s.dropTensor(outs[1])
	return outs[:1], nil
}

// avgPool2d is F.avg_pool2d: its output.
func (s *Session) avgPool2d(x *Tensor, w [2]window, ceil bool) (*Tensor, error) {
	shape, err := pooledShape("avg_pool2d", x, w, ceil)
	if err == nil {
		err = poolModelled("F.avg_pool2d", x)
	}
	if err != nil {
		return nil, err
	}
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	s.record("AvgPool2DBackward0", out, []*Tensor{x}, []*Tensor{x}, poolBackward)
	return out, nil
}

// adaptiveAvgPool2d is F.adaptive_avg_pool2d to size (a 0: the input's
// own size there).
func (s *Session) adaptiveAvgPool2d(x *Tensor, size [2]int64) (*Tensor, error) {
	r := len(x.Shape)
	if r != 3 && r != 4 || slices.Contains(x.Shape[r-3:], 0) {
		return nil, Errorf(RuntimeError, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got %s", dimList(x.Shape))
	}
	if err := poolModelled("F.adaptive_avg_pool2d", x); err != nil {
		return nil, err
	}
	for i, n := range size {
		if n == 0 {
			size[i] = x.Shape[r-2+i]
		}
	}
	shape := append(slices.Clone(x.Shape[:r-2]), size[0], size[1])
	if size == [2]int64{1, 1} {
		return s.spatialMean(x, shape)
	}
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	s.record("AdaptiveAvgPool2DBackward0", out, []*Tensor{x}, []*Tensor{x}, poolBackward)
	return out, nil
}

// maxSpatialMean is the largest plane (H x W) whose mean the tool
// models: the reduction kernel sums planes up to 224x224 without a
// buffer across blocks (recorded: 6x6 to 224x224, 1x1024, float32 and
// bfloat16); larger ones are not recorded.
const maxSpatialMean = 224 * 224

// spatialMean is x.mean((-1, -2), keepdim=True), adaptive pooling to 1.
func (s *Session) spatialMean(x *Tensor, shape []int64) (*Tensor, error) {
	r := len(x.Shape)
	if x.Shape[r-1]*x.Shape[r-2] > maxSpatialMean {
		return nil, NotModelledError(fmt.Sprintf("adaptive_avg_pool2d to 1 of a plane of more than %d elements (the mean's buffer across blocks)", maxSpatialMean))
	}
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	s.record("MeanBackward1", out, []*Tensor{x}, nil, likeInput(1))
	return out, nil
}

// poolBackward is a pooling's backward: the input's gradient, then a
// dense copy of a gradient that is not contiguous, freed after.
func poolBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	grad, err := s.alloc(n.inputs[0].shape, g.DType, g.Device())
	if err != nil || g.IsContiguous() {
		return []*Tensor{grad}, err
	}
	tmp, err := s.alloc(g.Shape, g.DType, g.Device())
	if err != nil {
		s.dropTensor(grad)
		return []*Tensor{nil}, err
	}
	s.dropTensor(tmp)
	return []*Tensor{grad}, nil
}
