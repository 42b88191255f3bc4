package engine

import (
	"fmt"
	"math"
	"slices"
)

// F.pad and F.interpolate, the census's most used functions the tool
// lacked (testdata/pyrules/ops_pad_interpolate.py, pixel_shuffle
// modules_census.py: held statement by statement by
// TestRecordedStatements; pixel_unshuffle not yet recorded, estimated).
//
//   - pad, mode 'constant': PyTorch's constant_pad_nd makes the padded
//     output, fills it and copies the input into its middle: one tensor;
//     its backward is constant_pad_nd of the gradient by the negated
//     pads, one tensor of the input's shape. 'reflect' and 'replicate'
//     make their output the same way; reflect's backward makes the
//     input's gradient (zeroed, then scattered into), then a dense copy
//     of a gradient that is not contiguous, freed after, as the
//     poolings' (poolBackward); replicate's the input's gradient alone.
//     'circular' (cat's copies) is refused.
//   - interpolate, 'nearest', 'nearest-exact', 'bilinear' and 'linear':
//     one output of the resampled size; backward makes the input's
//     gradient, zeroed then scattered into, and a dense copy of a
//     gradient that is not contiguous, as the poolings' (poolBackward).
//   - pixel_shuffle and pixel_unshuffle (nn.PixelShuffle, a
//     super-resolution net's upsampling; modules_census.py): one output,
//     and backward the other of the two on the gradient, one tensor.

func init() {
	declare(
		functional(&OpDef{Name: "pad",
			Params: []Param{input, intsParam("pad", ""), {Name: "mode", Kind: StringParam, Default: "'constant'"}, numberParam("value", "None")},
			Memory: "the padded output; 'constant': backward makes one tensor of the input's shape; 'reflect': backward makes the input's gradient, then a dense copy of a gradient that is not contiguous, freed after; 'replicate': backward makes the input's gradient",
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
		estimated(&OpDef{Name: "pixel_unshuffle", Function: true, Functional: true, Params: []Param{input, {Name: "downscale_factor", Kind: IntParam}},
			Memory: "one output, the input's elements rearranged (reshaped, permuted, copied contiguous); backward pixel_shuffle of the gradient, one tensor of the input's shape",
			run:    func(s *Session, a Args) (*Tensor, error) { return s.pixelShuffle(a.Tensor(0), a.Int(1), true) }}),
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
	var back backward
	switch mode {
	case "constant":
		back = likeInput(1)
	case "reflect":
		back = poolBackward
	case "replicate":
		back = likeInput(1) // no dense copy of the gradient (ops_pad_interpolate.py)
	case "circular":
		return nil, NotModelledError("F.pad(mode='circular')")
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
	node := map[string]string{"nearest": "UpsampleNearest", "nearest-exact": "UpsampleNearestExact", "linear": "UpsampleLinear", "bilinear": "UpsampleBilinear"}[mode]
	switch {
	case spatial < 1 || spatial > 2:
		return nil, NotModelledError(fmt.Sprintf("F.interpolate of a %d-d input", len(x.Shape)))
	case node == "" || antialias:
		return nil, NotModelledError("F.interpolate(mode='" + mode + "', antialias=" + fmt.Sprint(antialias) + ")")
	case mode == "linear" && spatial != 1 || mode == "bilinear" && spatial != 2:
		return nil, Errorf(NotImplementedError, "Got %dD input, but %s mode needs %dD input", len(x.Shape), mode, map[string]int{"linear": 3, "bilinear": 4}[mode])
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
