package engine

import (
	"math"
	"slices"
)

// Random permutations and samples (testdata/pyrules/
// ops_census_misc.py, ops_census_more.py and census_python.py, recorded
// but not yet held to them: their steps say "estimated"). Their values are random: the tool knows
// none of them.
//
// randperm(n) on a GPU, as PyTorch's kernel makes it: the output, an
// arange of n (its dtype), random keys (int32 when PyTorch's bit count
// for n, log2(n - (6n^2 + 1) / (12 ln 0.9)), is at most 32, else int64)
// and a buffer of sorted keys, CUB's radix sort of the (key, value)
// pairs over those bits, then the buffer, the keys and the arange freed.
//
// multinomial of one sample from rows of probabilities on the GPU is
// recorded (multinomial.go); other calls are estimated here. Without
// replacement, or of one sample: the checks' 0-d
// temporaries (max, min, their comparisons and their and; the sum and
// its comparison, along rows for a 2-d input), then q, exponential
// noise of the input's shape, divided into the input in place; one
// sample is q's argmax along the last dimension (the int64 output),
// several its topk (values of the input's dtype, freed, and the int64
// indices, the output); q freed. With replacement and several samples:
// the int64 output, then the rows renormalised and their prefix sums
// (two tensors of the input's shape), freed after. The reductions'
// buffers across blocks for a large input are left out.

func init() {
	randperm := factory("randperm", "the int64 output (dtype=), then an arange, random keys and their sorted copy, CUB's sort scratch, the three freed",
		[]Param{{Name: "n", Kind: IntParam}, {Name: "generator", Kind: GeneratorParam, Default: "None", KeywordOnly: true}}, true,
		func(a Args) (TensorSpec, error) {
			if a.Int(0) < 0 {
				return TensorSpec{}, Errorf(RuntimeError, "n must be non-negative, got%d", a.Int(0))
			}
			return TensorSpec{Op: "randperm", Shape: []int64{a.Int(0)}, DType: DTypes["int64"]}, nil
		})
	made := randperm.run
	randperm.run = func(s *Session, a Args) (*Tensor, error) {
		out, err := made(s, a)
		if err == nil {
			if err = s.randpermTemps(out); err != nil {
				s.dropTensor(out)
			}
		}
		return out, err
	}
	declare(estimated("ops_census_misc.py", withGenerator(randperm, 1)))
	declare(&OpDef{Name: "multinomial", Function: true, Method: true,
		Params: []Param{input, {Name: "num_samples", Kind: IntParam}, boolParam("replacement", "False"), {Name: "generator", Kind: GeneratorParam, Default: "None", KeywordOnly: true}},
		Memory: "int64 samples; one sample from rows on the GPU (recorded): the checks' reductions and 0-d bools, then a tensor of the input's shape (freed) for the Gumbel trick's argmax; otherwise estimated: without replacement the checks, exponential noise of the input's shape (freed), topk's values (freed); with: two tensors of the input's shape (freed)",
		run: func(s *Session, a Args) (*Tensor, error) {
			return s.multinomial(a.Tensor(0), a.Int(1), a.Bool(2), a[3])
		}})
}

// randpermTemps are randperm's temporaries on the GPU for its output
// out of n elements.
func (s *Session) randpermTemps(out *Tensor) error {
	n := out.Shape[0]
	if n == 0 || !out.Device().CUDA {
		return nil
	}
	nd := float64(n)
	bits := min(64, uint64(math.Ceil(math.Log2(nd-(6*nd*nd+1)/(math.Log(0.9)*12)))))
	key := DTypes["int32"]
	if bits > 32 {
		key = DTypes["int64"]
	}
	shape := []int64{n}
	ts, err := s.allocAll(out.Device(), tensorShape{shape, out.DType}, tensorShape{shape, key}, tensorShape{slices.Clone(shape), key})
	if err != nil {
		return err
	}
	defer s.dropAll(ts)
	return s.libScratch(out.Device(), "CUB's radix sort", onesweepScratch(uint64(n), key.Size, ceilDiv(bits, 8), onesweepTile[key.Size], true))
}

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
	shape := slices.Clone(p.Shape)
	shape[len(shape)-1] = n
	dev := p.Device()
	if n == 1 && len(p.Shape) == 2 && dev.CUDA {
		return s.multinomialGumbel(p, shape)
	}
	if err := s.estimate(nil, "torch.multinomial", "%s %s: memory rule from PyTorch's formula, %s", dimList(p.Shape), p.DType.Name, recording("ops_census_more.py")); err != nil {
		return nil, err
	}
	if replacement && n > 1 {
		out, err := s.alloc(shape, DTypes["int64"], dev)
		if err != nil {
			return nil, err
		}
		ts, err := s.allocAll(dev, tensorShape{slices.Clone(p.Shape), p.DType}, tensorShape{slices.Clone(p.Shape), p.DType})
		if err != nil {
			s.dropTensor(out)
			return nil, err
		}
		s.dropAll(ts)
		return out, nil
	}
	// the checks: max, min, max < inf, min >= 0, their and; the sum and
	// sum == 0 (along rows: the sums, the bools, their int64 count)
	checks := []tensorShape{{nil, p.DType}, {nil, p.DType}, {nil, boolDType}, {nil, boolDType}, {nil, boolDType}}
	sums := []tensorShape{{nil, p.DType}, {nil, boolDType}}
	if len(p.Shape) == 2 {
		rows := []int64{p.Shape[0]}
		sums = []tensorShape{{rows, p.DType}, {slices.Clone(rows), boolDType}, {nil, DTypes["int64"]}}
	}
	for _, temps := range [][]tensorShape{checks, sums} {
		ts, err := s.allocAll(dev, temps...)
		if err != nil {
			return nil, err
		}
		s.dropAll(ts)
	}
	q, err := s.alloc(slices.Clone(p.Shape), p.DType, dev)
	if err != nil {
		return nil, err
	}
	defer s.dropTensor(q)
	if n == 1 {
		return s.alloc(shape, DTypes["int64"], dev)
	}
	ts, err := s.allocAll(dev, tensorShape{shape, p.DType}, tensorShape{slices.Clone(shape), DTypes["int64"]})
	if err != nil {
		return nil, err
	}
	s.dropTensor(ts[0])
	return ts[1], nil
}

// checkGenerator refuses a generator= (its device, or nil for none) of
// another device type than the op's, in PyTorch's words.
func checkGenerator(gen any, dev Device) error {
	g, ok := gen.(Device)
	if !ok || g.CUDA == dev.CUDA {
		return nil
	}
	kind := map[bool]string{true: "cuda", false: "cpu"}
	return Errorf(RuntimeError, "Expected a '%s' device type for generator but found '%s'", kind[dev.CUDA], kind[g.CUDA])
}

// withGenerator checks d's generator= (argument i) against the device
// of the tensor d makes, after d made it (a factory's device is its
// arguments' and the defaults').
func withGenerator(d *OpDef, i int) *OpDef {
	run := d.run
	d.run = func(s *Session, a Args) (*Tensor, error) {
		out, err := run(s, a)
		if err != nil {
			return nil, err
		}
		if err := checkGenerator(a[i], out.Device()); err != nil {
			s.dropTensor(out)
			return nil, err
		}
		return out, nil
	}
	return d
}
