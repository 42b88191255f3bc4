package engine

import (
	"slices"
)

// Complex tensors as Llama's rotary embedding makes them
// (testdata/pyrules/ops_rope_complex.py, held statement by statement):
// view_as_complex, a view of a float
// tensor whose last dimension holds (real, imaginary) pairs, as complex
// elements of twice the size; view_as_real, the reverse view; polar, a
// new complex tensor of its operands' broadcast shape. Views allocate
// nothing. ViewAsComplexBackward0 passes the gradient on viewed as
// real; ViewAsRealBackward0 views its gradient as complex, after a dense
// copy of one that is not contiguous (PyTorch's
// view_as_complex(grad.contiguous())); PolarBackward0 makes the
// gradients of abs and angle, each of its input's shape, from two
// temporaries of the output's. The tool knows no complex values: making
// a complex view forgets the values it knew of the storage.

// complexOf and realOf pair the float dtypes with their complex ones.
var (
	complexOf = map[string]string{"float32": "complex64", "float64": "complex128"}
	realOf    = map[string]string{"complex64": "float32", "complex128": "float64"}
)

// isComplex reports whether d is a complex dtype.
func isComplex(d DType) bool { return realOf[d.Name] != "" }

func init() {
	declare(
		&OpDef{Name: "view_as_complex", Function: true, Params: []Param{input},
			Memory: "a view: the last dimension's pairs as complex elements, no memory; backward passes the gradient on viewed as real",
			run: func(s *Session, a Args) (*Tensor, error) {
				x := a.Tensor(0)
				c, ok := complexOf[x.DType.Name]
				switch {
				case !ok:
					return nil, Errorf(RuntimeError, "view_as_complex is only supported for floating point tensors, but got a tensor of scalar type: %s", LegacyBase(x.DType))
				case len(x.Shape) == 0 || x.Shape[len(x.Shape)-1] != 2:
					return nil, Errorf(RuntimeError, "Tensor must have a last dimension of size 2")
				}
				st := x.Strides()
				if st[len(st)-1] != 1 {
					return nil, Errorf(RuntimeError, "Tensor must have a last dimension with stride 1")
				}
				for _, n := range st[:len(st)-1] {
					if n%2 != 0 {
						return nil, Errorf(RuntimeError, "Tensor must have a stride divisible by 2 for all but last dimension")
					}
				}
				if x.offset%2 != 0 {
					return nil, Errorf(RuntimeError, "Tensor must have a storage_offset divisible by 2")
				}
				v := reinterpreted(x, DTypes[c], slices.Clone(x.Shape[:len(x.Shape)-1]), halved(st[:len(st)-1]), x.offset/2)
				s.recordViewNode("ViewAsComplexBackward0", v, x, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
					return []*Tensor{realGrad(g)}, nil
				})
				return v, nil
			}},
		&OpDef{Name: "view_as_real", Function: true, Params: []Param{input},
			Memory: "a view: each complex element as a (real, imaginary) pair, no memory; backward views the gradient as complex (a dense copy of one that is not contiguous first)",
			run: func(s *Session, a Args) (*Tensor, error) {
				x := a.Tensor(0)
				if !isComplex(x.DType) {
					return nil, Errorf(RuntimeError, "view_as_real is only supported for complex tensors")
				}
				st := x.Strides()
				for i := range st {
					st[i] *= 2
				}
				v := reinterpreted(x, DTypes[realOf[x.DType.Name]], append(slices.Clone(x.Shape), 2), append(st, 1), x.offset*2)
				s.recordViewNode("ViewAsRealBackward0", v, x, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
					if g.IsContiguous() {
						return []*Tensor{complexGrad(g)}, nil
					}
					c, err := s.alloc(slices.Clone(g.Shape), g.DType, g.Device())
					if err != nil {
						return []*Tensor{nil}, err
					}
					defer s.dropTensor(c)
					return []*Tensor{complexGrad(c)}, nil
				})
				return v, nil
			}},
		&OpDef{Name: "polar", Function: true, Params: []Param{{Name: "abs", Kind: TensorParam}, {Name: "angle", Kind: TensorParam}},
			Memory: "a new complex tensor of the broadcast shape; saves its result; backward makes two temporaries of the output's shape, then each operand's gradient",
			run: func(s *Session, a Args) (*Tensor, error) {
				r, th := a.Tensor(0), a.Tensor(1)
				c, ok := complexOf[r.DType.Name]
				if !ok || r.DType != th.DType {
					return nil, Errorf(RuntimeError, "Expected both inputs to be Half, Float or Double tensors but got %s and %s", LegacyBase(r.DType), LegacyBase(th.DType))
				}
				shape, err := operandsOf(r, th)
				if err != nil {
					return nil, err
				}
				out, err := s.alloc(shape, DTypes[c], r.Device())
				if err != nil {
					return nil, err
				}
				s.record("PolarBackward0", out, []*Tensor{r, th}, []*Tensor{out}, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
					want := []tensorShape{{n.out, g.DType}, {n.out, g.DType}}
					for _, in := range n.inputs {
						want = append(want, tensorShape{in.shape, DTypes[realOf[g.DType.Name]]})
					}
					ts, err := s.allocAll(g.Device(), want...)
					if err != nil {
						return nil, err
					}
					s.dropAll(ts[:2])
					return ts[2:], nil
				})
				return out, nil
			}},
	)
}

// reinterpreted is a view of x's storage as dtype dt with shape,
// strides and offset in dt's elements; the storage's known values are
// forgotten (the tool knows no complex ones).
func reinterpreted(x *Tensor, dt DType, shape, strides []int64, offset uint64) *Tensor {
	v := restrided(x, shape, strides, offset)
	v.DType = dt
	v.strided = !contiguous(shape, strides)
	v.st.vals = nil
	return v
}

// realGrad is a complex gradient g viewed as real, another reference
// to its storage: a last dimension of the pairs.
func realGrad(g *Tensor) *Tensor {
	st := g.Strides()
	for i := range st {
		st[i] *= 2
	}
	v := gradView(g, append(slices.Clone(g.Shape), 2))
	v.DType, v.strides, v.offset = DTypes[realOf[g.DType.Name]], append(st, 1), g.offset*2
	v.strided = !contiguous(v.Shape, v.strides)
	return v
}

// complexGrad is a contiguous real gradient g of pairs viewed as
// complex, another reference to its storage.
func complexGrad(g *Tensor) *Tensor {
	v := gradView(g, slices.Clone(g.Shape[:len(g.Shape)-1]))
	v.DType, v.offset = DTypes[complexOf[g.DType.Name]], g.offset/2
	return v
}

// halved are strides of a float tensor in its complex view's elements.
func halved(st []int64) []int64 {
	out := make([]int64, len(st))
	for i, n := range st {
		out[i] = n / 2
	}
	return out
}
