package engine

import (
	"slices"
)

// Ops model code calls by another name, and the ops that are another op
// with another tensor's shape or dtype (expand_as, view_as, reshape_as,
// type_as) or a view written another way (unflatten, movedim,
// broadcast_to): each runs the op it is, so its memory and autograd node
// are that op's (PyTorch's own aliases and composites:
// testdata/pyrules/ops_repeat_shape.py, ops_trig.py); and new_zeros,
// new_ones, new_full and new_empty, factories of the input's dtype and
// device.

// alias is an entry named name that runs op of (looked up when called:
// the table is complete by then), with of's parameters as written here.
func alias(name, of string, function, method bool, params ...Param) *OpDef {
	return &OpDef{Name: name, Function: function, Method: method, Params: append([]Param{input}, params...),
		Memory: "as " + of,
		run:    func(s *Session, a Args) (*Tensor, error) { return Ops[of].run(s, a) }}
}

// asOther is an entry of t.NAME(other) that runs f with other's shape.
func asOther(name, memory string, f func(s *Session, t *Tensor, shape []int64) (*Tensor, error)) *OpDef {
	return &OpDef{Name: name, Method: true, Params: []Param{input, {Name: "other", Kind: TensorParam}}, Memory: memory,
		run: func(s *Session, a Args) (*Tensor, error) { return f(s, a.Tensor(0), slices.Clone(a.Tensor(1).Shape)) }}
}

func init() {
	number := func(name string) Param { return Param{Name: name, Kind: NumberParam, Default: "None"} }
	dim := func(name string) Param { return Param{Name: name, Kind: IntParam} }
	absolute := alias("absolute", "abs", true, true)
	absolute.InPlace = "absolute_"
	absolute.inPlace = func(s *Session, a Args) error { return Ops["abs"].inPlace(s, a) }
	clip := alias("clip", "clamp", true, true, number("min"), number("max"))
	clip.InPlace = "clip_"
	clip.inPlace = func(s *Session, a Args) error { return Ops["clamp"].inPlace(s, a) }
	concat := func(name string) *OpDef {
		return &OpDef{Name: name, Function: true, Params: []Param{{Name: "tensors", Kind: TensorsParam}, {Name: "dim", Kind: IntParam, Default: "0"}},
			Memory: "as cat", run: func(s *Session, a Args) (*Tensor, error) { return Ops["cat"].run(s, a) }}
	}
	// clamp_min and clamp_max are kernels of their own in PyTorch
	// (ClampMinBackward0 saves the input; its backward a mask and the
	// gradient), taken as clamp with one bound, whose rule is recorded;
	// clamp_min recorded by testdata/pyrules/ops_trig.py, clamp_max by
	// ops_repeat_more.py (both held statement by statement)
	bound := func(name string, i int) *OpDef {
		d := &OpDef{Name: name, Function: true, Method: true, InPlace: name + "_", Params: []Param{input, {Name: name[len("clamp_"):], Kind: NumberParam}},
			Memory: "as clamp with one bound",
			run: func(s *Session, a Args) (*Tensor, error) {
				b := Args{a.Tensor(0), nil, nil}
				b[i] = a[1]
				out, err := Ops["clamp"].run(s, b)
				if err == nil && out.fn != nil {
					out.fn.name = map[int]string{1: "ClampMinBackward0", 2: "ClampMaxBackward0"}[i]
				}
				return out, err
			},
			inPlace: func(s *Session, a Args) error { return Ops["clamp"].inPlace(s, Args{a.Tensor(0), a[1], a[1]}) }}
		return d
	}
	declare(bound("clamp_min", 1), bound("clamp_max", 2))
	declare(absolute, clip, concat("concat"), concat("concatenate"),
		alias("divide", "div", true, true, other, Param{Name: "rounding_mode", Kind: StringParam, Default: "None", KeywordOnly: true}),
		alias("swapaxes", "transpose", true, true, dim("axis0"), dim("axis1")),
		alias("swapdims", "transpose", true, true, dim("dim0"), dim("dim1")),
		asOther("expand_as", "view: expand to other's shape, no memory", func(s *Session, t *Tensor, shape []int64) (*Tensor, error) {
			return Ops["expand"].run(s, Args{t, shape})
		}),
		asOther("view_as", "view: view to other's shape", func(s *Session, t *Tensor, shape []int64) (*Tensor, error) {
			return s.View(t, shape)
		}),
		asOther("reshape_as", "reshape to other's shape: a view where the strides allow one, else a dense copy viewed", func(s *Session, t *Tensor, shape []int64) (*Tensor, error) {
			return s.Reshape(t, shape)
		}),
		&OpDef{Name: "type_as", Method: true, Params: []Param{input, {Name: "other", Kind: TensorParam}},
			Memory: "the input itself when other has its dtype, else a copy in other's dtype (ToCopyBackward0)",
			run: func(s *Session, a Args) (*Tensor, error) {
				if t := a.Tensor(0); t.DType.Name == a.Tensor(1).DType.Name {
					return t, nil
				}
				return s.ToDType(a.Tensor(0), a.Tensor(1).DType)
			}},
		&OpDef{Name: "unflatten", Function: true, Method: true, Params: []Param{input, dim("dim"), {Name: "sizes", Kind: DimsParam}},
			Memory: "view: dimension dim split into sizes (one may be -1)",
			run: func(s *Session, a Args) (*Tensor, error) {
				t := a.Tensor(0)
				d, err := dimIndex(a.Int(1), len(t.Shape))
				if err != nil {
					return nil, err
				}
				sizes, err := viewShape(uint64(t.Shape[d]), a.Ints(2))
				if err != nil {
					return nil, Errorf(RuntimeError, "unflatten: Provided sizes %s don't multiply up to the size of dim %d (%d) in the input tensor", dimList(a.Ints(2)), a.Int(1), t.Shape[d])
				}
				return s.View(t, slices.Concat(t.Shape[:d], sizes, t.Shape[d+1:]))
			}},
		&OpDef{Name: "movedim", Function: true, Method: true, Params: []Param{input, dim("source"), dim("destination")},
			Memory: "view: a permutation moving dimension source to destination",
			run: func(s *Session, a Args) (*Tensor, error) {
				t := a.Tensor(0)
				src, err := dimIndex(a.Int(1), len(t.Shape))
				if err != nil {
					return nil, err
				}
				dst, err := dimIndex(a.Int(2), len(t.Shape))
				if err != nil {
					return nil, err
				}
				var order []int64
				for i := range t.Shape {
					if i != src {
						order = append(order, int64(i))
					}
				}
				order = slices.Insert(order, dst, int64(src))
				return s.Permute(t, order)
			}},
		&OpDef{Name: "broadcast_to", Function: true, Method: true, Params: []Param{input, {Name: "size", Kind: DimsParam}},
			Memory: "view: expand, no memory",
			run:    func(s *Session, a Args) (*Tensor, error) { return Ops["expand"].run(s, a) }},
	)
	for _, op := range []string{"zeros", "ones", "empty"} {
		d := factory("new_"+op, "new tensor of the size, of the input's dtype and device unless dtype=, device=", []Param{input, {Name: "size", Kind: DimsParam}}, false,
			func(a Args) (TensorSpec, error) {
				t := a.Tensor(0)
				return TensorSpec{Op: op, Shape: a.Ints(1), DType: t.DType, Device: t.Device()}, nil
			})
		d.Function, d.Method = false, true
		declare(d)
	}
	full := factory("new_full", "new tensor of the size filled with fill_value, of the input's dtype and device unless dtype=, device=",
		[]Param{input, {Name: "size", Kind: DimsParam}, {Name: "fill_value", Kind: NumberParam}}, false,
		func(a Args) (TensorSpec, error) {
			t := a.Tensor(0)
			return TensorSpec{Op: "full", Shape: a.Ints(1), DType: t.DType, Device: t.Device(), Values: []float64{a.Number(2)}}, nil
		})
	full.Function, full.Method = false, true
	// new_tensor(data) is torch.tensor(data) of the input's dtype and
	// device unless dtype=, device=
	data := factory("new_tensor", "new tensor of the data, of the input's dtype and device unless dtype=, device=",
		[]Param{input, {Name: "data", Kind: DataParam}}, false,
		func(a Args) (TensorSpec, error) {
			t, d := a.Tensor(0), a.Data(1)
			return TensorSpec{Op: "tensor", Shape: d.Shape, DType: t.DType, Device: t.Device(), Values: d.Values}, nil
		})
	data.Function, data.Method = false, true
	declare(full, data)
}

// torch.diff(input, n=1, dim=-1): PyTorch's composite, the later
// elements less the earlier (two narrowed views, sub: one new tensor,
// SubBackward0), n times (testdata/pyrules/ops_census_misc.py, held
// statement by statement); prepend= and append= are refused.
func init() {
	declare(&OpDef{Name: "diff", Function: true, Method: true,
		Params: []Param{input, {Name: "n", Kind: IntParam, Default: "1"}, {Name: "dim", Kind: IntParam, Default: "-1"}, optTensor("prepend"), optTensor("append")},
		Memory: "as narrow's views and sub, n times: a new tensor one shorter along dim each time",
		run: func(s *Session, a Args) (*Tensor, error) {
			x, n, dim := a.Tensor(0), a.Int(1), a.Int(2)
			if a.Tensor(3) != nil || a.Tensor(4) != nil {
				return nil, NotModelledError("torch.diff with prepend= or append=")
			}
			if len(x.Shape) == 0 {
				return nil, Errorf(RuntimeError, "diff expects input to be at least one-dimensional")
			}
			if n < 0 {
				return nil, Errorf(RuntimeError, "order must be non-negative but got %d", n)
			}
			out := share(x)
			for range n {
				d, err := dimIndex(dim, len(out.Shape))
				if err != nil {
					s.dropTensor(out)
					return nil, err
				}
				m := max(out.Shape[d]-1, 0)
				// the compiled composite makes -'s right operand first, so
				// its node runs last in backward (ops_census_misc.py line 86)
				lo, err := s.NarrowDim(out, int64(d), 0, m)
				if err != nil {
					s.dropTensor(out)
					return nil, err
				}
				hi, err := s.NarrowDim(out, int64(d), min(1, out.Shape[d]), m)
				if err != nil {
					s.dropAll([]*Tensor{out, lo})
					return nil, err
				}
				next, err := s.Op("sub", hi, lo)
				s.dropAll([]*Tensor{out, hi, lo})
				if err != nil {
					return nil, err
				}
				out = next
			}
			return out, nil
		}})
}
