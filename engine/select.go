package engine

import (
	"slices"
	"strings"
)

// softmax and log_softmax along a dimension, clamp, where and
// masked_fill: each a new tensor of its input's shape; what they save and
// what their backward makes, as recorded (testdata/pyrules/
// ops_select.py, ops_probe.txt).

func init() {
	number := func(name string) Param { return Param{Name: name, Kind: NumberParam, Default: "None"} }
	declare(
		// softmax's backward makes two tensors of the input's size and
		// keeps the second, whatever its gradient's layout
		softmaxOp("softmax", "SoftmaxBackward0", likeInput(2)),
		// log_softmax's makes one, after a dense copy of a gradient that
		// is not contiguous (a sum's broadcast)
		softmaxOp("log_softmax", "LogSoftmaxBackward0", func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
			if g.IsContiguous() {
				return likeInput(1)(s, n, g)
			}
			return likeInput(2)(s, n, g)
		}),
		&OpDef{Name: "clamp", Function: true, Method: true, InPlace: "clamp_", Params: []Param{input, number("min"), number("max")},
			Memory: "new tensor; saves its input; backward makes a 0-d zero, a bool mask per bound, then the gradient",
			run: func(s *Session, a Args) (*Tensor, error) {
				x := a.Tensor(0)
				if a[1] == nil && a[2] == nil {
					return nil, Errorf(RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None")
				}
				out, err := s.alloc(x.Shape, x.DType, x.Device())
				if err != nil {
					return nil, err
				}
				out.st.vals = clampValues(x, out, a[1], a[2])
				masks := 0
				for _, bound := range a[1:3] {
					if bound != nil {
						masks++
					}
				}
				s.record("ClampBackward1", out, []*Tensor{x}, []*Tensor{x}, clampBackward(masks))
				return out, nil
			},
			inPlace: func(s *Session, a Args) error {
				if a[1] == nil && a[2] == nil {
					return Errorf(RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None")
				}
				return s.writeUntracked("clamp_", a.Tensor(0))
			}},
		&OpDef{Name: "where", Function: true,
			Params: []Param{{Name: "condition", Kind: TensorParam}, {Name: "input", Kind: OperandParam, Default: "None"}, {Name: "other", Kind: OperandParam, Default: "None"}},
			Memory: "new tensor of the broadcast shape (a number operand: a 0-d tensor on the device, freed after); saves the condition; backward makes a 0-d zero and a gradient for each input; the condition alone: nonzero(condition, as_tuple=True)",
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				switch {
				case a[1] == nil && a[2] == nil:
					nz, err := s.nonzeroAs("torch.where", a.Tensor(0))
					if err != nil {
						return nil, false, err
					}
					return s.columns(nz), true, nil
				case a[1] == nil || a[2] == nil:
					return nil, false, Errorf(TypeError, "where() missing required argument '%s'", map[bool]string{true: "input", false: "other"}[a[1] == nil])
				}
				out, err := s.where(a.Tensor(0), a.Tensor(1), a.Tensor(2))
				return []*Tensor{out}, false, err
			}},
		&OpDef{Name: "masked_fill", Function: true, Method: true, InPlace: "masked_fill_",
			Params: []Param{input, {Name: "mask", Kind: TensorParam}, {Name: "value", Kind: NumberParam}},
			Memory: "new tensor; saves the mask; backward makes the gradient",
			run: func(s *Session, a Args) (*Tensor, error) {
				x, mask := a.Tensor(0), a.Tensor(1)
				if _, err := operandsOf(x, mask); err != nil {
					return nil, err
				}
				out, err := s.alloc(x.Shape, x.DType, x.Device())
				if err != nil {
					return nil, err
				}
				if v, ok := numberOf(a[2]); ok {
					out.st.vals = whereValues(mask, ScalarOf(v, true), x, out)
				}
				s.record("MaskedFillBackward0", out, []*Tensor{x}, []*Tensor{mask}, likeInput(1))
				return out, nil
			},
			inPlace: func(s *Session, a Args) error {
				// the values stay known where the tensor is its whole
				// storage and the mask's and its are known (a bool mask
				// made additive: zeros_like, -inf where True)
				x := a.Tensor(0)
				var vals knownValues
				if v, ok := numberOf(a[2]); ok && x.Bytes() == x.st.bytes {
					vals = whereValues(a.Tensor(1), ScalarOf(v, true), x, x)
				}
				if err := s.writeUntracked("masked_fill_", x); err != nil {
					return err
				}
				if vals != nil {
					x.st.vals = vals
				}
				return nil
			}},
	)
}

// softmaxOp is softmax or log_softmax: a new tensor; saves its result.
// The kernel reads its input contiguous: a strided one (logits.t()) is
// copied dense after the output is made, and the copy freed at its end
// (clip_train.py's recording). dtype= converts the input first (a
// conversion autograd records, freed after), except a CUDA float16
// input asked for float32, which the kernel reads as it is and writes
// float32 (half_to_float).
func softmaxOp(name, node string, bw backward) *OpDef {
	return &OpDef{Name: name, Function: true, Method: true, Functional: true,
		Params: []Param{input, {Name: "dim", Kind: DimParam}, {Name: "dtype", Kind: DTypeParam, Default: "None", KeywordOnly: true}},
		Memory: "new tensor; saves its result for backward; a strided input copied dense after it (freed); dtype= converts the input first",
		run: func(s *Session, a Args) (*Tensor, error) {
			x := a.Tensor(0)
			dt := x.DType
			if len(a) > 2 { // the engine's own calls pass input and dim alone
				dt = a.DType(2, x.DType)
			}
			if x.Device().CUDA && x.DType.Name == "float16" && dt == Float32 {
				a = slices.Clone(a[:2])
				outs, err := s.halfToFloat(node, x, a, func(a Args) ([]*Tensor, error) {
					out, err := softmaxOf(s, a.Tensor(0), Float32, node, bw)
					return []*Tensor{out}, err
				})
				if err != nil {
					return nil, err
				}
				return outs[0], nil
			}
			if dt.Name != x.DType.Name {
				c, err := s.ToCopy(x, x.Device(), dt, false, false, PreserveFormat)
				if err != nil {
					return nil, err
				}
				out, err := softmaxOf(s, c, dt, node, bw)
				s.dropTensor(c)
				return out, err
			}
			return softmaxOf(s, x, dt, node, bw)
		}}
}

// softmaxOf is the softmax kernel's output (dt) of x, recorded as node.
func softmaxOf(s *Session, x *Tensor, dt DType, node string, bw backward) (*Tensor, error) {
	out, err := s.alloc(x.Shape, dt, x.Device())
	if err != nil {
		return nil, err
	}
	dense, err := s.denseCopy(x)
	if err != nil {
		s.dropTensor(out)
		return nil, err
	}
	if dense != nil {
		s.dropTensor(dense)
	}
	s.record(node, out, []*Tensor{x}, []*Tensor{out}, bw)
	return out, nil
}

// clampBackward is clamp_backward: where((self >= min) & (self <= max),
// grad, 0): a 0-d zero on the device, one bool mask of the input's shape
// per bound, the gradient; then the masks and the zero are freed.
func clampBackward(masks int) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		want := []tensorShape{{nil, g.DType}}
		for range masks {
			want = append(want, tensorShape{n.inputs[0].shape, boolDType})
		}
		want = append(want, tensorShape{n.inputs[0].shape, g.DType})
		ts, err := s.allocAll(g.Device(), want...)
		if err != nil {
			return []*Tensor{nil}, err
		}
		for _, m := range ts[1 : len(ts)-1] {
			s.dropTensor(m)
		}
		s.dropTensor(ts[0])
		return []*Tensor{ts[len(ts)-1]}, nil
	}
}

// tensorShape is the shape and dtype of a temporary.
type tensorShape struct {
	shape []int64
	dtype DType
}

// allocAll allocates a tensor of each of ts on dev, in order; on an
// error, none.
func (s *Session) allocAll(dev Device, ts ...tensorShape) ([]*Tensor, error) {
	var out []*Tensor
	for _, t := range ts {
		x, err := s.alloc(t.shape, t.dtype, dev)
		if err != nil {
			for _, o := range out {
				s.dropTensor(o)
			}
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

// operandsOf checks that tensors share a device and broadcast, and
// returns the shape they broadcast to.
func operandsOf(ts ...*Tensor) ([]int64, error) {
	if _, err := sameDevice(ts...); err != nil {
		return nil, err
	}
	shape := ts[0].Shape
	for _, t := range ts[1:] {
		var err error
		if shape, err = broadcast(&Tensor{Shape: shape}, t); err != nil {
			return nil, err
		}
	}
	return shape, nil
}

// where is torch.where(condition, x, y): a new tensor of the broadcast
// shape, of the tensor operand's dtype; a number operand first becomes a
// 0-d tensor on the device, freed once the output exists.
func (s *Session) where(cond, x, y *Tensor) (*Tensor, error) {
	shape, err := operandsOf(cond, x, y)
	if err != nil {
		return nil, err
	}
	dt := x.DType
	if x.number {
		dt = y.DType
	}
	if x.number && y.number {
		dt = Float32
	}
	var scalars []*Tensor
	defer func() {
		for _, t := range scalars {
			s.dropTensor(t)
		}
	}()
	for _, t := range []*Tensor{x, y} {
		if t.number {
			z, err := s.alloc(nil, dt, cond.Device())
			if err != nil {
				return nil, err
			}
			scalars = append(scalars, z)
		}
	}
	out, err := s.alloc(shape, dt, cond.Device())
	if err != nil {
		return nil, err
	}
	out.st.vals = whereValues(cond, x, y, out)
	s.record("WhereBackward0", out, []*Tensor{tensorOrNil(x), tensorOrNil(y)}, []*Tensor{cond}, whereBackward)
	return out, nil
}

// whereBackward: for each input that takes a gradient, in order,
// where(condition, grad, 0) (or (condition, 0, grad)): a 0-d zero on the
// device, the gradient, then the zero freed.
func whereBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	grads := make([]*Tensor, len(n.inputs))
	for i, e := range n.inputs {
		if e.to == nil {
			continue
		}
		ts, err := s.allocAll(g.Device(), tensorShape{nil, g.DType}, tensorShape{g.Shape, g.DType})
		if err != nil {
			return grads, err
		}
		s.dropTensor(ts[0])
		grads[i] = ts[1]
	}
	return grads, nil
}

// torch.maximum and minimum, elementwise of two tensors
// (testdata/pyrules/ops_census_misc.py and zoo_layers.py, and
// ops_scalar_nodes.py for a broadcast row and two dtypes): a new tensor
// of the broadcast shape and promoted dtype; the node saves both. By
// derivatives.yaml's formula each operand's gradient (other's first, as
// for every generated node: selfOther) is where(self == other, grad / 2,
// grad).masked_fill_(self > other, 0), all of the output's shape; GCC
// evaluates where's arguments right to left, so the halved gradient
// comes before the mask self == other, then the gradient and the second
// mask, which the full expression's end frees first, then the first
// mask and the half (every recording: each operand's events in that
// order).
func init() {
	for _, name := range [...]string{"maximum", "minimum"} {
		nodeName := strings.ToUpper(name[:1]) + name[1:] + "Backward0"
		declare(&OpDef{Name: name, Function: true, Method: true, Params: []Param{input, {Name: "other", Kind: TensorParam}},
			Memory: "a new tensor of the broadcast shape; saves both; backward makes, for each operand, two bool masks and a temporary of the output's shape, then its gradient, summed or converted to its input's shape and dtype",
			run: func(s *Session, a Args) (*Tensor, error) {
				x, y := a.Tensor(0), a.Tensor(1)
				shape, err := operandsOf(x, y)
				if err != nil {
					return nil, err
				}
				out, err := s.alloc(shape, promoted(x, y), x.Device())
				if err != nil {
					return nil, err
				}
				layOut(out, x, y)
				s.record(nodeName, out, []*Tensor{x, y}, []*Tensor{x, y}, func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
					grads := make([]*Tensor, 2)
					for _, i := range selfOther {
						if n.inputs[i].to == nil {
							continue
						}
						ts, err := s.allocAll(g.Device(), tensorShape{n.out, g.DType}, tensorShape{n.out, boolDType}, tensorShape{n.out, g.DType}, tensorShape{n.out, boolDType})
						if err != nil {
							return grads, err
						}
						s.dropTensor(ts[3])
						s.dropTensor(ts[1])
						s.dropTensor(ts[0])
						grads[i] = ts[2]
					}
					return grads, nil
				})
				return out, nil
			}})
	}
}
