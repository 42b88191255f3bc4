package engine

import (
	"math"
	"slices"
)

// The values of comparisons, one-input math and reductions of tensors
// whose values the tool knows (testdata/pyrules/ops_values_ops.py): each
// computed in float64 from the known values and converted to the
// result's dtype as PyTorch converts (convertValues); unknown (nil)
// whenever an input's are, past maxKnownValues elements, or where the
// result is not dense in order.

// unaryFuncs are the one-input ops whose values the tool computes.
var unaryFuncs = map[string]func(float64) float64{
	"neg":     func(v float64) float64 { return -v },
	"abs":     math.Abs,
	"relu":    func(v float64) float64 { return max(v, 0) },
	"exp":     math.Exp,
	"log":     math.Log,
	"sqrt":    math.Sqrt,
	"sigmoid": func(v float64) float64 { return 1 / (1 + math.Exp(-v)) },
	"tanh":    math.Tanh,
	"square":  func(v float64) float64 { return v * v },
	"sin":     math.Sin,
	"cos":     math.Cos,
	"rsqrt":   func(v float64) float64 { return 1 / math.Sqrt(v) },
	"erf":     math.Erf,
	"atan":    math.Atan,
	"log2":    math.Log2,
	"log10":   math.Log10,
	"expm1":   math.Expm1,
	"sign": func(v float64) float64 {
		if v > 0 {
			return 1
		} else if v < 0 {
			return -1
		}
		return v
	},
}

// mapValues are out's values, f of each of x's, when x's are known.
func mapValues(x, out *Tensor, f func(float64) float64) knownValues {
	vals, ok := x.Values()
	if !ok || len(vals) == 0 || len(vals) > maxKnownValues || !out.IsContiguous() {
		return nil
	}
	r := make(knownValues, len(vals))
	for i, v := range vals {
		r[i] = f(v)
	}
	return convertValues(r, out.DType)
}

// compareValues are the bool values of a comparison (eq, ne, lt, le, gt,
// ge) of known operands.
func compareValues(op string, a, b, out *Tensor) knownValues {
	n := out.Numel()
	if n == 0 || n > maxKnownValues || !out.IsContiguous() {
		return nil
	}
	x, okx := comparedValues(a, out)
	y, oky := comparedValues(b, out)
	if !okx || !oky {
		return nil
	}
	test := map[string]func(u, v float64) bool{
		"eq": func(u, v float64) bool { return u == v }, "ne": func(u, v float64) bool { return u != v },
		"lt": func(u, v float64) bool { return u < v }, "le": func(u, v float64) bool { return u <= v },
		"gt": func(u, v float64) bool { return u > v }, "ge": func(u, v float64) bool { return u >= v },
	}[op]
	vals := make(knownValues, n)
	for i := range n {
		if test(x(i), y(i)) {
			vals[i] = 1
		}
	}
	return vals
}

// comparedValues is a compared operand's element i of out: a Python
// number of either kind compares by its value.
func comparedValues(t, out *Tensor) (func(uint64) float64, bool) {
	if t.number {
		if !t.numKnown {
			return nil, false
		}
		v := t.num
		return func(uint64) float64 { return v }, true
	}
	return operandValues(t, out)
}

// reduceValues are the values of reduction r of x along dimension d
// (-1: every element): the results, and for max and min the indices
// of the first extreme; nil when x's values are not known.
func reduceValues(r reduceOp, x *Tensor, d int, out DType) (vals, indices knownValues) {
	xs, ok := x.Values()
	if !ok || len(xs) == 0 || len(xs) > maxKnownValues {
		return nil, nil
	}
	outer, n, inner := 1, len(xs), 1
	if d >= 0 {
		outer, n, inner = int(numel(x.Shape[:d])), int(x.Shape[d]), int(numel(x.Shape[d+1:]))
	}
	line := make([]float64, n)
	for o := range outer {
		for i := range inner {
			for k := range n {
				line[k] = xs[(o*n+k)*inner+i]
			}
			v, at := reduceLine(r.name, line, r.correction)
			vals, indices = append(vals, v), append(indices, float64(at))
		}
	}
	return convertValues(vals, out), indices
}

// reduceLine is reduction name of one line of values, and the index of
// the first max or min (argmax, argmin: the index is the value);
// correction is var's and std's (n - correction divides the squares).
func reduceLine(name string, line []float64, correction float64) (float64, int) {
	sum, at := 0.0, 0
	for i, v := range line {
		sum += v
		if name == "max" || name == "argmax" {
			if v > line[at] {
				at = i
			}
		} else if v < line[at] {
			at = i
		}
	}
	n := float64(len(line))
	mean := sum / n
	squares := 0.0
	for _, v := range line {
		squares += (v - mean) * (v - mean)
	}
	switch name {
	case "sum":
		return sum, 0
	case "any", "all":
		return anyAll(name, line), 0
	case "mean":
		return mean, 0
	case "max", "min":
		return line[at], at
	case "argmax", "argmin":
		return float64(at), at
	case "norm":
		norm := 0.0
		for _, v := range line {
			norm += v * v
		}
		return math.Sqrt(norm), 0
	case "var":
		return squares / (n - correction), 0
	case "std":
		return math.Sqrt(squares / (n - correction)), 0
	}
	return math.NaN(), 0
}

// anyAll is any or all of line: 1 for true, 0 for false.
func anyAll(name string, line []float64) float64 {
	for _, v := range line {
		if (v != 0) == (name == "any") {
			return boolValue(name == "any")
		}
	}
	return boolValue(name == "all")
}

// cumsumValues are x.cumsum(d)'s values when x's are known.
func cumsumValues(x *Tensor, d int, out DType) knownValues {
	xs, ok := x.Values()
	if !ok || len(xs) == 0 || len(xs) > maxKnownValues {
		return nil
	}
	n, inner := int(x.Shape[d]), int(numel(x.Shape[d+1:]))
	r := make(knownValues, len(xs))
	for o := range int(numel(x.Shape[:d])) {
		for i := range inner {
			sum := 0.0
			for k := range n {
				j := (o*n+k)*inner + i
				sum += xs[j]
				r[j] = sum
			}
		}
	}
	return convertValues(r, out)
}

// whereValues are where(c, a, b)'s values: a's element where c's is
// true, else b's, converted to out's dtype.
func whereValues(c, a, b, out *Tensor) knownValues {
	n := out.Numel()
	if n == 0 || n > maxKnownValues || !out.IsContiguous() {
		return nil
	}
	cond, okc := comparedValues(c, out)
	x, okx := comparedValues(a, out)
	y, oky := comparedValues(b, out)
	if !okc || !okx || !oky {
		return nil
	}
	vals := make(knownValues, n)
	for i := range n {
		vals[i] = y(i)
		if cond(i) != 0 {
			vals[i] = x(i)
		}
	}
	return convertValues(vals, out.DType)
}

// clampValues are x.clamp(lo, hi)'s values (a nil bound is none).
func clampValues(x, out *Tensor, lo, hi any) knownValues {
	return mapValues(x, out, func(v float64) float64 {
		if l, ok := numberOf(lo); ok {
			v = max(v, l)
		}
		if h, ok := numberOf(hi); ok {
			v = min(v, h)
		}
		return v
	})
}

// numberOf is an Args number's value; false for None.
func numberOf(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// rpow is base ** x for a Python number base (PowBackward2): a new
// tensor, after the number is wrapped as an 8-byte tensor on x's device
// and freed; saves the result; backward makes grad * result (a
// temporary), then the gradient (testdata/pyrules/ops_floordiv_addmm.py).
func (s *Session) rpow(base float64, x *Tensor) (*Tensor, error) {
	dt := x.DType
	if !isFloat(dt) && base != math.Trunc(base) {
		dt = Float32
	}
	out, err := s.alloc(x.Shape, dt, x.Device())
	if err != nil {
		return nil, err
	}
	layOut(out, x)
	if x.Device().CUDA {
		w, err := s.alloc(nil, DTypes["float64"], x.Device())
		if err != nil {
			s.dropTensor(out)
			return nil, err
		}
		s.dropTensor(w)
	}
	out.st.vals = mapValues(x, out, func(v float64) float64 { return math.Pow(base, v) })
	s.record("PowBackward2", out, []*Tensor{x}, []*Tensor{out}, likeInput(2))
	return out, nil
}

// Gather is torch.gather(x, dim, index): a new tensor of index's shape
// in x's dtype; saves the index and x (derivatives.yaml's
// gather_backward reads self; released in the order of their names);
// backward makes the input's gradient (zeros, scattered into).
func (s *Session) Gather(x *Tensor, dim int64, index *Tensor) (*Tensor, error) {
	if index.DType.Name != "int64" {
		return nil, Errorf(RuntimeError, "gather(): Expected dtype int64 for index")
	}
	if len(index.Shape) != len(x.Shape) {
		return nil, Errorf(RuntimeError, "Index tensor must have the same number of dimensions as input tensor")
	}
	if _, err := sameDevice(x, index); err != nil {
		return nil, err
	}
	out, err := s.alloc(slices.Clone(index.Shape), x.DType, x.Device())
	if err != nil {
		return nil, err
	}
	out.st.vals = gatherValues(x, int(dim), index, out)
	s.record("GatherBackward0", out, []*Tensor{x}, []*Tensor{index, x}, likeInput(1))
	return out, nil
}

// gatherValues are gather's values when x's and index's are known.
func gatherValues(x *Tensor, d int, index, out *Tensor) knownValues {
	xs, okx := x.Values()
	is, oki := index.Values()
	if !okx || !oki || len(is) == 0 || len(is) > maxKnownValues {
		return nil
	}
	xStrides, iStrides := denseStrides(x.Shape), denseStrides(index.Shape)
	vals := make(knownValues, len(is))
	for j, k := range is {
		at := int64(0)
		for dim := range index.Shape {
			c := int64(j) / iStrides[dim] % index.Shape[dim]
			if dim == d {
				c = int64(k)
			}
			if c < 0 || c >= x.Shape[dim] {
				return nil
			}
			at += c * xStrides[dim]
		}
		vals[j] = xs[at]
	}
	return convertValues(vals, out.DType)
}

func init() {
	declare(&OpDef{Name: "gather", Function: true, Method: true,
		Params: []Param{input, {Name: "dim", Kind: DimParam}, {Name: "index", Kind: TensorParam}, {Name: "sparse_grad", Kind: BoolParam, Default: "False", KeywordOnly: true}},
		Memory: "new tensor of the index's shape; saves the index; backward makes the input's gradient",
		run: func(s *Session, a Args) (*Tensor, error) {
			if a.Bool(3) {
				return nil, NotModelledError("torch.gather with sparse_grad=True")
			}
			return s.Gather(a.Tensor(0), a.Int(1), a.Tensor(2))
		}})
}
