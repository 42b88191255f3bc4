package engine

import (
	"slices"
	"strings"
)

// What PyTorch 2.11 refuses in advanced indexing, x[idxs] and
// x[idxs] = value (testdata/pyrules/index_errors.py, index_oob_*.py):
// index tensors whose shapes do not broadcast together (IndexError), a
// value that does not broadcast to the indexing result (RuntimeError),
// and an index out of its dimension's range: on the host an IndexError
// from the kernel; on the GPU no error at the statement, whose kernel
// fails a device-side assert that a later call waiting for the GPU
// raises (torch.AcceleratorError), after which CUDA is unusable in the
// process.

// IndexSpec is one advanced index of a key as the checks see it: the
// dimension of x it indexes, its shape, and its values (nil: not known
// to the tool).
type IndexSpec struct {
	Dim    int
	Shape  []int64
	Values []float64
}

// IndexShape is the shape the indices broadcast to, or PyTorch's
// IndexError naming their shapes when they do not.
func IndexShape(specs []IndexSpec) ([]int64, error) {
	var out []int64
	for _, sp := range specs {
		next, _, ok := broadcastShapes(out, sp.Shape)
		if !ok {
			names := make([]string, len(specs))
			for j, sp := range specs {
				names[j] = dimList(sp.Shape)
			}
			return nil, Errorf(IndexError, "shape mismatch: indexing tensors could not be broadcast together with shapes %s", strings.Join(names, ", "))
		}
		out = next
	}
	return out, nil
}

// ValueShapeError is index_put_'s RuntimeError when a value of shape
// value does not broadcast to the indexing result's shape; nil when it
// does. Python's assignment first drops the value's leading dimensions
// of size 1, and the message names what is left.
func ValueShapeError(value, result []int64) error {
	lead := 0
	for lead < len(value) && value[lead] == 1 {
		lead++
	}
	v := value[lead:]
	fits := len(v) <= len(result)
	for i := 0; fits && i < len(v); i++ {
		d := v[len(v)-1-i]
		fits = d == 1 || d == result[len(result)-1-i]
	}
	if fits {
		return nil
	}
	return Errorf(RuntimeError, "shape mismatch: value tensor of shape %s cannot be broadcast to indexing result of shape %s", dimList(v), dimList(result))
}

// CheckIndexRange is the error of indices out of range of the
// dimensions of x they index, checked as PyTorch's kernel does: element
// by element of the broadcast indices, the indices of an element in
// order, the first bad one named with its place among the indices as
// its dimension. On the host that is PyTorch's IndexError; on the GPU
// the tool stops the statement with the device-side assert PyTorch's
// kernel would reach, saying what PyTorch does with it. Where some
// values are not known, nothing is checked and the step's report says
// so.
func (s *Session) CheckIndexRange(x *Tensor, specs []IndexSpec) error {
	for _, sp := range specs {
		if sp.Values == nil {
			s.event("the values of an index of x[...] are not known to gpumemrepl: not checked against the size of the dimension it indexes (PyTorch raises IndexError for one out of range on the host; on the GPU its kernel fails a device-side assert)")
			return nil
		}
		if sp.Dim >= len(x.Shape) {
			return nil // too many indices: the caller's error
		}
	}
	shape, err := IndexShape(specs)
	if err != nil {
		return nil // the caller's error, once its indices exist
	}
	vals := make([][]float64, len(specs))
	for j, sp := range specs {
		vals[j] = sp.Values
		if !slices.Equal(sp.Shape, shape) {
			vals[j] = broadcastValues(sp.Values, sp.Shape, shape)
		}
	}
	for e := range numel(shape) {
		for j, sp := range specs {
			size, v := x.Shape[sp.Dim], int64(vals[j][e])
			if v >= -size && v < size {
				continue
			}
			if !x.Device().CUDA {
				return Errorf(IndexError, "index %d is out of bounds for dimension %d with size %d", v, j, size)
			}
			return Refusef(AcceleratorError, "index %d is out of bounds for dimension %d with size %d on %s: PyTorch raises nothing at this statement, but its kernel fails a device-side assert, which a later call that waits for the GPU raises as \"AcceleratorError: CUDA error: device-side assert triggered\"; CUDA is unusable in the process after it, so gpumemrepl raises it here", v, j, size, x.Device())
		}
	}
	return nil
}

// checkMaskShape checks mask against the dimensions of x from at.
func checkMaskShape(x, mask *Tensor, at int) error {
	k := len(mask.Shape)
	if at+k > len(x.Shape) {
		return Errorf(IndexError, "too many indices for tensor of dimension %d", len(x.Shape))
	}
	for d := range k {
		if mask.Shape[d] != x.Shape[at+d] {
			return Errorf(IndexError, "The shape of the mask %s at index %d does not match the shape of the indexed tensor %s at index %d", dimList(mask.Shape), d, dimList(x.Shape), at+d)
		}
	}
	return nil
}
