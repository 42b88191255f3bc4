package engine

import "slices"

// torch.multinomial as PyTorch 2.11's multinomial_out runs it: the
// int64 result [rows, num_samples] (or [num_samples]) first, then one of
// two paths.
//
// One sample, or none drawn twice (the Gumbel trick): the checks of the
// probabilities, each a reduction and 0-d bool tensors (max < inf and
// min >= 0, their & kept to the end; the row sums == 0 reduced by any
// (a 1-d input: the sum == 0), kept to the end, and a 1-byte temporary
// of its negation); then q of the input's shape (exponential_ in place,
// the input divided by it in place); one sample is argmax of q written
// into the result, several topk of q into the result and values of the
// input's dtype made for it (topk's buffers across blocks, topkTemps),
// the values freed; then q, then the two kept bools. gpt2_sample.py's
// sampling loop (testdata/models/zoo) recorded one sample from rows, and
// testdata/pyrules/ops_census_more.py 8 of 50,000 from 64 rows.
//
// Several samples with replacement (the CUDA kernel's generic path):
// the input copied, a copy renormalised along rows and their prefix sums
// (three tensors of the input's shape, freed newest first); a single
// row's prefix sum is one line, CUB's scan (its scratch made and freed).
// testdata/pyrules/census_python.py recorded 4 samples from 8 rows;
// scripts/probe_unique.py (testdata/pyrules/unique_probe.txt) a 1-d
// input both ways, one row with replacement and rows too short for
// topk's multi-block kernel.

// multinomial is torch.multinomial(p, n, replacement); gen is the
// generator's device, or nil.
func (s *Session) multinomial(p *Tensor, n int64, replacement bool, gen any) (*Tensor, error) {
	if err := checkGenerator(gen, p.Device()); err != nil {
		return nil, err
	}
	switch {
	case len(p.Shape) != 1 && len(p.Shape) != 2:
		return nil, Errorf(RuntimeError, "prob_dist must be 1 or 2 dim")
	case !isFloat(p.DType):
		return nil, Errorf(RuntimeError, "multinomial only supports floating-point dtypes for input, got: %s", LegacyBase(p.DType))
	case n <= 0:
		return nil, Errorf(RuntimeError, "cannot sample n_sample <= 0 samples")
	case !replacement && n > p.Shape[len(p.Shape)-1]:
		return nil, Errorf(RuntimeError, "cannot sample n_sample > prob_dist.size(-1) samples without replacement")
	}
	fast := !replacement || n == 1
	shape := slices.Clone(p.Shape)
	shape[len(shape)-1] = n
	defer s.SetGradEnabled(s.SetGradEnabled(false))
	out, err := s.alloc(shape, DTypes["int64"], p.Device())
	if err != nil {
		return nil, err
	}
	if fast {
		err = s.multinomialGumbel(p, n)
	} else {
		err = s.multinomialReplacement(p)
	}
	if err != nil {
		s.dropTensor(out)
		return nil, err
	}
	return out, nil
}

// multinomialReplacement makes and frees the generic kernel's copies of
// x, rows of probabilities.
func (s *Session) multinomialReplacement(x *Tensor) error {
	dev := x.Device()
	ts, err := s.allocAll(dev, tensorShape{x.Shape, x.DType}, tensorShape{x.Shape, x.DType}, tensorShape{x.Shape, x.DType})
	if err != nil {
		return err
	}
	defer s.dropAll(ts)
	if rows := x.Numel() / uint64(x.Shape[len(x.Shape)-1]); rows == 1 && dev.CUDA {
		scratch, ok := cumsumScanScratch(x.Numel(), x.DType, x.DType)
		if !ok {
			return NotModelledError("torch.multinomial with replacement of one row of " + x.DType.Name + " of this length (CUB's scan)")
		}
		return s.libScratch(dev, "CUB's scan", scratch)
	}
	return nil
}

// multinomialGumbel makes and frees what n samples from x take by the
// Gumbel trick, beside the result.
func (s *Session) multinomialGumbel(x *Tensor, n int64) error {
	dev := x.Device()
	var kept, temps []*Tensor
	defer func() { s.dropAll(kept) }()
	done := func() {
		s.dropAll(temps)
		temps = nil
	}
	defer done()
	run := func(name string, a Args) (*Tensor, error) {
		ts, _, err := s.RunTuple(Ops[name], a)
		if err != nil {
			return nil, err
		}
		temps = append(temps, ts[0])
		return ts[0], nil
	}
	bool0 := func() error {
		b, err := s.alloc(nil, boolDType, dev)
		if err == nil {
			temps = append(temps, b)
		}
		return err
	}
	// ((x.max() < inf) & (x.min() >= 0)): the & kept, the rest freed
	// newest first
	for _, r := range []string{"max", "min"} {
		if _, err := run(r, Args{x, nil, false}); err != nil {
			return err
		}
		if err := bool0(); err != nil {
			return err
		}
	}
	valid, err := s.alloc(nil, boolDType, dev)
	if err != nil {
		return err
	}
	kept = append(kept, valid)
	done()
	// (x.sum(1) == 0).any(), or x.sum() == 0: kept, the sum and the
	// comparison freed; then its negation's temporary
	var dim any
	if len(x.Shape) == 2 {
		dim = int64(1)
	}
	sums, err := run("sum", Args{x, dim, false})
	if err != nil {
		return err
	}
	zero, err := s.alloc(sums.Shape, boolDType, dev)
	if err != nil {
		return err
	}
	if dim != nil {
		temps = append(temps, zero)
		anyTs, _, err := s.RunTuple(Ops["any"], Args{zero, nil, false})
		if err != nil {
			return err
		}
		zero = anyTs[0]
	}
	kept = append(kept, zero)
	done()
	if err := bool0(); err != nil {
		return err
	}
	done()
	q, err := s.alloc(x.Shape, x.DType, dev)
	if err != nil {
		return err
	}
	layOut(q, x)
	defer s.dropTensor(q)
	if n == 1 {
		return nil
	}
	shape := slices.Clone(x.Shape)
	shape[len(shape)-1] = n
	vals, err := s.alloc(shape, x.DType, dev)
	if err != nil {
		return err
	}
	defer s.dropTensor(vals)
	return s.topkTemps(q, uint64(x.Shape[len(x.Shape)-1]))
}
