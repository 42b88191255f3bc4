package engine

import (
	"fmt"
	"slices"
)

// Reductions: sum, mean, max, min, argmax, argmin, norm, std and var over
// every element or along one dimension, and cumsum (testdata/pyrules/
// ops_reduce.py, ops_reduce_grad.py). A reduction over every element
// makes its scalar, then on a GPU the kernel's buffer and semaphore for a
// large input (reductionTemps), of one accumulator a block: 4 bytes for
// a float sum, the input's own size for max and min, 16 for argmax's
// value and index and for std's Welford state (ops_reduce_inner.py).
// One along a dimension makes its output (max and min: values, then
// int64 indices) and nothing else when the dimension is the innermost of
// a contiguous tensor and at most maxInnerReduction long, or within the
// range scripts/probe_reduce_inner.py recorded (innerProbed; for rows not
// contiguous with each other, apartProbed); along an outer dimension,
// then the buffer and semaphore its launch needs, if any
// (reduce_outer.go). A longer innermost dimension and other tensors that
// are not contiguous are estimated (--strict refuses them).

// maxInnerReduction is the longest innermost dimension reduced without
// splitting across blocks that the tool models (1024 is recorded; a
// block's 32 lanes then take at most 32 values each, under the 256 at
// which PyTorch splits).
const maxInnerReduction = 1024

// innerProbed reports whether a reduction of op along the innermost
// dimension of a contiguous tensor of dtype, n long, in rows outputs,
// is in the range scripts/probe_reduce_inner.py recorded
// (testdata/reduce_inner.jsonl, recorded on an NVIDIA H100 80GB HBM3,
// the GPU lent for the H200: same GH100, 132 SMs, same PyTorch): sum,
// mean, amax, max and argmax, and var, of float32 and bfloat16, n from
// 1025 to 100,000 over 1 to 2,708 rows and at most 2^27 elements, make
// their outputs and nothing else, every one of the 840 recorded (at
// n = 2^20 the kernel splits a row across blocks: a buffer and
// semaphores, not modelled).
func innerProbed(op string, dtype DType, n, rows int64) bool {
	return slices.Contains([]string{"sum", "mean", "amax", "max", "argmax", "var", "norm"}, op) &&
		(dtype.Name == "float32" || dtype.Name == "bfloat16") && n <= 100_000 && rows <= 14336 && n*rows <= 1<<27
}

// reductionUnrecorded is why a reduction of x along d (geom its
// geometry) follows no recorded rule on the GPU, or "" where one holds:
// over 2 GiB; contiguous, an innermost dimension longer than
// maxInnerReduction outside innerProbed's range; not contiguous, unless
// x itself is reduced along its innermost dimension with rows apart
// (geom merged from several dimensions keeps no strides of its own)
// within apartProbed's range.
func reductionUnrecorded(r reduceOp, x, geom *Tensor, d int) string {
	n, rows := geom.Shape[d], int64(numel(geom.Shape[:d]))
	innermost := numel(geom.Shape[d+1:]) == 1
	switch {
	case x.Bytes() > 1<<31-1:
		return "a tensor over 2 GiB"
	case geom.IsContiguous():
		if innermost && n > maxInnerReduction && !innerProbed(r.name, x.DType, n, rows) {
			return fmt.Sprintf("an innermost dimension of more than %d elements outside the probed range (scripts/probe_reduce_inner.py)", maxInnerReduction)
		}
		return ""
	case geom != x || !rowsApart(x, d):
		return "a tensor that is not contiguous"
	case !apartProbed(r.name, x.DType, n, rows):
		return "rows not contiguous with each other outside the probed range (scripts/probe_reduce_inner.py --strided)"
	}
	return ""
}

// apartProbed reports whether a reduction of op along the innermost
// dimension, n long, of rows not contiguous with each other is in the
// range scripts/probe_reduce_inner.py --strided recorded
// (testdata/reduce_inner_strided.jsonl.gz, on the same H100): x[:, k] of
// a [rows, 3, n] tensor, as a greedy decoder's logits[:, -1], for sum,
// mean, amax, max, argmax and var of float32, bfloat16 and float16, n
// from 1025 to 100,000 over 2 to 2,708 rows, the whole tensor at most
// 2^28 elements: each made its outputs and nothing else, as contiguous
// rows do (the kernel's launch depends on the rows' count and length,
// not on where they start).
func apartProbed(op string, dtype DType, n, rows int64) bool {
	return slices.Contains([]string{"sum", "mean", "amax", "max", "argmax", "var"}, op) &&
		slices.Contains([]string{"float32", "bfloat16", "float16"}, dtype.Name) &&
		n > maxInnerReduction && n <= 100_000 && rows <= 2708 && 3*n*rows <= 1<<28
}

// rowsApart reports whether x's elements along its innermost dimension
// d are adjacent and its other dimensions step as one, by at least a row
// (the rows of a [rows, n] view apart, not overlapping).
func rowsApart(x *Tensor, d int) bool {
	st := x.Strides()
	if d != len(x.Shape)-1 || st[d] != 1 || x.expanded {
		return false
	}
	want := int64(0) // the stride the next dimension out must have; 0: the rows' own
	for i := d - 1; i >= 0; i-- {
		if x.Shape[i] == 1 {
			continue
		}
		if want == 0 && st[i] < x.Shape[d] || want != 0 && st[i] != want {
			return false
		}
		want = st[i] * x.Shape[i]
	}
	return true
}

// reduceOp is one reduction's rule.
type reduceOp struct {
	name, memory string
	acc          func(DType) uint64 // bytes of one partial result of a full reduction; 0: not known
	dimAcc       func(DType) uint64 // along a dimension, when not acc's
	out          func(DType) DType
	indices      bool     // along a dimension, returns (values, indices)
	node         string   // autograd's node of a full reduction, "" when not modelled
	bw           backward // its backward
	saveResult   bool     // the node saves input and result (norm; std along a dimension too)
	saveInput    bool     // the node saves its input (var)
	dimNode      string   // autograd's node along a dimension, "" when not modelled
	dimBw        backward
	dims         bool // dim is a list of dimensions (sum, mean, std, var, norm)
	// correction is std's and var's of the call being run (1 by default,
	// 0 for unbiased=False; the call sets it), for their values
	correction float64
}

// opmath is the accumulator of a sum: a float for the floating types
// but float64, 8 bytes for float64 and for integers (summed in int64);
// elem is the input's own type (max and min: recorded for float32 and
// float16); valueIndex is a value and its int64 index (argmax, argmin);
// welford is std and var's state, recorded for float32 and float16 (0,
// not known, for float64).
func opmath(d DType) uint64 {
	if isFloat(d) && d.Name != "float64" {
		return 4
	}
	return 8
}
func elem(d DType) uint64 { return d.Size }

func valueIndex(DType) uint64 { return 16 }
func welford(d DType) uint64 {
	if d.Name == "float64" {
		return 0
	}
	return 16
}

// same is the input's dtype; index is int64; summed is int64 for a bool
// or integer input (sum's promotion).
func same(d DType) DType { return d }
func index(DType) DType  { return DTypes["int64"] }
func toBool(DType) DType { return boolDType }
func summed(d DType) DType {
	if isFloat(d) || isComplex(d) {
		return d
	}
	return DTypes["int64"]
}

// isFloat reports whether d is a floating dtype.
func isFloat(d DType) bool { return d.Name[0] == 'f' || d.Name == "bfloat16" }

func init() {
	likeIn := likeInput(1)
	for _, r := range []reduceOp{
		{name: "sum", acc: opmath, out: summed, node: "SumBackward0", bw: sumBackward, dimNode: "SumBackward1", dimBw: sumBackward, dims: true,
			memory: "backward passes the gradient on, broadcast: no memory"},
		{name: "mean", acc: opmath, out: same, node: "MeanBackward0", bw: likeIn, dimNode: "MeanBackward1", dimBw: likeIn, dims: true,
			memory: "backward makes the gradient, a dense tensor of the input's shape"},
		{name: "max", acc: elem, dimAcc: valueIndex, out: same, indices: true, dimNode: "MaxBackward0", dimBw: likeIn,
			memory: "with dim, values and int64 indices; saves the indices; backward makes a tensor of the input's shape"},
		{name: "min", acc: elem, dimAcc: valueIndex, out: same, indices: true, dimNode: "MinBackward0", dimBw: likeIn,
			memory: "with dim, values and int64 indices; saves the indices; backward makes a tensor of the input's shape"},
		{name: "any", acc: elem, out: toBool, memory: "a bool tensor; not recorded by autograd"},
		{name: "all", acc: elem, out: toBool, memory: "a bool tensor; not recorded by autograd"},
		{name: "argmax", acc: valueIndex, out: index, memory: "int64 indices"},
		{name: "argmin", acc: valueIndex, out: index, memory: "int64 indices"},
		{name: "norm", acc: opmath, out: same, node: "LinalgVectorNormBackward0", bw: vectorNormBackward, saveResult: true,
			dimNode: "LinalgVectorNormBackward0", dimBw: vectorNormBackward, dims: true,
			memory: "saves input and result; backward makes a temporary of the input's size, a bool of the norm's shape, then the gradient"},
		{name: "std", acc: welford, out: same, node: "StdBackward0", bw: varianceBackward(true, true), saveResult: true,
			dimNode: "StdBackward0", dimBw: varianceBackward(true, false), dims: true,
			memory: "a 16-byte accumulator a block; saves input and result; backward makes grad / (2 * result) (after two temporaries), then var's"},
		{name: "var", acc: welford, out: same, node: "VarBackward0", bw: varianceBackward(false, true), saveInput: true,
			dimNode: "VarBackward0", dimBw: varianceBackward(false, false), dims: true,
			memory: "a 16-byte accumulator a block; saves its input; backward makes the input's mean, the input less it, the scaled gradient, then the gradient"},
	} {
		declare(reduction(r))
	}
	declare(&OpDef{Name: "cumsum", Function: true, Method: true, Params: []Param{input, {Name: "dim", Kind: IntParam}},
		Memory: "new tensor of the input's shape; saves nothing; backward makes two temporaries of its size before the gradient",
		run: func(s *Session, a Args) (*Tensor, error) {
			x := a.Tensor(0)
			d, err := dimIndex(a.Int(1), len(x.Shape))
			if err != nil {
				return nil, err
			}
			// a scan of one line of elements goes through CUB's DeviceScan,
			// its scratch made and freed after the output
			var scratch uint64
			if x.Device().CUDA && len(x.Shape) > 0 && uint64(x.Shape[d]) == x.Numel() {
				var ok bool
				if scratch, ok = cumsumScanScratch(x.Numel(), x.DType, summed(x.DType)); !ok {
					return nil, NotModelledError("torch.cumsum of " + x.DType.Name + " along a tensor's only dimension of this length (CUB's scan)")
				}
				if s.gradEnabled && x.requiresGrad() {
					return nil, NotModelledError("the backward of torch.cumsum along a tensor's only dimension on the GPU (CUB's scan)")
				}
			}
			out, err := s.alloc(x.Shape, summed(x.DType), x.Device())
			if err != nil {
				return nil, err
			}
			if scratch > 0 {
				if err := s.libScratch(x.Device(), "CUB's scan", scratch); err != nil {
					s.dropTensor(out)
					return nil, err
				}
			}
			out.st.vals = cumsumValues(x, d, out.DType)
			s.record("CumsumBackward0", out, []*Tensor{x}, nil, likeInput(3)) // grad.flip(dim).cumsum(dim).flip(dim)
			return out, nil
		}})
}

// cumsumScanScratch is CUB's DeviceScan scratch for a cumsum of n
// elements in one line from dtype in to dtype out (the same for a
// cumprod of that dtype): float32 a 16-byte tile status for each tile
// of 3840 items and 32 more (scripts/probe_cub.py on the H200,
// testdata/cub_scratch.jsonl.gz: every count from 1 to 4096 and some to
// 10^7, and 2^26 in testdata/pyrules/ops_reduce.py); float16 and
// bfloat16 the same status for tiles of 7680 items, twice float32's,
// and 256 bytes more; int64 and float64 int64ScanScratch, as
// scripts/probe_mask_scan.py measured it from 1 to 2^22 elements. The
// three dtypes besides float32, and float32's cumprod, as
// probe_cub.py --scan-dtypes recorded them on the H100 lent for the
// H200 (testdata/cub_scan_dtypes.jsonl.gz: every count from 1 to 4096
// and some to scanDTypesProbed); false for the others.
func cumsumScanScratch(n uint64, in, out DType) (uint64, bool) {
	switch {
	case in.Name != out.Name:
	case in.Name == "float32" && n <= 1<<26:
		return cubTemporaries(16 * (ceilDiv(n, 3840) + 32)), true
	case n < 1 || n > scanDTypesProbed:
	case in.Name == "float16" || in.Name == "bfloat16":
		return cubTemporaries(16*(ceilDiv(n, 7680)+32), 256), true
	case in.Name == "int64" || in.Name == "float64":
		return int64ScanScratch(n), true
	}
	return 0, false
}

// scanDTypesProbed is the largest count of one line scripts/probe_cub.py
// --scan-dtypes scanned.
const scanDTypesProbed = 10_000_000

// reduction is r's entry: torch.name and Tensor.name, over every element
// (dim None) or along one dimension; for the ops whose dim is a list
// (r.dims: sum, mean, std, var, norm), along several (reduce_dims.go).
func reduction(r reduceOp) *OpDef {
	d := &OpDef{Name: r.name, Function: true, Method: true,
		Params: r.params(),
		Memory: "new scalar (a large input: the kernel's buffer, freed after); " + r.memory}
	if r.indices {
		d.ReturnType = r.name
	}
	d.runTuple = func(s *Session, a Args) ([]*Tensor, bool, error) {
		c, err := r.call(a)
		if err != nil {
			return nil, false, err
		}
		r := r
		r.correction = c.correction
		x := c.x
		if !r.dims {
			if a[1] == nil {
				if c.keep {
					return nil, false, NotModelledError("torch." + r.name + " over every element with keepdim=True")
				}
				t, err := s.reduceAll(r, x, nil)
				return []*Tensor{t}, false, err
			}
			ts, err := s.reduceDim(r, x, a.Int(1), c.keep)
			return ts, r.indices, err
		}
		ts, err := s.reduceDims(r, c)
		return ts, false, err
	}
	return d
}

// reduceAll is r over every element of x: a 0-d tensor (of shape, all
// 1s, under keepdim), and the kernel's temporaries.
func (s *Session) reduceAll(r reduceOp, x *Tensor, shape []int64) (*Tensor, error) {
	if err := s.checkGrad(r.name, x, r.node); err != nil {
		return nil, err
	}
	out, err := s.alloc(shape, r.out(x.DType), x.Device())
	if err != nil {
		return nil, err
	}
	if err := s.reductionTemps(x, r.acc(x.DType)); err != nil {
		s.dropTensor(out)
		return nil, err
	}
	out.st.vals, _ = reduceValues(r, x, -1, out.DType)
	if r.node != "" {
		s.record(r.node, out, []*Tensor{x}, r.saves(x, out), r.bw)
	}
	return out, nil
}

// checkGrad refuses a reduction autograd would record where its node is
// not modelled ("").
func (s *Session) checkGrad(name string, x *Tensor, node string) error {
	if node == "" && s.gradEnabled && x.requiresGrad() && isFloat(x.DType) && !slices.Contains([]string{"argmax", "argmin", "any", "all"}, name) {
		return NotModelledError("the backward of torch." + name + " in this form")
	}
	return nil
}

// reduceDim is r along dimension dim of x: its output (and indices).
func (s *Session) reduceDim(r reduceOp, x *Tensor, dim int64, keep bool) ([]*Tensor, error) {
	d, err := dimIndex(dim, len(x.Shape))
	if err != nil {
		return nil, err
	}
	if len(x.Shape) == 0 {
		return nil, NotModelledError("torch." + r.name + " of a 0-d tensor along a dimension")
	}
	shape := slices.Clone(x.Shape)
	if keep {
		shape[d] = 1
	} else {
		shape = slices.Delete(shape, d, d+1)
	}
	return s.reduceAlong(r, x, x, d, shape, fmt.Sprint(dim))
}

// reduceAlong is r of x into an output of shape, its kernel that of a
// reduction of geom (x, or x with the dimensions reduced made one) along
// its dimension d; dims names them for an estimate.
func (s *Session) reduceAlong(r reduceOp, x, geom *Tensor, d int, shape []int64, dims string) ([]*Tensor, error) {
	innermost := numel(geom.Shape[d+1:]) == 1
	if why := reductionUnrecorded(r, x, geom, d); x.Device().CUDA && why != "" {
		refusal := NotModelledError(fmt.Sprintf("torch.%s along a dimension of a tensor that is not contiguous, the innermost of more than %d elements, or over 2 GiB (the kernel's buffer across blocks)", r.name, maxInnerReduction))
		if err := s.estimate(refusal, "torch."+r.name, "%s along dim %s: reductions of %s were not recorded; taken as the recorded rule of a contiguous tensor whose innermost dimension is at most %d (no buffer across the kernel's blocks, which PyTorch's kernel may add)", argShapes(Args{x}), dims, why, maxInnerReduction); err != nil {
			return nil, err
		}
	}
	acc := r.acc
	if r.dimAcc != nil {
		acc = r.dimAcc
	}
	switch {
	case innermost || !x.Device().CUDA:
	case acc(x.DType) == 0:
		return nil, NotModelledError("torch." + r.name + " of " + x.DType.Name + " along an outer dimension")
	case (r.name == "std" || r.name == "var") && s.gradEnabled && x.requiresGrad():
		// its backward's mean would reduce along the same dimension
		return nil, NotModelledError("the backward of torch." + r.name + " along an outer dimension")
	}
	if err := s.checkGrad(r.name, x, r.dimNode); err != nil {
		return nil, err
	}
	want := []tensorShape{{shape, r.out(x.DType)}}
	if r.indices {
		want = append(want, tensorShape{shape, DTypes["int64"]})
	}
	outs, err := s.allocAll(x.Device(), want...)
	if err != nil {
		return nil, err
	}
	s.reductionRan(x.Device())
	if x.Device().CUDA && !innermost {
		if err := s.outerReductionTemps(geom, []int{d}, acc(x.DType)); err != nil {
			for _, o := range outs {
				s.dropTensor(o)
			}
			return nil, err
		}
	}
	vals, indices := reduceValues(r, geom, d, outs[0].DType)
	outs[0].st.vals = vals
	if r.indices && vals != nil {
		outs[1].st.vals = indices
	}
	if r.dimNode != "" {
		save := r.saves(x, outs[0])
		if r.indices {
			save = outs[1:]
		}
		s.record(r.dimNode, outs[0], []*Tensor{x}, save, r.dimBw)
	}
	return outs, nil
}

// vectorNormBackward is the 2-norm's: grad * (self / norm), with the
// zero norm masked: a temporary of the input's size, a bool of the
// norm's shape (0-d over every element), then the gradient; the bool and
// the temporary are freed after.
func vectorNormBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	in := n.inputs[0].shape
	ts, err := s.allocAll(g.Device(), tensorShape{in, g.DType}, tensorShape{n.out, boolDType}, tensorShape{in, g.DType})
	if err != nil {
		return []*Tensor{nil}, err
	}
	s.dropTensor(ts[1])
	s.dropTensor(ts[0])
	return []*Tensor{ts[2]}, nil
}

// l1NormBackward is the 1-norm's: self.sgn() * grad, a temporary of the
// input's size, then the gradient; the temporary freed after (F.normalize
// with p=1, testdata/pyrules/ops_pad_interpolate.py).
func l1NormBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	in := tensorShape{n.inputs[0].shape, g.DType}
	ts, err := s.allocAll(g.Device(), in, in)
	if err != nil {
		return []*Tensor{nil}, err
	}
	s.dropTensor(ts[0])
	return []*Tensor{ts[1]}, nil
}

// saves is what r's node keeps of input x and output out.
func (r reduceOp) saves(x, out *Tensor) []*Tensor {
	switch {
	case r.saveResult:
		return []*Tensor{x, out}
	case r.saveInput:
		return []*Tensor{x}
	}
	return nil
}

// varianceBackward is var's backward, (2 / (n - correction)) * grad *
// (self - self.mean(dim)): the input's mean (over every element: with
// its kernel's temporaries), the input less it, the scaled gradient,
// then their product, the gradient; the three freed newest first. std's
// first makes grad / (2 * result) with the result's zeros masked (2 *
// result, the quotient, a bool mask; the mask and 2 * result freed) and
// frees it last (testdata/pyrules/ops_reduce_grad.py).
func varianceBackward(std, full bool) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		in, out, dev := n.inputs[0].shape, n.out, g.Device()
		if std {
			ts, err := s.allocAll(dev, tensorShape{out, g.DType}, tensorShape{out, g.DType}, tensorShape{out, boolDType})
			if err != nil {
				return []*Tensor{nil}, err
			}
			s.dropTensor(ts[2])
			s.dropTensor(ts[0])
			defer s.dropTensor(ts[1])
			g = ts[1]
		}
		mean, err := s.alloc(out, g.DType, dev)
		if err != nil {
			return []*Tensor{nil}, err
		}
		defer s.dropTensor(mean)
		if full {
			if err := s.reductionTemps(&Tensor{Shape: in, DType: g.DType, st: g.st}, opmath(g.DType)); err != nil {
				return []*Tensor{nil}, err
			}
		}
		ts, err := s.allocAll(dev, tensorShape{in, g.DType}, tensorShape{g.Shape, g.DType}, tensorShape{in, g.DType})
		if err != nil {
			return []*Tensor{nil}, err
		}
		s.dropTensor(ts[1])
		s.dropTensor(ts[0])
		return []*Tensor{ts[2]}, nil
	}
}

// sumBackward: the gradient is the incoming one, broadcast: no memory.
func sumBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	v := gradView(g, n.inputs[0].shape)
	v.expanded = true
	return []*Tensor{v}, nil
}

// amax and amin (testdata/pyrules/ops_repeat_more.py and
// ops_repeat_shape.py, held statement by statement; the backward over
// every element estimated): max and min's
// kernels without indices, over every element (dim=()) as max's, along
// one dimension as max's values, along several as reduce_dims.go's. AmaxBackward0 saves the input and the result and, by
// derivatives.yaml's formula, makes a bool mask of the input's shape
// (result == self), the mask's count (int64) and the gradient divided
// by it of the reduced shape, then the gradient; the three freed after.
func init() {
	for _, name := range []string{"amax", "amin"} {
		node := "A" + name[1:] + "Backward0"
		r := reduceOp{name: name, acc: elem, out: same, node: node, bw: extremaBackward, saveResult: true, dimNode: node, dimBw: extremaBackward}
		declare(&OpDef{Name: name, Function: true, Method: true, Params: []Param{input, intsParam("dim", "()"), keepdim},
			Memory: "max's (min's) values: over every element a scalar and the kernel's buffer, along a dimension the reduced output; saves input and result; backward makes a bool mask of the input's shape, its count and the gradient divided by it, then the gradient",
			run: func(s *Session, a Args) (*Tensor, error) {
				outs, err := s.reduceDims(r, reduceCall{x: a.Tensor(0), dims: a.Ints(1), keep: a.Bool(2), correction: 1, p: 2})
				if err != nil {
					return nil, err
				}
				return outs[0], nil
			}})
	}
}

// reducedShape is shape reduced along dims (every one when dims is
// empty), kept as 1s with keep.
func reducedShape(shape, dims []int64, keep bool) ([]int64, error) {
	drop := make([]bool, len(shape))
	for _, dim := range dims {
		d, err := dimIndex(dim, len(shape))
		if err != nil {
			return nil, err
		}
		if drop[d] {
			return nil, Errorf(RuntimeError, "dim %d appears multiple times in the list of dims", d)
		}
		drop[d] = true
	}
	var out []int64
	for d, n := range shape {
		switch {
		case len(dims) > 0 && !drop[d]:
			out = append(out, n)
		case keep:
			out = append(out, 1)
		}
	}
	return out, nil
}

// extremaBackward is amax's and amin's, scale_grad_by_count's
// (grad / mask.sum(dims, keepdim=True)) * mask: the mask (result ==
// self, bool of the input's shape), its count (int64, the reduced
// shape), the mask cast to int64 for the sum (the input's shape, freed
// at once), the quotient (the reduced shape), then the gradient; the
// quotient, the count and the mask freed, newest first
// (testdata/pyrules/ops_repeat_more.py line 14, ops_repeat_shape.py
// lines 165 and 172).
func extremaBackward(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
	in := n.inputs[0].shape
	if len(g.Shape) == 0 && len(in) > 0 {
		// the count's sum over every element may take a buffer across
		// blocks, and this backward was recorded along a dimension only
		if err := s.estimate(nil, n.name, "backward of %s over every element: the mask's count summed across blocks, recorded along a dimension only (ops_repeat_more.py, ops_repeat_shape.py)", dimList(in)); err != nil {
			return []*Tensor{nil}, err
		}
	}
	ts, err := s.allocAll(g.Device(), tensorShape{in, boolDType}, tensorShape{g.Shape, DTypes["int64"]}, tensorShape{in, DTypes["int64"]})
	if err != nil {
		return []*Tensor{nil}, err
	}
	s.dropTensor(ts[2])
	rest, err := s.allocAll(g.Device(), tensorShape{g.Shape, g.DType}, tensorShape{in, g.DType})
	defer s.dropTensor(ts[0])
	defer s.dropTensor(ts[1])
	if err != nil {
		return []*Tensor{nil}, err
	}
	s.dropTensor(rest[0])
	return rest[1:], nil
}

// torch.logsumexp along dimensions (testdata/pyrules/
// ops_repeat_shape.py, held statement by statement): as PyTorch computes
// it, the maxima (keepdim) and, squeezed, their abs and == inf mask
// (freed, mask first, when masked_fill_'s statement ends), the input less
// the maxima (exp in place), its sum, the output; then the difference
// and the maxima freed. LogsumexpBackward0 saves the input and the
// result and makes grad * (self - result).exp(): three tensors of the
// input's shape, the last kept.
func init() {
	declare(&OpDef{Name: "logsumexp", Function: true, Method: true, Params: []Param{input, {Name: "dim", Kind: DimsParam}, keepdim},
		Memory: "the maxima, the input less them (input's size), the output; saves input and result; backward makes three tensors of the input's shape",
		run: func(s *Session, a Args) (*Tensor, error) {
			x, dims, keep := a.Tensor(0), a.Ints(1), a.Bool(2)
			if !isFloat(x.DType) {
				return nil, NotModelledError("torch.logsumexp of an integral tensor")
			}
			kept, err := reducedShape(x.Shape, dims, true)
			if err != nil {
				return nil, err
			}
			shape, _ := reducedShape(x.Shape, dims, keep)
			// the maxima, their abs and the mask, freed with the statement
			// that made them; then the input less the maxima, the output
			maxima, err := s.allocAll(x.Device(), tensorShape{kept, x.DType}, tensorShape{kept, x.DType}, tensorShape{kept, boolDType})
			if err != nil {
				return nil, err
			}
			s.dropTensor(maxima[2])
			s.dropTensor(maxima[1])
			ts, err := s.allocAll(x.Device(), tensorShape{slices.Clone(x.Shape), x.DType}, tensorShape{shape, x.DType})
			if err != nil {
				s.dropTensor(maxima[0])
				return nil, err
			}
			s.dropTensor(ts[0])
			s.dropTensor(maxima[0])
			out := ts[1]
			s.record("LogsumexpBackward0", out, []*Tensor{x}, []*Tensor{x, out}, likeInput(3))
			return out, nil
		}})
}

// torch.var_mean and std_mean: one Welford kernel with two outputs of
// the reduced shape (over every element, its 16-byte accumulator a
// block as std's), var (std) first. Their node saves the input and its
// backward is varMeanBackward. var_mean along dimensions, forward and
// backward, is testdata/pyrules/ops_census_more.py's (held statement by
// statement by TestRecordedStatements); over every element, and
// std_mean's backward, are not recorded: estimated (ops_structseq.py
// records std_mean's forward over every element, not its backward).
func init() {
	for _, name := range [...]string{"var_mean", "std_mean"} {
		std := name == "std_mean"
		declare(&OpDef{Name: name, Function: true, Params: []Param{input, intsParam("dim", "None"), {Name: "correction", Kind: NumberParam, Default: "None", KeywordOnly: true}, {Name: "keepdim", Kind: BoolParam, Default: "False", KeywordOnly: true}},
			Memory: "two outputs of the reduced shape (a 16-byte accumulator a block over every element); saves the input; backward makes var's (std's) gradient of the input, then the mean's, then their sum, the others freed" +
				" (var_mean along dimensions recorded; over every element, and std_mean, estimated from PyTorch's formulas)",
			runTuple: func(s *Session, a Args) ([]*Tensor, bool, error) {
				x, dims := a.Tensor(0), a.Ints(1)
				full := len(dims) == 0
				if !isFloat(x.DType) {
					return nil, false, Errorf(RuntimeError, "std and var only support floating point and complex dtypes")
				}
				made := func(...*Tensor) {}
				if std || full {
					cause := recording("")
					if !std {
						cause = "over every element " + cause + " (ops_census_more.py records it along a dimension)"
					}
					var err error
					if made, err = s.estimateOp("torch."+name, "%s: memory rule from PyTorch's formula, %s", argShapes(a), cause); err != nil {
						return nil, false, err
					}
				}
				shape, err := reducedShape(x.Shape, dims, a.Bool(3))
				if err != nil {
					return nil, false, err
				}
				outs, err := s.allocAll(x.Device(), tensorShape{shape, x.DType}, tensorShape{slices.Clone(shape), x.DType})
				if err != nil {
					return nil, false, err
				}
				if full {
					if err := s.reductionTemps(x, welford(x.DType)); err != nil {
						s.dropAll(outs)
						return nil, false, err
					}
				}
				node := map[bool]string{false: "VarMeanBackward0", true: "StdMeanBackward0"}[std]
				s.recordPieces(node, outs, x, []*Tensor{x}, varMeanBackward(std, full))
				made(outs...)
				return outs, true, nil
			}})
	}
}

// varMeanBackward is VarMeanBackward0's (StdMeanBackward0's) backward,
// var_mean_backward's formula (std_mean_backward's): var's (std's)
// backward of the first output's gradient (varianceBackward), then
// mean_backward of the second's, its gradient expanded and divided by
// the count (a tensor of the input's shape), and the sum of the two,
// var's part freed, then the mean's. An output without a gradient (not
// used) leaves its part out.
func varMeanBackward(std, full bool) backward {
	return func(s *Session, n *node, _ *Tensor) ([]*Tensor, error) {
		grads := n.grads
		n.grads = make([]*Tensor, len(grads))
		defer s.dropAll(grads)
		var part *Tensor
		if g := grads[0]; g != nil {
			ts, err := varianceBackward(std, full)(s, n, g)
			if err != nil {
				return ts, err
			}
			part = ts[0]
		}
		g := grads[1]
		if g == nil {
			return []*Tensor{part}, nil
		}
		aux, err := s.alloc(n.inputs[0].shape, g.DType, g.Device())
		if err != nil || part == nil {
			if part != nil {
				s.dropTensor(part)
			}
			return []*Tensor{aux}, err
		}
		sum, err := s.alloc(n.inputs[0].shape, g.DType, g.Device())
		s.dropTensor(part)
		s.dropTensor(aux)
		return []*Tensor{sum}, err
	}
}
