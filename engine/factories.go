package engine

import (
	"math"
	"slices"
)

// Factories of the table: tensor, zeros, ones, empty, rand, randn, full
// and arange, the *_like forms (the input's shape, dtype and device unless
// given), full_like, eye, linspace and randint; each
// allocates its output and nothing else (testdata/pyrules/
// ops_factories.py).

// tril and triu make attention masks: a new tensor like the input.
// Their in-place forms (CLIP's mask.triu_(1)) write the tensor through
// the same out= kernel, which reads any strides: nothing allocated
// (triu_ held to testdata/pyrules/ops_census_misc.py statement by
// statement, tril_ to ops_tril.py: under autograd, under no_grad, on a
// transposed view).
func init() {
	for _, name := range []string{"tril", "triu"} {
		node := map[string]string{"tril": "TrilBackward0", "triu": "TriuBackward0"}[name]
		declare(&OpDef{Name: name, Function: true, Method: true, Params: []Param{input, {Name: "diagonal", Kind: IntParam, Default: "0"}},
			Memory:  "new tensor of the input's shape and dtype (a causal mask's); under autograd not modelled; " + name + "_ writes in place, nothing allocated",
			InPlace: name + "_",
			inPlace: func(s *Session, a Args) error {
				x := a.Tensor(0)
				if len(x.Shape) < 2 {
					return Errorf(RuntimeError, "%s: input tensor must have at least 2 dimensions", name+"_")
				}
				vals := triangleValues(x, a.Int(1), name == "triu")
				if err := inPlaceUnary(node, saveNothing, 1)(s, a); err != nil {
					return err
				}
				if vals != nil && x.IsContiguous() && x.Bytes() == x.st.bytes { // the values it wrote, where they are its storage's
					x.st.vals = vals
				}
				return nil
			},
			run: func(s *Session, a Args) (*Tensor, error) {
				x := a.Tensor(0)
				if len(x.Shape) < 2 {
					return nil, Errorf(RuntimeError, "%s: input tensor must have at least 2 dimensions", name)
				}
				if s.gradEnabled && x.requiresGrad() {
					return nil, NotModelledError("Tensor." + name + " of a tensor that requires grad")
				}
				out, err := s.alloc(x.Shape, x.DType, x.Device())
				if err == nil {
					out.st.vals = triangleValues(x, a.Int(1), name == "triu")
				}
				return out, err
			}})
	}
}

// triangleValues are x.triu(diagonal) (upper) or x.tril(diagonal) where
// the tool knows x's values (a mask of full's, compared with another by
// nn.TransformerEncoder's causal check); nil otherwise.
func triangleValues(x *Tensor, diagonal int64, upper bool) knownValues {
	vals, ok := x.Values()
	if !ok || len(vals) == 0 || uint64(len(vals)) > maxKnownValues {
		return nil
	}
	rows, cols := x.Shape[len(x.Shape)-2], x.Shape[len(x.Shape)-1]
	out := make(knownValues, len(vals))
	for i, v := range vals {
		r, c := int64(i)/cols%rows, int64(i)%cols
		if upper && c-r >= diagonal || !upper && c-r <= diagonal {
			out[i] = v
		}
	}
	return out
}

// maxKnownRange is the longest arange whose values the tool keeps.
const maxKnownRange = 1 << 16

// factoryParams are the keywords every factory takes.
var factoryParams = []Param{
	{Name: "dtype", Kind: DTypeParam, Default: "None", KeywordOnly: true},
	{Name: "device", Kind: DeviceParam, Default: "None", KeywordOnly: true},
	{Name: "requires_grad", Kind: BoolParam, Default: "False", KeywordOnly: true},
}

// pinMemory is pin_memory=False, of the factories that take it.
var pinMemory = Param{Name: "pin_memory", Kind: BoolParam, Default: "False", KeywordOnly: true}

// factory is the entry of a factory: params before the keywords
// (factoryParams, then pin_memory when pin), and spec, which says what it
// makes from the arguments (its dtype and device defaulted by the
// keywords).
func factory(name, memory string, params []Param, pin bool, spec func(a Args) (TensorSpec, error)) *OpDef {
	all := append(params, factoryParams...)
	if pin {
		all = append(all, pinMemory)
	}
	return &OpDef{Name: name, Function: true, Params: all, Memory: memory,
		run: func(s *Session, a Args) (*Tensor, error) {
			sp, err := spec(a)
			if err != nil {
				return nil, err
			}
			sp = s.defaulted(params, sp)
			k := len(params)
			sp.DType, sp.Device, sp.RequiresGrad = a.DType(k, sp.DType), a.Device(k+1, sp.Device), a.Bool(k+2)
			sp.Pinned = pin && a.Bool(k+3)
			return s.NewTensor(sp)
		}}
}

// like is the spec of a *_like factory of op: input's shape, dtype and
// device; values are full's fill value.
func like(op string, a Args, values ...float64) TensorSpec {
	t := a.Tensor(0)
	return TensorSpec{Op: op, Shape: slices.Clone(t.Shape), DType: t.DType, Device: t.Device(), Values: values}
}

func init() {
	size := Param{Name: "size", Kind: DimsParam}
	generator := Param{Name: "generator", Kind: GeneratorParam, Default: "None", KeywordOnly: true}
	for _, op := range []string{"zeros", "ones", "empty", "rand", "randn"} {
		params := []Param{size}
		if op == "rand" || op == "randn" {
			params = append(params, generator)
		}
		d := factory(op, "new tensor (float32 unless dtype=)", params, true,
			func(a Args) (TensorSpec, error) { return TensorSpec{Op: op, Shape: a.Ints(0), DType: Float32}, nil })
		if len(params) > 1 {
			d = withGenerator(d, 1)
		}
		declare(d)
	}
	declare(factory("full", "new tensor, its dtype the fill value's (bool, int64 or float32) unless dtype=",
		[]Param{{Name: "size", Kind: DimsParam}, {Name: "fill_value", Kind: NumberParam}}, true,
		func(a Args) (TensorSpec, error) {
			dt := Float32
			switch a[1].(type) {
			case bool:
				dt = boolDType
			case int64:
				dt = DTypes["int64"]
			}
			return TensorSpec{Op: "full", Shape: a.Ints(0), DType: dt, Values: []float64{a.Number(1)}}, nil
		}))
	for _, op := range []string{"zeros", "ones", "empty", "rand", "randn"} {
		declare(factory(op+"_like", "new tensor of the input's shape, dtype and device", []Param{input}, false,
			func(a Args) (TensorSpec, error) { return like(op, a), nil }))
	}
	arange := factory("arange", "new 1-d tensor of ceil((end - start) / step) elements: int64 when every bound is an int, else float32, unless dtype=",
		[]Param{{Name: "start", Kind: NumberParam}, {Name: "end", Kind: NumberParam, Default: "None"}, {Name: "step", Kind: NumberParam, Default: "1"}}, false,
		func(a Args) (TensorSpec, error) {
			start, end := 0.0, a.Number(0) // arange(end)
			if a[1] != nil {
				start, end = a.Number(0), a.Number(1)
			}
			dt := DTypes["int64"]
			for _, v := range a[:3] {
				if _, f := v.(float64); f {
					dt = Float32
				}
			}
			if a.Number(2) == 0 {
				return TensorSpec{}, Errorf(RuntimeError, "step must be nonzero")
			}
			n := math.Ceil((end - start) / a.Number(2))
			if n < 0 || math.IsNaN(n) {
				return TensorSpec{}, Errorf(RuntimeError, "upper bound and larger bound inconsistent with step sign")
			}
			var values []float64 // known for a short range, so print shows them
			for i := 0.0; i < n && n <= maxKnownRange; i++ {
				values = append(values, start+i*a.Number(2))
			}
			return TensorSpec{Op: "tensor", Shape: []int64{int64(n)}, DType: dt, Values: values}, nil
		})
	arange.Usage = "torch.arange(start=0, end, step=1, *, dtype=None, device=None, requires_grad=False)"
	declare(arange, factory("tensor", "new tensor of the data's shape, its dtype the numbers' kind (bool, int64 or float32) unless dtype=; values known",
		[]Param{{Name: "data", Kind: DataParam}}, true,
		func(a Args) (TensorSpec, error) {
			d := a.Data(0)
			return TensorSpec{Op: "tensor", Shape: d.Shape, DType: d.DType, Values: d.Values}, nil
		}))
	integer := func(name, def string) Param { return Param{Name: name, Kind: IntParam, Default: def} }
	declare(
		factory("full_like", "new tensor of the input's shape, dtype and device", []Param{input, {Name: "fill_value", Kind: NumberParam}}, false,
			func(a Args) (TensorSpec, error) { return like("full", a, a.Number(1)), nil }),
		factory("randint_like", "new tensor of the input's shape, dtype and device", []Param{input, integer("low", ""), integer("high", "None")}, false,
			func(a Args) (TensorSpec, error) { return like("rand", a), nil }),
		factory("eye", "new n x m tensor (float32)", []Param{integer("n", ""), integer("m", "None")}, false,
			func(a Args) (TensorSpec, error) {
				m := a.Int(0)
				if a[1] != nil {
					m = a.Int(1)
				}
				if a.Int(0) < 0 || m < 0 {
					return TensorSpec{}, Errorf(RuntimeError, "n must be greater or equal to 0, got %d", min(a.Int(0), m))
				}
				return TensorSpec{Op: "empty", Shape: []int64{a.Int(0), m}, DType: Float32}, nil
			}),
		factory("linspace", "new tensor of steps elements (float32)", []Param{{Name: "start", Kind: NumberParam}, {Name: "end", Kind: NumberParam}, integer("steps", "")}, false,
			func(a Args) (TensorSpec, error) {
				if a.Int(2) < 0 {
					return TensorSpec{}, Errorf(RuntimeError, "number of steps must be non-negative")
				}
				return TensorSpec{Op: "empty", Shape: []int64{a.Int(2)}, DType: Float32}, nil
			}),
		// randint(high, size) or randint(low, high, size): the second
		// parameter is high or the size, told apart by the third
		withGenerator(factory("randint", "new tensor of the size (int64)", []Param{integer("low", ""), {Name: "high", Kind: DimsParam}, {Name: "size", Kind: DimsParam, Default: "None"}, generator}, false,
			func(a Args) (TensorSpec, error) {
				size := a.Ints(2)
				if a[2] == nil {
					size = a.Ints(1)
				}
				return TensorSpec{Op: "rand", Shape: size, DType: DTypes["int64"]}, nil
			}), 3),
	)
	// hann_window(N): PyTorch's arange of N (N + 1 when periodic, then
	// narrowed to N: the storage keeps N + 1), written in place
	// (testdata/pyrules/ops_census_more.py, held statement by statement)
	hann := factory("hann_window", "one tensor of window_length elements (the storage one more when periodic)",
		[]Param{integer("window_length", ""), boolParam("periodic", "True")}, false,
		func(a Args) (TensorSpec, error) {
			n := a.Int(0)
			if n < 0 {
				return TensorSpec{}, Errorf(RuntimeError, "hann_window requires non-negative window_length, got window_length=%d", n)
			}
			if a.Bool(1) && n > 1 {
				n++
			}
			return TensorSpec{Op: "empty", Shape: []int64{n}, DType: Float32}, nil
		})
	made := hann.run
	hann.run = func(s *Session, a Args) (*Tensor, error) {
		t, err := made(s, a)
		if err == nil {
			t.Shape = []int64{a.Int(0)}
			s.written(t)
		}
		return t, err
	}
	declare(hann)
	// tril_indices and triu_indices: the [2, N] int64 coordinates of a
	// triangle (DLRM's pairwise interaction picks them), values known;
	// PyTorch's kernel (TensorFactories.cpp, .cu) allocates the output
	// alone (testdata/pyrules/zoo_layers.py, held statement by statement)
	for _, name := range []string{"tril_indices", "triu_indices"} {
		declare(factory(name, "new [2, N] int64 tensor of the triangle's coordinates, values known",
			[]Param{integer("row", ""), integer("col", ""), integer("offset", "0")}, false,
			func(a Args) (TensorSpec, error) {
				rows, cols := a.Int(0), a.Int(1)
				switch { // PyTorch's words, no space before the number
				case rows < 0:
					return TensorSpec{}, Errorf(RuntimeError, "row must be non-negative, got%d", rows)
				case cols < 0:
					return TensorSpec{}, Errorf(RuntimeError, "col must be non-negative, got%d", cols)
				}
				r, c := triangleCoords(rows, cols, a.Int(2), name == "triu_indices")
				vals := append(r, c...)
				if uint64(len(vals)) > maxKnownValues {
					vals = nil
				}
				return TensorSpec{Op: "tensor", Shape: []int64{2, int64(len(r))}, DType: DTypes["int64"], Values: vals}, nil
			}))
	}
	// a 0-d tensor of the default dtype, as torch.tensor(s) of a float
	// makes it (testdata/pyrules/ops_census_misc.py, held statement by
	// statement)
	declare(factory("scalar_tensor", "a 0-d tensor of the default dtype unless dtype=", []Param{{Name: "s", Kind: NumberParam}}, true,
		func(a Args) (TensorSpec, error) {
			return TensorSpec{Op: "full", DType: Float32, Values: []float64{a.Number(0)}}, nil
		}))
	Ops["randint"].Usage = "torch.randint(low=0, high, size, *, generator=None, dtype=None, device=None, requires_grad=False)"
}

// F.one_hot (testdata/pyrules/ops_repeat_shape.py, held statement
// by statement by TestRecordedStatements): PyTorch's eager kernel, for num_classes=-1 the
// input's max first (a 0-d tensor and the reduction's buffer, freed
// after the value is read: the tool must know the values, else it
// refuses), then int64 zeros of the input's shape and num_classes, the
// ones scattered in place. Not recorded by autograd (integers).
func init() {
	declare(functional(&OpDef{Name: "one_hot", Params: []Param{{Name: "tensor", Kind: TensorParam}, {Name: "num_classes", Kind: IntParam, Default: "-1"}},
		Memory: "int64 zeros of the input's shape and num_classes (num_classes=-1: the input's max first, a 0-d tensor freed after; its values must be known)",
		run: func(s *Session, a Args) (*Tensor, error) {
			x, classes := a.Tensor(0), a.Int(1)
			if x.DType.Name != "int64" {
				return nil, Errorf(RuntimeError, "one_hot is only applicable to index tensor of type LongTensor.")
			}
			vals, known := x.Values()
			switch {
			case x.Numel() == 0 && classes <= 0:
				return nil, Errorf(RuntimeError, "Can not infer total number of classes from empty tensor.")
			case x.Numel() == 0:
			case classes == -1:
				if !known {
					return nil, NotModelledError("F.one_hot without num_classes of a tensor whose values the tool does not know (the output's size is their max + 1)")
				}
				top, _, err := s.RunTuple(Ops["max"], Args{x, nil, false})
				if err != nil {
					return nil, err
				}
				s.dropAll(top)
				classes = int64(slices.Max(vals)) + 1
			case classes < 1 && x.Device().CUDA:
				return nil, Errorf(RuntimeError, "num_classes should be positive")
			}
			if known && x.Numel() > 0 && !x.Device().CUDA {
				switch {
				case slices.Min(vals) < 0:
					return nil, Errorf(RuntimeError, "Class values must be non-negative.")
				case slices.Max(vals) >= float64(classes):
					return nil, Errorf(RuntimeError, "Class values must be smaller than num_classes.")
				}
			}
			out, err := s.alloc(append(slices.Clone(x.Shape), classes), x.DType, x.Device())
			if err != nil {
				return nil, err
			}
			if known && len(vals) > 0 && uint64(len(vals))*uint64(classes) <= maxKnownValues {
				hot := make(knownValues, uint64(len(vals))*uint64(classes))
				for i, v := range vals {
					if v >= 0 && int64(v) < classes {
						hot[int64(i)*classes+int64(v)] = 1
					}
				}
				out.st.vals = hot
			} else if classes > 0 {
				out.st.share = 1 / float64(classes)
			}
			return out, nil
		}}))
}

// triangleCoords are the row and column coordinates, row by row, of the
// elements of a rows x cols matrix on or below (tril) or above (triu)
// the diagonal offset.
func triangleCoords(rows, cols, offset int64, upper bool) (r, c []float64) {
	for i := range rows {
		for j := range cols {
			if upper && j-i >= offset || !upper && j-i <= offset {
				r, c = append(r, float64(i)), append(c, float64(j))
			}
		}
	}
	return r, c
}
