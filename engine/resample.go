package engine

import (
	"fmt"
	"math"
	"slices"
)

// F.pad and F.interpolate, the census's most used functions the tool
// lacked (testdata/pyrules/ops_pad_interpolate.py, pixel_shuffle
// modules_census.py, pixel_unshuffle modules_census_nn.py: held
// statement by statement by TestRecordedStatements).
//
//   - pad, mode 'constant': PyTorch's constant_pad_nd makes the padded
//     output, fills it and copies the input into its middle: one tensor;
//     its backward is constant_pad_nd of the gradient by the negated
//     pads, one tensor of the input's shape. 'reflect' and 'replicate'
//     make their output the same way; reflect's backward makes the
//     input's gradient (zeroed, then scattered into), then a dense copy
//     of a gradient that is not contiguous, freed after, as the
//     poolings' (poolBackward); replicate's the input's gradient alone.
//     'circular': padCircular.
//   - interpolate, 'nearest', 'nearest-exact', 'bilinear', 'bicubic' and
//     'linear': one output of the resampled size; backward makes the input's
//     gradient, zeroed then scattered into, and a dense copy of a
//     gradient that is not contiguous, as the poolings' (poolBackward).
//   - pixel_shuffle and pixel_unshuffle (nn.PixelShuffle, a
//     super-resolution net's upsampling; modules_census.py): one output,
//     and backward the other of the two on the gradient, one tensor.

func init() {
	declare(
		functional(&OpDef{Name: "pad",
			Params: []Param{input, intsParam("pad", ""), {Name: "mode", Kind: StringParam, Default: "'constant'"}, numberParam("value", "None")},
			Memory: "the padded output; 'constant': backward makes one tensor of the input's shape; 'reflect': backward makes the input's gradient, then a dense copy of a gradient that is not contiguous, freed after; 'replicate': backward makes the input's gradient; 'circular': copies into the output's slices, each a CopySlices node whose backward makes two tensors of the output's shape and two of its slice's",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.pad(a.Tensor(0), a.Ints(1), a.String(2)) }}),
		functional(&OpDef{Name: "interpolate",
			Params: []Param{input, intsParam("size", "None"), numberParam("scale_factor", "None"), {Name: "mode", Kind: StringParam, Default: "'nearest'"},
				boolParam("align_corners", "None"), boolParam("recompute_scale_factor", "None"), boolParam("antialias", "False")},
			Memory: "one output of the resampled size (the input's shape saved); backward makes the input's gradient, then a dense copy of a gradient that is not contiguous, freed after",
			run: func(s *Session, a Args) (*Tensor, error) {
				return s.interpolate(a.Tensor(0), a[1], a[2], a.String(3), a.Bool(6))
			}}),
		&OpDef{Name: "pixel_shuffle", Function: true, Functional: true, Params: []Param{input, {Name: "upscale_factor", Kind: IntParam}},
			Memory: "one output, the input's elements rearranged (reshaped, permuted, copied contiguous); backward pixel_unshuffle of the gradient, one tensor of the input's shape",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.pixelShuffle(a.Tensor(0), a.Int(1), false) }},
		&OpDef{Name: "pixel_unshuffle", Function: true, Functional: true, Params: []Param{input, {Name: "downscale_factor", Kind: IntParam}},
			Memory: "one output, the input's elements rearranged (reshaped, permuted, copied contiguous); backward pixel_shuffle of the gradient, one tensor of the input's shape",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.pixelShuffle(a.Tensor(0), a.Int(1), true) }},
	)
}

// pixelShuffle is F.pixel_shuffle(x, r) (F.pixel_unshuffle when un):
// PyTorch's kernel on the GPU reshapes x to split its channels (or its
// height and width) by r, permutes, and copies the result contiguous.
func (s *Session) pixelShuffle(x *Tensor, r int64, un bool) (*Tensor, error) {
	name, what := "pixel_shuffle", "upscale_factor"
	if un {
		name, what = "pixel_unshuffle", "downscale_factor"
	}
	n := len(x.Shape)
	if n < 3 {
		return nil, Errorf(RuntimeError, "%s expects input to have at least 3 dimensions, but got input with %d dimension(s)", name, n)
	}
	if r <= 0 {
		return nil, Errorf(RuntimeError, "%s expects a positive %s, but got %d", name, what, r)
	}
	shape := slices.Clone(x.Shape)
	c, h, w := shape[n-3], shape[n-2], shape[n-1]
	switch {
	case !un && c%(r*r) != 0:
		return nil, Errorf(RuntimeError, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)=%d is not divisible by %d", c, r*r)
	case un && h%r != 0:
		return nil, Errorf(RuntimeError, "pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)=%d is not divisible by %d", h, r)
	case un && w%r != 0:
		return nil, Errorf(RuntimeError, "pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)=%d is not divisible by %d", w, r)
	case un:
		shape[n-3], shape[n-2], shape[n-1] = c*r*r, h/r, w/r
	default:
		shape[n-3], shape[n-2], shape[n-1] = c/(r*r), h*r, w*r
	}
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	node := "PixelShuffleBackward0"
	if un {
		node = "PixelUnshuffleBackward0"
	}
	s.record(node, out, []*Tensor{x}, nil, likeInput(1))
	return out, nil
}

// padCircular is F.pad(x, pads, 'circular') into shape, as PyTorch's
// _pad_circular makes it (PadNd.cpp): one output, new_empty, then
// copy_ into its slices: the input (sliced along each padded dimension,
// last first: a view, SliceBackward0, cropped where a pad is negative)
// into the middle, then for each padded dimension, last first, its left
// and right pads from the other side of the output itself. Under
// autograd each copy_ into a slice records CopySlices over the output
// (copySlicesBackward), whose source is a SliceBackward0 view of the
// output as the earlier copies left it.
func (s *Session) padCircular(x *Tensor, pads, shape []int64) (*Tensor, error) {
	k := len(pads) / 2
	if k+2 != len(x.Shape) {
		return nil, NotModelledError("F.pad(mode='circular') of an input without a batch dimension")
	}
	for i := range k {
		d := len(shape) - 1 - i
		if pads[2*i] > x.Shape[d] || pads[2*i+1] > x.Shape[d] {
			return nil, Errorf(RuntimeError, "Padding value causes wrapping around more than once.")
		}
	}
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	if !needsGraph(s, []*Tensor{x}) {
		return out, nil
	}
	src := share(x)
	for i := range k {
		d := len(shape) - 1 - i
		lo, hi := max(-pads[2*i], 0), max(-pads[2*i+1], 0)
		v, err := s.NarrowDim(src, int64(d), lo, src.Shape[d]-lo-hi)
		s.dropTensor(src)
		if err != nil {
			s.dropTensor(out)
			return nil, err
		}
		src = v
	}
	s.copySlices(out, src)
	for i := range k {
		d := len(shape) - 1 - i
		l, r, n := pads[2*i], pads[2*i+1], shape[d]
		if l > 0 {
			if err := s.copyWithin(out, d, n-l-max(r, 0), l); err != nil {
				return nil, err
			}
		}
		if r > 0 {
			if err := s.copyWithin(out, d, max(l, 0), r); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// copyWithin is copy_ into a slice of out, under autograd, from n
// slices of its dimension d from start: the source a view of out
// (SliceBackward0), the copy CopySlices over out.
func (s *Session) copyWithin(out *Tensor, d int, start, n int64) error {
	v, err := s.NarrowDim(out, int64(d), start, n)
	if err != nil {
		s.dropTensor(out)
		return err
	}
	s.copySlices(out, v)
	return nil
}

// copySlices records base's node of a copy_ of src, under autograd,
// into a view of base of src's shape, and lets go of src: PyTorch's
// CopySlices, whose backward (copySlicesBackward) makes the base's
// gradient and the view's.
func (s *Session) copySlices(base, src *Tensor) {
	old := base.fn
	s.record("torch::autograd::CopySlices", base, []*Tensor{base, src}, nil, copySlicesBackward(src.Shape))
	s.replaced(base, old)
	s.dropTensor(src)
}

// copySlicesBackward is CopySlices' backward of a copy_ into a view of
// shape view (functions/tensor.cpp): the base's gradient copied into a
// new tensor, the view's part of it cloned contiguous for the copy's
// own backward (CopyBackwards: zeros for the destination's old values,
// when the base had a graph, written back into the base's gradient and
// freed; the clone itself for the source). The base's gradient is freed
// at once where the base had no graph before the copy.
func copySlicesBackward(view []int64) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		ts, err := s.allocAll(g.Device(), tensorShape{n.out, g.DType}, tensorShape{view, g.DType})
		if err != nil {
			return nil, err
		}
		if n.inputs[0].to == nil {
			s.dropTensor(ts[0])
			return []*Tensor{nil, ts[1]}, nil
		}
		z, err := s.alloc(view, g.DType, g.Device())
		if err != nil {
			dropAll(s, ts)
			return nil, err
		}
		s.dropTensor(z)
		return ts, nil
	}
}

// pad is F.pad(x, pads, mode).
func (s *Session) pad(x *Tensor, pads []int64, mode string) (*Tensor, error) {
	if len(pads)%2 != 0 || len(pads)/2 > len(x.Shape) {
		return nil, Errorf(RuntimeError, "Padding length must be divisible by 2 and at most twice the number of dimensions of the input (%d), got %d", len(x.Shape), len(pads))
	}
	shape := slices.Clone(x.Shape)
	for i := 0; i < len(pads)/2; i++ {
		d := len(shape) - 1 - i
		shape[d] += pads[2*i] + pads[2*i+1]
		if shape[d] < 0 {
			return nil, Errorf(RuntimeError, "The input size %d, plus negative padding %d and %d resulted in a negative output size, which is invalid. Check dimension %d of your input.", x.Shape[d], pads[2*i], pads[2*i+1], d)
		}
	}
	if k := len(pads) / 2; mode != "constant" && (k < 1 || len(x.Shape) != k+1 && len(x.Shape) != k+2) {
		// _pad_enum: reflection, replication and circular padding of 1, 2
		// or 3 dimensions, with or without a batch dimension
		return nil, Errorf(NotImplementedError, "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported for now")
	}
	var back backward
	switch mode {
	case "constant":
		back = likeInput(1)
	case "reflect":
		back = poolBackward
	case "replicate":
		back = likeInput(1) // no dense copy of the gradient (ops_pad_interpolate.py)
	case "circular":
		return s.padCircular(x, pads, shape)
	default:
		return nil, Errorf(NotImplementedError, "Unrecognised padding mode %s", mode)
	}
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	node := "ConstantPadNdBackward0"
	if mode != "constant" { // reflection_pad1d for one pair of pads, 2d for two, 3d for three
		node = fmt.Sprintf("%sPad%dDBackward0", map[string]string{"reflect": "Reflection", "replicate": "Replication"}[mode], len(pads)/2)
	}
	var save []*Tensor
	if mode != "constant" {
		save = []*Tensor{x} // reflection_pad2d_backward(grad, self, padding) reads the input
	}
	s.record(node, out, []*Tensor{x}, save, back)
	return out, nil
}

// interpolate is F.interpolate(x, size or scale_factor, mode): the
// output's size is size, or floor(each spatial size * scale_factor).
func (s *Session) interpolate(x *Tensor, size, scale any, mode string, antialias bool) (*Tensor, error) {
	spatial := len(x.Shape) - 2
	node := map[string]string{"nearest": "UpsampleNearest", "nearest-exact": "UpsampleNearestExact", "linear": "UpsampleLinear", "bilinear": "UpsampleBilinear", "bicubic": "UpsampleBicubic"}[mode]
	switch {
	case spatial < 1 || spatial > 2:
		return nil, NotModelledError(fmt.Sprintf("F.interpolate of a %d-d input", len(x.Shape)))
	case node == "" || antialias:
		return nil, NotModelledError("F.interpolate(mode='" + mode + "', antialias=" + fmt.Sprint(antialias) + ")")
	case mode == "linear" && spatial != 1 || (mode == "bilinear" || mode == "bicubic") && spatial != 2:
		return nil, Errorf(NotImplementedError, "Got %dD input, but %s mode needs %dD input", len(x.Shape), mode, map[string]int{"linear": 3, "bilinear": 4, "bicubic": 4}[mode])
	case (size == nil) == (scale == nil):
		return nil, Errorf(ValueError, "either size or scale_factor should be defined")
	}
	shape := slices.Clone(x.Shape)
	for i := range spatial {
		d := 2 + i
		switch v := size.(type) {
		case int64:
			shape[d] = v
		case []int64:
			if len(v) != spatial {
				return nil, Errorf(ValueError, "Input and output must have the same number of spatial dimensions, but got input with spatial dimensions of %s and output size of %s. Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.", dimList(x.Shape[2:]), dimList(v))
			}
			shape[d] = v[i]
		default:
			f, _ := scale.(float64)
			if n, ok := scale.(int64); ok {
				f = float64(n)
			}
			shape[d] = int64(math.Floor(float64(x.Shape[d]) * f))
		}
	}
	out, err := s.alloc(shape, x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	s.record(fmt.Sprintf("%s%dDBackward0", node, spatial), out, []*Tensor{x}, nil, poolBackward)
	return out, nil
}
