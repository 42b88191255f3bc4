package engine

// torch.multinomial on the GPU, as PyTorch 2.11's multinomial_out runs
// its fast path (one sample, or none drawn twice: the Gumbel trick),
// recorded in gpt2_sample.py's sampling loop (testdata/models/zoo): the
// int64 result [rows, num_samples] first; the checks of the
// probabilities, each a reduction and 0-d bool tensors (max < inf and
// min >= 0, kept to the end; the row sums == 0 reduced by any, kept to
// the end, and a 1-byte temporary of its negation); then q of the
// input's shape (exponential_ in place, the input divided by it in
// place), the result written by argmax of q, and q freed before the two
// kept bools. Other calls are estimated (sampling.go).

// multinomialGumbel is one sample from each row of x on the GPU, the
// recorded case; shape is the result's.
func (s *Session) multinomialGumbel(x *Tensor, shape []int64) (*Tensor, error) {
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
