package engine

import "slices"

// torch.multinomial on the GPU, as PyTorch 2.11's multinomial_out runs
// its fast path (one sample, or none drawn twice: the Gumbel trick),
// recorded in gpt2_sample.py's sampling loop (testdata/models/zoo): the
// int64 result [rows, num_samples] first; the checks of the
// probabilities, each a reduction and 0-d bool tensors (max < inf and
// min >= 0, kept to the end; the row sums == 0 reduced by any, kept to
// the end, and a 1-byte temporary of its negation); then q of the
// input's shape (exponential_ in place, the input divided by it in
// place), the result written by argmax of q, and q freed before the two
// kept bools. More than one sample draws them by topk into a float
// tensor of the result's shape, whose scratch is not recorded, and with
// replacement another kernel: both estimated, as the result alone.

func init() {
	declare(&OpDef{Name: "multinomial", Function: true, Method: true,
		Params: []Param{input, {Name: "num_samples", Kind: IntParam}, {Name: "replacement", Kind: BoolParam, Default: "False"}},
		Memory: "int64 [rows, num_samples]; one sample: the checks' reductions and 0-d bools, then a tensor of the input's shape (freed) for the Gumbel trick's argmax; more samples estimated",
		run: func(s *Session, a Args) (*Tensor, error) {
			return s.multinomial(a.Tensor(0), a.Int(1), a.Bool(2))
		}})
}

func (s *Session) multinomial(x *Tensor, n int64, replacement bool) (*Tensor, error) {
	switch {
	case len(x.Shape) < 1 || len(x.Shape) > 2:
		return nil, Errorf(RuntimeError, "prob_dist must be 1 or 2 dim")
	case !isFloat(x.DType):
		return nil, Errorf(RuntimeError, "multinomial only supports floating-point dtypes for input, got: %s", x.DType.Name)
	case n <= 0:
		return nil, Errorf(RuntimeError, "cannot sample n_sample <= 0 samples")
	case !replacement && n > x.Shape[len(x.Shape)-1]:
		return nil, Errorf(RuntimeError, "cannot sample n_sample > prob_dist.size(-1) samples without replacement")
	}
	shape := append(slices.Clone(x.Shape[:len(x.Shape)-1]), n)
	fast := n == 1 || !replacement
	if !fast || n > 1 || len(x.Shape) == 1 || !x.Device().CUDA {
		if err := s.estimate(nil, "torch.multinomial", "%s %s, %d samples: only one sample from rows of probabilities on the GPU is recorded; taken as its int64 result alone", dimList(x.Shape), x.DType.Name, n); err != nil {
			return nil, err
		}
		return s.alloc(shape, DTypes["int64"], x.Device())
	}
	dev := x.Device()
	defer s.SetGradEnabled(s.SetGradEnabled(false))
	out, err := s.alloc(shape, DTypes["int64"], dev)
	if err != nil {
		return nil, err
	}
	var kept, temps []*Tensor
	done := func(err error) (*Tensor, error) {
		for i := len(temps) - 1; i >= 0; i-- {
			s.dropTensor(temps[i])
		}
		temps = nil
		if err == nil {
			return out, nil
		}
		s.dropAll(kept)
		s.dropTensor(out)
		return nil, err
	}
	run := func(name string, a Args) (*Tensor, error) {
		ts, _, err := s.RunTuple(Ops[name], a)
		if err != nil {
			return nil, err
		}
		temps = append(temps, ts[0])
		return ts[0], nil
	}
	bool0 := func() (*Tensor, error) {
		b, err := s.alloc(nil, boolDType, dev)
		if err == nil {
			temps = append(temps, b)
		}
		return b, err
	}
	// ((x.max() < inf) & (x.min() >= 0)): the & kept, the rest freed
	// newest first
	for _, r := range []string{"max", "min"} {
		if _, err := run(r, Args{x, nil, false}); err != nil {
			return done(err)
		}
		if _, err := bool0(); err != nil {
			return done(err)
		}
	}
	valid, err := s.alloc(nil, boolDType, dev)
	if err != nil {
		return done(err)
	}
	kept = append(kept, valid)
	done(nil)
	// (x.sum(1) == 0).any(): the any kept, the sum and comparison freed,
	// then its negation's temporary
	sums, err := run("sum", Args{x, int64(1), false})
	if err != nil {
		return done(err)
	}
	eq, err := s.alloc(sums.Shape, boolDType, dev)
	if err != nil {
		return done(err)
	}
	anyTs, _, err := s.RunTuple(Ops["any"], Args{eq, nil, false})
	s.dropTensor(eq)
	if err != nil {
		return done(err)
	}
	kept = append(kept, anyTs[0])
	done(nil)
	if _, err := bool0(); err != nil {
		return done(err)
	}
	done(nil)
	q, err := s.alloc(x.Shape, x.DType, dev)
	if err != nil {
		return done(err)
	}
	layOut(q, x)
	s.dropTensor(q)
	for i := len(kept) - 1; i >= 0; i-- {
		s.dropTensor(kept[i])
	}
	return out, nil
}
