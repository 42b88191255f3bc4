package engine

import (
	"cmp"
	"fmt"
	"slices"
)

// A reduction along a dimension that is not the innermost of a
// contiguous tensor: PyTorch's kernel lays its blocks' threads across
// the outputs (up to 4 of them a thread, as the outputs' alignment
// allows) and the reduced values, and when each thread would still have
// 256 values or more it splits the reduced dimension across blocks too,
// which combine their partial results through a buffer and a semaphore
// from the caching allocator, allocated after the outputs and freed
// newest first. Checked against the recorded sizes of sum, max, std and
// argmax over six shapes and dtypes (testdata/pyrules/ops_reduce_outer.py,
// ops_div.py, ops_reduce_grad.py).

// Reduction launch constants: threads a block, values a thread before
// the input is split across blocks, and after.
const (
	reduceThreads      = 512
	minValuesPerThread = 16
	maxValuesPerThread = 256
	warpSize           = 32
)

// reduceLayout is a reduction as TensorIterator hands it to the kernel
// (setReduceConfig): its outputs, the input values reduced into each,
// the outputs a thread takes (get_output_vec_size: 1 where the outputs
// are not the input's unit-stride dimension), and whether the reduced
// values are the fastest-moving dimension instead (inner: the kernel's
// other arrangement, which this file does not model).
type reduceLayout struct {
	outputs, red, vec uint64
	inner             bool
}

// iterDim is one dimension of a reduction as TensorIterator lays it out
// (iterationDims).
type iterDim struct {
	size, stride int64
	reduced      bool
}

// iterationDims is a tensor of shape and strides reduced along dims laid
// out as TensorIterator lays a reduction out: dimensions of size 1
// dropped, the reduced ones first, each group fastest first (the reduced
// by the strides, the kept by the output's: from the last dimension),
// and neighbours in a group merged where the outer one starts where the
// inner one ends.
func iterationDims(shape, strides []int64, dims []int) []iterDim {
	var order []iterDim
	for d := len(shape) - 1; d >= 0; d-- {
		if shape[d] != 1 {
			order = append(order, iterDim{shape[d], strides[d], slices.Contains(dims, d)})
		}
	}
	slices.SortStableFunc(order, func(a, b iterDim) int {
		switch {
		case a.reduced != b.reduced:
			if a.reduced {
				return -1
			}
			return 1
		case a.reduced:
			return cmp.Compare(a.stride, b.stride)
		}
		return 0
	})
	var merged []iterDim
	for _, d := range order {
		if n := len(merged); n > 0 && merged[n-1].reduced == d.reduced && merged[n-1].size*merged[n-1].stride == d.stride {
			merged[n-1].size *= d.size
			continue
		}
		merged = append(merged, d)
	}
	return merged
}

// sameIteration reports whether x reduced along dims reaches the kernel
// as a contiguous tensor of its shape does: the same dimensions, of the
// same sizes, in the same order, the fastest moving as far apart.
// setReduceConfig reads no more (the sizes, how many are reduced, the
// fastest stride), so both launch alike, buffer across blocks and all.
func sameIteration(x *Tensor, dims []int) bool {
	got, dense := iterationDims(x.Shape, x.Strides(), dims), iterationDims(x.Shape, denseStrides(x.Shape), dims)
	return len(got) > 0 && len(got) == len(dense) && got[0].stride == dense[0].stride &&
		slices.EqualFunc(got, dense, func(a, b iterDim) bool { return a.size == b.size && a.reduced == b.reduced })
}

// reductionLayout is x reduced along dims laid out as iterationDims lays
// it out, as the kernel reads it.
func reductionLayout(x *Tensor, dims []int) reduceLayout {
	merged := iterationDims(x.Shape, x.Strides(), dims)
	l := reduceLayout{outputs: 1, red: 1, vec: 1}
	first := len(merged) // the first kept dimension
	for i, d := range merged {
		if d.reduced {
			l.red *= uint64(d.size)
		} else {
			l.outputs *= uint64(d.size)
			first = min(first, i)
		}
	}
	if first == len(merged) || merged[0].stride < merged[first].stride {
		l.inner = true
		return l
	}
	if merged[first].stride != 1 {
		return l
	}
	// outputs a thread: 4, halved until it divides the input's first
	// element, the outputs' innermost run and the input's other strides
	l.vec = 4
	ns := []uint64{x.DataPtr() / x.DType.Size, uint64(merged[first].size)}
	for i, d := range merged {
		if i != first {
			ns = append(ns, uint64(d.stride))
		}
	}
	for _, n := range ns {
		for n%l.vec != 0 {
			l.vec /= 2
		}
	}
	return l
}

// outerReduction is the launch of a reduction of x along dims whose
// outputs are x's fastest-moving values (an outer dimension of a
// contiguous x): the bytes of its buffer across blocks (accumulators of
// acc bytes) and of its semaphore, 0 and 0 when its blocks need none,
// and whether the GPU's multiprocessors decided that (bySMs: the
// reduced values are many enough to split).
func (s *Session) outerReduction(x *Tensor, dims []int, acc uint64) (buf, sem uint64, bySMs bool) {
	l := reductionLayout(x, dims)
	if l.inner {
		return 0, 0, false
	}
	red, outputs, vec := l.red, l.outputs, l.vec
	most := reduceThreads / vec
	fit := func(n uint64) uint64 { // n's largest power of 2, at most most
		if n >= most {
			return most
		}
		p := uint64(1)
		for p*2 <= n {
			p *= 2
		}
		return p
	}
	width := min(fit(outputs/vec), warpSize)
	height := min(fit(red), most/width)
	width = min(fit(outputs/vec), most/height)
	stepOut, stepIn := width, uint64(1)
	splitY := ceilDiv(red, stepIn) >= height*minValuesPerThread || ceilDiv(red, stepIn) >= maxValuesPerThread
	if splitY {
		stepIn *= height
	} else {
		stepOut *= height
	}
	perThread := ceilDiv(red, stepIn)
	grid := ceilDiv(outputs/vec, stepOut)
	sms, threadsPerSM := s.gpus[x.Device().Index].b.grid()
	target := uint64(sms) * (uint64(threadsPerSM) / (width * height))
	if !splitY || perThread < maxValuesPerThread {
		return 0, 0, false
	}
	ctas := max(min(ceilDiv(target, grid), ceilDiv(perThread, minValuesPerThread)), ceilDiv(perThread, maxValuesPerThread))
	if grid > target || ctas <= 1 {
		return 0, 0, true
	}
	return acc * outputs * ctas * width * vec, 4 * grid, true
}

// outerReductionTemps allocates and frees outerReduction's buffer and
// semaphore.
func (s *Session) outerReductionTemps(x *Tensor, dims []int, acc uint64) error {
	buf, sem, bySMs := s.outerReduction(x, dims, acc)
	if bySMs {
		along := fmt.Sprint("dimension ", dims[0])
		if len(dims) > 1 {
			along = fmt.Sprint("dimensions ", dims)
		}
		if err := s.onCard(x.Device(), "reduction", "%s along %s: %s", argShapes(Args{x}), along, s.smCause(x.Device(), "its blocks")); err != nil {
			return err
		}
	}
	if buf == 0 {
		return nil
	}
	b, err := s.newStorage(x.Device(), buf, false)
	if err != nil {
		return err
	}
	b.role = roleWorkspace
	defer s.release(b)
	m, err := s.newStorage(x.Device(), sem, false)
	if err != nil {
		return err
	}
	s.release(m)
	return nil
}

// sumToTemps allocates and frees what summing gradient g down to shape
// (autograd's sum_to: a broadcast input's gradient, a bias's) takes from
// the caching allocator: where shape is g's trailing dimensions and g is
// dense, g's leading dimensions are one outer dimension reduced (a
// Linear's bias: the buffer across blocks of pyrules/linear_device and
// train_gpt), or every element (a 1-element shape); otherwise nothing.
// shape's leading dimensions of size 1 are reduced as missing ones are
// (an unsqueezed einsum operand's gradient: ops_einsum_forms.py).
func (s *Session) sumToTemps(g *Tensor, shape []int64) error {
	if len(shape) == len(g.Shape) {
		k := 0
		for k < len(shape) && shape[k] == 1 && g.Shape[k] != 1 {
			k++
		}
		shape = shape[k:]
	}
	lead := len(g.Shape) - len(shape)
	if !g.Device().CUDA || !g.IsContiguous() || lead <= 0 || !slices.Equal(g.Shape[lead:], shape) {
		return nil
	}
	if numel(shape) == 1 {
		return s.reductionTemps(g, opmath(g.DType))
	}
	rows := &Tensor{Shape: []int64{int64(numel(g.Shape[:lead])), int64(numel(shape))}, DType: g.DType, st: g.st, offset: g.offset}
	return s.outerReductionTemps(rows, []int{0}, opmath(g.DType))
}
