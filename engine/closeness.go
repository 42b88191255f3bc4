package engine

import (
	"fmt"
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
	// isfinite(actual): abs, != inf, == itself, their product
	made, err = temps([]DType{dt, boolDType, boolDType, boolDType}, 4)
	if err != nil {
		return fail(err, actual, allowed)
	}
	finite := made[3]
	s.dropAll(made[:3])
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
