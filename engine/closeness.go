package engine

import (
	"fmt"
	"math"
	"slices"
)

// torch.isclose and torch.allclose as ATen computes them
// (testdata/pyrules/ops_allclose.py, recorded with the allocator's
// events on the H200), for two floating tensors of one shape, dtype and
// device that autograd does not track:
//
//   - the result, a bool tensor (self == other);
//   - with equal_nan, each operand's isnan (bool), and-ed in place and
//     freed, the second first;
//   - unless rtol and atol are both 0: the allowed error,
//     atol + (rtol * other).abs() -- three tensors of the input's dtype,
//     the product and its abs freed after the sum --, the actual error,
//     (self - other).abs(), the difference freed after it, then
//     isfinite(actual): its abs, then != inf and == itself (bool), their
//     product (bool), the three freed newest first; actual <= allowed
//     (bool); the two bool temporaries freed, then the actual and the
//     allowed error;
//   - allclose then reduces the result with all(): a 0-d bool and, on a
//     large input, the reduction's buffer across blocks (one byte a
//     block) and semaphore; the 0-d result goes after item(), then the
//     bool result.

// IsClose is torch.isclose(a, b, rtol, atol, equal_nan): its bool
// result, made as described above; zeroTol says rtol and atol are both
// 0.
func (s *Session) IsClose(a, b *Tensor, zeroTol, equalNaN bool) (*Tensor, error) {
	if err := closenessOperands(a, b); err != nil {
		return nil, err
	}
	dev, dt := a.Device(), a.DType
	shape := slices.Clone(a.Shape)
	close, err := s.alloc(shape, boolDType, dev)
	if err != nil {
		return nil, err
	}
	// temps makes tensors of the shape (bool or the inputs' dtype) and
	// frees all but the first keep of them, newest first
	temps := func(types []DType, keep int) ([]*Tensor, error) {
		var made []*Tensor
		for _, d := range types {
			t, err := s.alloc(shape, d, dev)
			if err != nil {
				s.dropAll(made)
				return nil, err
			}
			made = append(made, t)
		}
		s.dropAll(made[keep:])
		return made[:keep], nil
	}
	fail := func(err error, live ...*Tensor) (*Tensor, error) {
		s.dropAll(live)
		s.dropTensor(close)
		return nil, err
	}
	if equalNaN {
		if _, err := temps([]DType{boolDType, boolDType}, 0); err != nil {
			return fail(err)
		}
	}
	if zeroTol {
		return close, nil
	}
	// atol + (rtol * other).abs(): the product, its abs, the sum, which
	// stays
	made, err := temps([]DType{dt, dt, dt}, 3)
	if err != nil {
		return fail(err)
	}
	allowed := made[2]
	s.dropAll(made[:2])
	// (self - other).abs(): the difference goes, the abs stays
	made, err = temps([]DType{dt, dt}, 2)
	if err != nil {
		return fail(err, allowed)
	}
	actual := made[1]
	s.dropAll(made[:1])
	finite, err := s.finiteMask(shape, dt, dev)
	if err != nil {
		return fail(err, actual, allowed)
	}
	le, err := s.alloc(shape, boolDType, dev)
	if err != nil {
		return fail(err, finite, actual, allowed)
	}
	s.dropAll([]*Tensor{finite, le})
	s.dropAll([]*Tensor{allowed, actual})
	return close, nil
}

// AllClose is torch.allclose: IsClose's result reduced with all(),
// whose value the tool does not compute.
func (s *Session) AllClose(a, b *Tensor, zeroTol, equalNaN bool) error {
	close, err := s.IsClose(a, b, zeroTol, equalNaN)
	if err != nil {
		return err
	}
	defer s.dropTensor(close)
	all, err := s.alloc(nil, boolDType, close.Device())
	if err != nil {
		return err
	}
	defer s.dropTensor(all)
	return s.reductionTemps(close, 1)
}

// closenessOperands refuses what was not recorded: operands of other
// shapes, dtypes or devices, integral ones, ones autograd tracks.
func closenessOperands(a, b *Tensor) error {
	switch {
	case a.number || b.number:
		return NotModelledError("isclose with a Python number")
	case !slices.Equal(a.Shape, b.Shape) || a.DType != b.DType || a.Device() != b.Device():
		return NotModelledError("isclose of tensors of other shapes, dtypes or devices")
	case !isFloat(a.DType):
		return NotModelledError(fmt.Sprintf("isclose of %s tensors", a.DType.Name))
	case a.requiresGrad() || b.requiresGrad():
		return NotModelledError("isclose of tensors that require grad")
	}
	return nil
}

// dropAll drops ts, the last first.
func (s *Session) dropAll(ts []*Tensor) {
	for i := len(ts) - 1; i >= 0; i-- {
		s.dropTensor(ts[i])
	}
}

// finiteMask is isfinite of a floating tensor of shape and dtype dt, as
// isclose makes it (recorded there): its abs, then != inf and == itself
// (bool), their product (bool), the three freed newest first.
func (s *Session) finiteMask(shape []int64, dt DType, dev Device) (*Tensor, error) {
	ts, err := s.allocAll(dev, tensorShape{shape, dt}, tensorShape{shape, boolDType}, tensorShape{shape, boolDType}, tensorShape{shape, boolDType})
	if err != nil {
		return nil, err
	}
	s.dropAll(ts[:3])
	return ts[3], nil
}

// torch.isfinite, isinf and isnan: a bool tensor of the input's shape.
// PyTorch writes each of ordinary ops (testdata/pyrules/ops_trig.py,
// held statement by statement): isfinite as isclose makes it
// (finiteMask); isinf abs() == inf, the abs freed after; isnan
// self != self. Of an integral input isinf and isnan are zeros_like and
// isfinite ones_like, one bool tensor.
func init() {
	classify := func(name, memory string, temps func(DType) []DType, f func(float64) bool) *OpDef {
		return &OpDef{Name: name, Function: true, Method: true, Params: []Param{input}, Memory: memory,
			run: func(s *Session, a Args) (*Tensor, error) {
				x := a.Tensor(0)
				var out *Tensor
				var err error
				switch {
				case !isFloat(x.DType):
					out, err = s.alloc(slices.Clone(x.Shape), boolDType, x.Device())
				case name == "isfinite":
					out, err = s.finiteMask(slices.Clone(x.Shape), x.DType, x.Device())
				default:
					var want []tensorShape
					for _, d := range temps(x.DType) {
						want = append(want, tensorShape{slices.Clone(x.Shape), d})
					}
					ts, err := s.allocAll(x.Device(), want...)
					if err != nil {
						return nil, err
					}
					s.dropAll(ts[:len(ts)-1])
					out = ts[len(ts)-1]
				}
				if err != nil {
					return nil, err
				}
				out.st.vals = mapValues(x, out, func(v float64) float64 { return boolValue(f(v)) })
				return out, nil
			}}
	}
	declare(
		classify("isfinite", "a bool tensor: abs, != inf and == itself, their product (the three freed)", nil,
			func(v float64) bool { return !math.IsInf(v, 0) && !math.IsNaN(v) }),
		classify("isinf", "a bool tensor: abs (freed after), == inf", func(d DType) []DType { return []DType{d, boolDType} },
			func(v float64) bool { return math.IsInf(v, 0) }),
		classify("isnan", "a bool tensor: self != self", func(DType) []DType { return []DType{boolDType} }, math.IsNaN),
	)
}

// torch.isin(elements, test_elements): a bool tensor of the elements'
// shape. With few test elements (fewer than 10 * numel^0.145) PyTorch's
// CUDA kernel compares each element with every test element, a bool of
// [elements..., tests], reduces it with any() along its last dimension
// (a bool of the elements' shape and the reduction's buffers) and copies
// that into the output; the any freed, then the comparison
// (testdata/pyrules/ops_census_misc.py). Past that it sorts both, which
// the tool does not model.
func init() {
	declare(&OpDef{Name: "isin", Function: true, Params: []Param{{Name: "elements", Kind: TensorParam}, {Name: "test_elements", Kind: TensorParam},
		boolParam("assume_unique", "False"), boolParam("invert", "False")},
		Memory: "a bool tensor of the elements' shape, then a bool of every element against every test element and its any() along the tests (both freed); many test elements (a sort) refused",
		run: func(s *Session, a Args) (*Tensor, error) {
			x, test := a.Tensor(0), a.Tensor(1)
			dev, err := sameDevice(x, test)
			if err != nil {
				return nil, err
			}
			n, m := float64(x.Numel()), float64(test.Numel())
			if m >= 10*math.Pow(n, 0.145) {
				return nil, NotModelledError("torch.isin with many test elements (PyTorch sorts them)")
			}
			out, err := s.alloc(slices.Clone(x.Shape), boolDType, dev)
			if err != nil || n == 0 {
				return out, err
			}
			cross, err := s.alloc(append(slices.Clone(x.Shape), int64(m)), boolDType, dev)
			if err != nil {
				s.dropTensor(out)
				return nil, err
			}
			found, _, err := s.RunTuple(Ops["any"], Args{cross, int64(-1), false})
			s.dropAll(found)
			s.dropTensor(cross)
			if err != nil {
				s.dropTensor(out)
				return nil, err
			}
			if tv, ok := test.Values(); ok {
				invert := a.Bool(3)
				out.st.vals = mapValues(x, out, func(v float64) float64 { return boolValue(slices.Contains(tv, v) != invert) })
			}
			return out, nil
		}})
}
