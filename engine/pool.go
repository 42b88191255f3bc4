package engine

import (
	"fmt"
	"slices"
	"strings"
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

// The poolings as table entries, with PyTorch's signatures: over two
// dimensions recorded, over three (max_pool3d, avg_pool3d) modelled from
// PyTorch's CUDA kernels, which allocate as the two-dimensional ones do
// (held to testdata/pyrules/modules_census.py's recording statement by
// statement). The one-dimensional poolings are
// PyTorch's composites over these (nn_cnn.py).
func init() {
	for _, dims := range []int{2, 3} {
		maxName := fmt.Sprintf("max_pool%dd", dims)
		avgName := fmt.Sprintf("avg_pool%dd", dims)
		defs := []*OpDef{
			functional(&OpDef{Name: maxName,
				Params: []Param{input, intsParam("kernel_size", ""), intsParam("stride", "None"), intsParam("padding", "0"), intsParam("dilation", "1"),
					boolParam("ceil_mode", "False"), boolParam("return_indices", "False")},
				Memory: "the output, then int64 indices of its shape (saved with the input; without grad freed at once); backward makes the input's gradient, then a dense copy of a broadcast gradient, freed after",
				runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
					w, err := windows(maxName, a, dims, 4)
					if err != nil {
						return nil, false, err
					}
					outs, err := s.maxPool(maxName, a.Tensor(0), w, a.Bool(5), a.Bool(6))
					return outs, a.Bool(6), err
				}}),
			functional(&OpDef{Name: avgName,
				Params: []Param{input, intsParam("kernel_size", ""), intsParam("stride", "None"), intsParam("padding", "0"),
					boolParam("ceil_mode", "False"), boolParam("count_include_pad", "True"), {Name: "divisor_override", Kind: IntParam, Default: "None"}},
				Memory: "the output (the input saved); backward makes the input's gradient, then a dense copy of a broadcast gradient, freed after",
				run: func(s *Session, a Args) (*Tensor, error) {
					w, err := windows(avgName, a, dims, -1)
					if err != nil {
						return nil, err
					}
					return s.avgPool(avgName, a.Tensor(0), w, a.Bool(4))
				}}),
		}
		declare(defs...)
	}
	declare(
		functional(&OpDef{Name: "adaptive_avg_pool2d", Params: []Param{input, {Name: "output_size", Kind: DimsParam}},
			Memory: "to 1: a mean over the last two dimensions (backward makes one tensor of the input's shape); else the output (the input saved), backward as avg_pool2d's",
			run: func(s *Session, a Args) (*Tensor, error) {
				size, err := nInts("adaptive_avg_pool2d", "output_size", a, 1, 2, []int64{0, 0})
				if err != nil {
					return nil, err
				}
				if size[0] <= 0 || size[1] <= 0 {
					return nil, Errorf(RuntimeError, "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {%d, %d}", size[0], size[1])
				}
				return s.adaptiveAvgPool2d(a.Tensor(0), [2]int64(size))
			}}),
		// the census's (testdata/pyrules/ops_census_misc.py, held statement
		// by statement): as max_pool2d, the output and its int64 indices
		functional(&OpDef{Name: "adaptive_max_pool2d", Params: []Param{input, {Name: "output_size", Kind: DimsParam}, boolParam("return_indices", "False")},
			Memory: "as max_pool2d: the output, then int64 indices of its shape (saved with the input; without grad freed at once); backward as max_pool2d's",
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				size, err := nInts("adaptive_max_pool2d", "output_size", a, 1, 2, []int64{0, 0})
				if err != nil {
					return nil, false, err
				}
				outs, err := s.adaptiveMaxPool2d(a.Tensor(0), [2]int64(size), a.Bool(2))
				return outs, a.Bool(2), err
			}}),
	)
}

// adaptiveMaxPool2d is F.adaptive_max_pool2d to size (a 0: the input's
// own size there): the output and its indices.
func (s *Session) adaptiveMaxPool2d(x *Tensor, size [2]int64, withIndices bool) ([]*Tensor, error) {
	r := len(x.Shape)
	if r != 3 && r != 4 || slices.Contains(x.Shape[r-3:], 0) {
		return nil, Errorf(RuntimeError, "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: %s", dimList(x.Shape))
	}
	if err := poolModelled("F.adaptive_max_pool2d", x); err != nil {
		return nil, err
	}
	for i, n := range size {
		if n == 0 {
			size[i] = x.Shape[r-2+i]
		}
	}
	shape := append(slices.Clone(x.Shape[:r-2]), size[0], size[1])
	outs, err := s.allocAll(x.Device(), tensorShape{shape, x.DType}, tensorShape{slices.Clone(shape), DTypes["int64"]})
	if err != nil {
		return nil, err
	}
	s.record("AdaptiveMaxPool2DBackward0", outs[0], []*Tensor{x}, []*Tensor{x, outs[1]}, poolBackward)
	if withIndices {
		return outs, nil
	}
	s.dropTensor(outs[1])
	return outs[:1], nil
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

// nInts reads argument i of a pooling over n dimensions as n ints (an
// int, or a sequence of one or n), def when it is None.
func nInts(name, what string, a Args, i, n int, def []int64) ([]int64, error) {
	switch v := a[i].(type) {
	case nil:
		return def, nil
	case int64:
		return slices.Repeat([]int64{v}, n), nil
	case []int64:
		switch len(v) {
		case 1:
			return slices.Repeat(v, n), nil
		case n:
			return v, nil
		case 0:
			if what == "stride" {
				return def, nil
			}
		}
	}
	count := map[int]string{2: "two", 3: "three"}[n]
	return def, Errorf(RuntimeError, "%s: %s must either be a single int, or a tuple of %s ints", name, what, count)
}

// windows reads a pooling's kernel_size, stride (the kernel when None),
// padding and dilation (at 1, 2, 3 and dil; dil < 0: none) over dims
// dimensions.
func windows(name string, a Args, dims, dil int) ([]window, error) {
	k, err := nInts(name, "kernel_size", a, 1, dims, make([]int64, dims))
	if err != nil {
		return nil, err
	}
	st, err := nInts(name, "stride", a, 2, dims, k)
	if err != nil {
		return nil, err
	}
	p, err := nInts(name, "padding", a, 3, dims, make([]int64, dims))
	if err != nil {
		return nil, err
	}
	d := slices.Repeat([]int64{1}, dims)
	if dil >= 0 {
		if d, err = nInts(name, "dilation", a, dil, dims, d); err != nil {
			return nil, err
		}
	}
	w := make([]window, dims)
	for i := range w {
		w[i] = window{k[i], st[i], p[i], d[i]}
		if k[i] <= 0 || st[i] <= 0 || d[i] <= 0 {
			return nil, Errorf(RuntimeError, "%s: kernel_size, stride and dilation must be greater than zero", name)
		}
		if p[i] < 0 || p[i] > k[i]/2 {
			return nil, Errorf(RuntimeError, "pad should be at most half of effective kernel size, but got pad=%d, kernel_size=%d and dilation=%d", p[i], k[i], d[i])
		}
	}
	return w, nil
}

// pooledShape is x's shape pooled by w (over its last len(w)
// dimensions), or PyTorch's error when x has not one or two more
// dimensions than w or the output would be empty.
func pooledShape(x *Tensor, w []window, ceil bool) ([]int64, error) {
	r, dims := len(x.Shape), len(w)
	if r != dims+1 && r != dims+2 || slices.Contains(x.Shape[r-dims-1:], 0) {
		return nil, Errorf(RuntimeError, "non-empty %dD or %dD (batch mode) tensor expected for input", dims+1, dims+2)
	}
	in, out := x.Shape[r-dims-1:], []int64{x.Shape[r-dims-1]}
	small := false
	for i, win := range w {
		n := win.pooled(x.Shape[r-dims+i], ceil)
		small = small || n < 1
		out = append(out, n)
	}
	if small {
		return nil, Errorf(RuntimeError, "Given input size: (%s). Calculated output size: (%s). Output size is too small", sizeX(in), sizeX(out))
	}
	return append(slices.Clone(x.Shape[:r-dims]), out[1:]...), nil
}

// sizeX is a size as PyTorch's pooling errors print it: 8x1x1024.
func sizeX(s []int64) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, "x")
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

// maxPool is F.max_pool2d or F.max_pool3d (name): the output and its
// indices (the indices returned too when withIndices).
func (s *Session) maxPool(name string, x *Tensor, w []window, ceil, withIndices bool) ([]*Tensor, error) {
	shape, err := pooledShape(x, w, ceil)
	if err == nil {
		err = poolModelled("F."+name, x)
	}
	if err != nil {
		return nil, err
	}
	outs, err := s.allocAll(x.Device(), tensorShape{shape, x.DType}, tensorShape{shape, DTypes["int64"]})
	if err != nil {
		return nil, err
	}
	s.record(fmt.Sprintf("MaxPool%dDWithIndicesBackward0", len(w)), outs[0], []*Tensor{x}, []*Tensor{x, outs[1]}, poolBackward)
	if withIndices {
		return outs, nil
	}
	s.dropTensor(outs[1])
	return outs[:1], nil
}

// avgPool is F.avg_pool2d or F.avg_pool3d (name): its output.
func (s *Session) avgPool(name string, x *Tensor, w []window, ceil bool) (*Tensor, error) {
	shape, err := pooledShape(x, w, ceil)
	if err == nil {
		err = poolModelled("F."+name, x)
	}
	if err != nil {
		return nil, err
	}
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	s.record(fmt.Sprintf("AvgPool%dDBackward0", len(w)), out, []*Tensor{x}, []*Tensor{x}, poolBackward)
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
