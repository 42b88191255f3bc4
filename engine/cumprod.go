package engine

import "slices"

// torch.cumprod, as testdata/pyrules/ops_scan.py recorded it (the
// lead's GPU call of 2026-12-06 03:44, on an H100) and
// ops_repeat_shape.py along the rows of a 512 x 1024 float32 tensor.
// The forward is impl_func_cum_ops's (cumScan): the output (of dtype= or
// the input's, integers as int64), the input converted to it or made
// contiguous where it is neither (freed after), and, for a scan of a
// tensor's only line (numel equal to the scanned dimension), CUB's
// DeviceScan scratch, made and freed after the output: the same as a
// cumsum's of the dtype (cumsumScanScratch: float32's, float16's,
// bfloat16's, float64's and int64's recorded by scripts/probe_cub.py
// --scan-dtypes); for a dtype or count whose scratch was not recorded
// float32's is taken, an estimate. A scan of a longer tensor, along its
// last dimension or another, has no temporaries. CumprodBackward0 saves
// the input and the result; its backward is cumprod_backward's
// (cumprodBackward), whose path the input's zeros choose.
func init() {
	declare(&OpDef{Name: "cumprod", Function: true, Method: true,
		Params: []Param{input, {Name: "dim", Kind: DimParam}, {Name: "dtype", Kind: DTypeParam, Default: "None", KeywordOnly: true}},
		Memory: "new tensor of the input's shape (a converted or contiguous copy of the input first, freed; CUB's scan scratch for one line); saves input and result; backward makes result * grad and a bool mask, then for an input without a zero two flips and a cumsum of its size before the gradient, for one with a zero the gradient, masks and scans that select and scatter each line's part before and at its first zero (testdata/pyrules/ops_scan.py)",
		run: func(s *Session, a Args) (*Tensor, error) {
			x := a.Tensor(0)
			d, err := dimIndex(a.Int(1), len(x.Shape))
			if err != nil {
				return nil, err
			}
			dt := summed(x.DType)
			if len(a) > 2 {
				dt = a.DType(2, dt)
			}
			if err := s.scanEstimate("torch.cumprod", x.Device(), x.Shape, d, dt); err != nil {
				return nil, err
			}
			out, err := s.cumScan(x, d, dt)
			if err != nil {
				return nil, err
			}
			s.record("CumprodBackward0", out, []*Tensor{x}, []*Tensor{x, out}, cumprodBackward(x, d))
			return out, nil
		}})
}

// cumScan is impl_func_cum_ops's scan of x along dim d into a new tensor
// of dtype dt: the output, x converted to dt or made contiguous where it
// is neither (freed after the scan), and CUB's scratch for one line.
func (s *Session) cumScan(x *Tensor, d int, dt DType) (*Tensor, error) {
	out, err := s.alloc(slices.Clone(x.Shape), dt, x.Device())
	if err != nil {
		return nil, err
	}
	var copied *Tensor
	if dt.Name != x.DType.Name || !x.IsContiguous() {
		if copied, err = s.alloc(slices.Clone(x.Shape), dt, x.Device()); err != nil {
			s.dropTensor(out)
			return nil, err
		}
	}
	err = s.scanScratch(x.Device(), x.Shape, d, dt)
	if copied != nil {
		s.dropTensor(copied)
	}
	if err != nil {
		s.dropTensor(out)
		return nil, err
	}
	return out, nil
}

// oneLine reports whether a scan along dim d of shape goes to CUB's
// DeviceScan: the tensor is that one line (scan_dim).
func oneLine(shape []int64, d int) bool {
	return len(shape) > 0 && uint64(shape[d]) == numel(shape)
}

// scanScratch is CUB's DeviceScan scratch of a scan along dim d of a
// tensor of shape into dtype dt, made and freed: only where the tensor
// is one line on the GPU, sized as a float32 scan's where the dtype's
// was not recorded (scanEstimate says so).
func (s *Session) scanScratch(dev Device, shape []int64, d int, dt DType) error {
	if !dev.CUDA || !oneLine(shape, d) {
		return nil
	}
	n, ok := cumsumScanScratch(numel(shape), dt, dt)
	if !ok {
		n, _ = cumsumScanScratch(numel(shape), Float32, Float32)
	}
	return s.libScratch(dev, "CUB's scan", n)
}

// scanEstimate marks op's figures estimated where it scans one line on
// the GPU in a dtype whose CUB scratch was not recorded.
func (s *Session) scanEstimate(op string, dev Device, shape []int64, d int, dt DType) error {
	if !dev.CUDA || !oneLine(shape, d) {
		return nil
	}
	if _, ok := cumsumScanScratch(numel(shape), dt, dt); ok {
		return nil
	}
	return s.estimate(nil, op, "%s %s along its only dimension: CUB's scan scratch of %s not recorded (scripts/probe_cub.py --scan-dtypes), float32's taken", dimList(shape), dt.Name, dt.Name)
}

// cumprodBackward is cumprod_backward's for input x along dim d (run
// with grad mode off): the gradient itself for a tensor of one element
// or a dimension of 1; else w = result * grad and the mask input == 0,
// its any() read by .item(); without a zero the reversed cumsum of w
// divided by the input (the gradient; w.flip(d).cumsum(d).flip(d), the
// last freed after it), with one cumprodZeros; then the mask and w
// freed. The tool knows the zeros where it knows x's values, or where a
// zero was written into x whose other values it does not know, which
// it takes for nonzero (knownZeros).
func cumprodBackward(x *Tensor, d int) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		dev, shape := g.Device(), n.inputs[0].shape
		if numel(shape) <= 1 || shape[d] == 1 {
			return []*Tensor{share(g)}, nil
		}
		if err := s.scanEstimate("torch.cumprod's backward", dev, shape, d, g.DType); err != nil {
			return []*Tensor{nil}, err
		}
		like := tensorShape{shape, g.DType}
		ts, err := s.allocAll(dev, like, tensorShape{shape, boolDType})
		if err != nil {
			return []*Tensor{nil}, err
		}
		defer s.dropAll(ts)
		anyTs, _, err := s.RunTuple(Ops["any"], Args{ts[1], nil, false})
		if err != nil {
			return []*Tensor{nil}, err
		}
		s.dropAll(anyTs)
		if zero := knownZeros(x); zero != nil {
			grad, err := s.cumprodZeros(ts[1], x.DType, g.DType, d, zero)
			return []*Tensor{grad}, err
		}
		rev, err := s.reversedCumsum(ts[0], d)
		if err != nil {
			return []*Tensor{nil}, err
		}
		grad, err := s.alloc(shape, g.DType, dev)
		s.dropTensor(rev)
		return []*Tensor{grad}, err
	}
}

// reversedCumsum is w.flip(d).cumsum(d).flip(d): the flip, its cumsum
// (with its scan's scratch), their flip; the cumsum and the first flip
// freed as the expression ends.
func (s *Session) reversedCumsum(w *Tensor, d int) (*Tensor, error) {
	like := tensorShape{w.Shape, w.DType}
	ts, err := s.allocAll(w.Device(), like, like)
	if err != nil {
		return nil, err
	}
	defer s.dropAll(ts)
	if err := s.scanScratch(w.Device(), w.Shape, d, w.DType); err != nil {
		return nil, err
	}
	return s.alloc(w.Shape, w.DType, w.Device())
}

// cumprodZeros is cumprod_backward's path for an input (of dtype xdt)
// with a zero along dim d (zero: which elements, in order), after w and
// the mask isZero: the gradient, zeros; the cumsum of the mask (int64,
// through an int64 copy of it); the elements before each line's first
// zero (cumsum == 0) scattered in from the reversed cumsum of w filled
// with 0 past them, selected (masked_select, then masked_scatter_'s
// offsets and scan); the mask cumsum == 1, its max along d (the first
// zero's index; the values freed), the first zero's mask and the mask
// less it; the first zeros scattered in from the cumprod of the input
// filled with 1 outside the mask times the gradient filled with 0
// outside cumsum == 1, summed along d and multiplied by the result's
// element before the first zero (first_zero_index - 1, the gathered
// element, first_zero_index == 0), selected; then the expression's
// temporaries and the locals freed, the last made first. Recorded for a
// tensor's only line (ops_scan.py's line with a zero); for more lines
// an estimate.
func (s *Session) cumprodZeros(isZero *Tensor, xdt, dt DType, d int, zero []bool) (*Tensor, error) {
	dev, shape := isZero.Device(), isZero.Shape
	if !oneLine(shape, d) {
		if err := s.estimate(nil, "torch.cumprod's backward", "%s with a zero along dim %d: cumprod_backward's path for a zero recorded for a tensor's only line (testdata/pyrules/ops_scan.py), not for %d lines", dimList(shape), d, numel(shape)/uint64(shape[d])); err != nil {
			return nil, err
		}
	}
	before, first := firstZeros(shape, d, zero)
	keep := slices.Clone(shape)
	keep[d] = 1
	mask := tensorShape{shape, boolDType}
	var locals []*Tensor // C++'s locals, destroyed last first
	defer func() { s.dropAll(locals) }()
	grad, err := s.alloc(shape, dt, dev)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Tensor, error) {
		s.dropTensor(grad)
		return nil, err
	}
	cumsum, err := s.cumScan(isZero, d, DTypes["int64"])
	if err != nil {
		return fail(err)
	}
	locals = append(locals, cumsum)
	m, err := s.alloc(shape, boolDType, dev)
	if err != nil {
		return fail(err)
	}
	m.st.vals = before
	// grad_input.masked_scatter_(mask, reversed_cumsum(w.masked_fill(~mask, 0.), dim).div_(input_conj).masked_select(mask))
	temps, err := s.allocAll(dev, mask, tensorShape{shape, dt})
	if err == nil {
		err = s.selectScatter(&temps, temps[1], m, d, true)
	}
	s.dropAll(temps)
	if err != nil {
		s.dropTensor(m)
		return fail(err)
	}
	// mask = cumsum == 1; its max along d; the first zero's mask; mask &= ~first_zero_mask
	m1, err := s.alloc(shape, boolDType, dev)
	s.dropTensor(m)
	if err != nil {
		return fail(err)
	}
	locals = append(locals, m1)
	maxTs, _, err := s.RunTuple(Ops["max"], Args{m1, int64(d), true})
	if err != nil {
		return fail(err)
	}
	s.dropTensor(maxTs[0])
	locals = append(locals, maxTs[1])
	fzm, err := s.alloc(shape, boolDType, dev)
	if err != nil {
		return fail(err)
	}
	fzm.st.vals = first
	locals = append(locals, fzm)
	inv, err := s.alloc(shape, boolDType, dev)
	if err != nil {
		return fail(err)
	}
	s.dropTensor(inv)
	// grad_input.masked_scatter_(first_zero_mask, input_conj.masked_fill(~mask, 1.).cumprod(dim)
	//     .mul_(grad.masked_fill(cumsum != 1, 0.)).sum(dim, true).mul_(gathered).masked_select(first_zero_mask))
	temps, err = s.allocAll(dev, mask, tensorShape{shape, xdt})
	if err == nil {
		var c *Tensor
		if c, err = s.cumScan(temps[1], d, summed(xdt)); err == nil {
			temps = append(temps, c)
			var more []*Tensor
			more, err = s.allocAll(dev, mask, tensorShape{shape, dt})
			temps = append(temps, more...)
		}
		if err == nil {
			var sum []*Tensor
			if sum, _, err = s.RunTuple(Ops["sum"], Args{temps[2], int64(d), true}); err == nil {
				temps = append(temps, sum...)
				var more []*Tensor
				more, err = s.allocAll(dev, tensorShape{keep, DTypes["int64"]}, tensorShape{keep, dt}, tensorShape{keep, boolDType})
				temps = append(temps, more...)
			}
		}
		if err == nil {
			err = s.selectScatter(&temps, temps[5], fzm, d, false)
		}
	}
	s.dropAll(temps)
	if err != nil {
		return fail(err)
	}
	return grad, nil
}

// selectScatter is src.masked_select(m) (which temps takes) and
// masked_scatter_'s temporaries of putting it where m says, into a
// tensor of m's shape.
func (s *Session) selectScatter(temps *[]*Tensor, src, m *Tensor, d int, reversed bool) error {
	if reversed {
		rev, err := s.reversedCumsum(src, d)
		if err != nil {
			return err
		}
		*temps = append(*temps, rev)
		src = rev
	}
	sel, err := s.MaskedSelect(src, m)
	if err != nil {
		return err
	}
	*temps = append(*temps, sel)
	return s.maskedScatterTemps(sel, m.Numel(), false)
}

// firstZeros are, for a tensor of shape whose zero elements zero says,
// the values of the mask of the elements before the first zero of their
// line along dim d (cumsum == 0: all of a line without one), and of the
// mask of each line's first zero.
func firstZeros(shape []int64, d int, zero []bool) (before, first knownValues) {
	inner := numel(shape[d+1:])
	length := uint64(shape[d])
	firstAt := map[uint64]uint64{} // a line's first zero, by line
	line := func(i uint64) (uint64, uint64) {
		return i/(inner*length)*inner + i%inner, i / inner % length
	}
	for i, z := range zero {
		if l, at := line(uint64(i)); z {
			if f, ok := firstAt[l]; !ok || at < f {
				firstAt[l] = at
			}
		}
	}
	before, first = make(knownValues, len(zero)), make(knownValues, len(zero))
	for i := range zero {
		l, at := line(uint64(i))
		f, ok := firstAt[l]
		if !ok || at < f {
			before[i] = 1
		}
		if ok && at == f {
			first[i] = 1
		}
	}
	return before, first
}
