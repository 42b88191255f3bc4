package engine

import "slices"

// torch.cumprod, modelled from PyTorch 2.11's source and not yet
// recorded on the GPU (testdata/pyrules/ops_scan.py), not yet held to it: estimated.
// The forward is impl_func_cum_ops's: the output (of dtype= or the
// input's, integers as int64), the input converted to it or made
// contiguous where it is neither (freed after), and, for a scan of a
// tensor's only line (numel equal to the scanned dimension), CUB's
// DeviceScan scratch, which a float32 cumsum's recording sizes
// (cumsumScanScratch; other dtypes take the float32 size), made and
// freed after the output; a scan of a longer tensor, along its last
// dimension or another, has no temporaries. CumprodBackward0 saves the
// input and the result; its backward is cumprod_backward's path for an
// input without zeros (the tool does not know the values): w = result *
// grad, the mask input == 0 and its any() read by .item(), then
// w.flip(d).cumsum(d).flip(d) (the middle cumsum with its own scratch
// for one line; the first flip and the cumsum freed as the last flip is
// made), divided by the input: the quotient is the gradient, the last
// flip, the mask and w freed in that order. Every event of
// testdata/pyrules/ops_repeat_shape.py's cumprod along the rows of a 512
// x 1024 float32 tensor, forward and backward, is made in order, and
// ddpm_unet.py's recording shows the 1,023 bytes of scratch for 1,000.
func init() {
	declare(estimated("ops_scan.py", &OpDef{Name: "cumprod", Function: true, Method: true,
		Params: []Param{input, {Name: "dim", Kind: DimParam}, {Name: "dtype", Kind: DTypeParam, Default: "None", KeywordOnly: true}},
		Memory: "new tensor of the input's shape (a converted or contiguous copy of the input first, freed; CUB's scan scratch for one line); saves input and result; backward makes result * grad, a bool mask, two flips and a cumsum of its size before the gradient",
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
			err = s.scanScratch(x, d, dt)
			if copied != nil {
				s.dropTensor(copied)
			}
			if err != nil {
				s.dropTensor(out)
				return nil, err
			}
			s.record("CumprodBackward0", out, []*Tensor{x}, []*Tensor{x, out}, cumprodBackward(d))
			return out, nil
		}}))
}

// scanScratch is CUB's DeviceScan scratch of a cumulative op along dim d
// of x into dtype dt, made and freed: only where x is one line on the
// GPU (scan_dim hands those to CUB), sized as a float32 cumsum's where
// the dtype was not measured.
func (s *Session) scanScratch(x *Tensor, d int, dt DType) error {
	if !x.Device().CUDA || len(x.Shape) == 0 || uint64(x.Shape[d]) != x.Numel() {
		return nil
	}
	n, ok := cumsumScanScratch(x.Numel(), dt, dt)
	if !ok {
		n, _ = cumsumScanScratch(x.Numel(), Float32, Float32)
	}
	return s.libScratch(x.Device(), "CUB's scan", n)
}

// cumprodBackward is cumprod_backward's for an input without zeros,
// along dim d.
func cumprodBackward(d int) backward {
	return func(s *Session, n *node, g *Tensor) ([]*Tensor, error) {
		dev, shape := g.Device(), n.inputs[0].shape
		like := tensorShape{shape, g.DType}
		// w, the mask input == 0, and its any() (the 0-d bool and the
		// reduction's temporaries), read and freed
		ts, err := s.allocAll(dev, like, tensorShape{shape, boolDType})
		if err != nil {
			return []*Tensor{nil}, err
		}
		anyTs, _, err := s.RunTuple(Ops["any"], Args{ts[1], nil, false})
		if err == nil {
			s.dropAll(anyTs)
		}
		defer func() {
			s.dropTensor(ts[1])
			s.dropTensor(ts[0])
		}()
		if err != nil {
			return []*Tensor{nil}, err
		}
		// w.flip(d), its cumsum (with its scan's scratch), their flip
		flipped, err := s.allocAll(dev, like, like)
		if err != nil {
			return []*Tensor{nil}, err
		}
		err = s.scanScratch(flipped[1], d, g.DType)
		var last []*Tensor
		if err == nil {
			last, err = s.allocAll(dev, like)
		}
		s.dropTensor(flipped[1])
		s.dropTensor(flipped[0])
		if err != nil {
			return []*Tensor{nil}, err
		}
		grad, err := s.allocAll(dev, like)
		s.dropTensor(last[0])
		if err != nil {
			return []*Tensor{nil}, err
		}
		return grad, nil
	}
}
