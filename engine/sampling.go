package engine

import (
	"math"
	"slices"
)

// Random permutations (randperm, below) and samples (multinomial.go).
// Their values are random: the tool knows none of them.

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
	declare(withGenerator(randperm, 1))
	declare(&OpDef{Name: "multinomial", Function: true, Method: true,
		Params: []Param{input, {Name: "num_samples", Kind: IntParam}, boolParam("replacement", "False"), {Name: "generator", Kind: GeneratorParam, Default: "None", KeywordOnly: true}},
		Memory: "int64 samples; without replacement or of one sample: the checks' reductions and 0-d bools, then a tensor of the input's shape (freed) for the Gumbel trick's argmax, or its topk (values made and freed, topk's buffers); with replacement: three tensors of the input's shape (freed), one row's prefix sum CUB's scan",
		run: func(s *Session, a Args) (*Tensor, error) {
			return s.multinomial(a.Tensor(0), a.Int(1), a.Bool(2), a[3])
		}})
}

// randpermTemps are randperm's temporaries on the GPU for its output
// out of n elements: the check that n - 1 fits the output's dtype (a 0-d
// tensor of it, made and freed), then, for n > 0, an arange of n, the
// keys and their sorted copy, and CUB's radix sort of (key, value) pairs
// over the key's bits: one tile, 1 byte, up to maxOneTileSort pairs
// (its values are 8 bytes, as index_put_'s); else the onesweep sort's.
// ops_census_misc.py recorded the int64 output of 1,000 (int32 keys, one
// tile) and 100,000 (int64 keys); another dtype's values are estimated.
func (s *Session) randpermTemps(out *Tensor) error {
	n, dev := out.Shape[0], out.Device()
	if !dev.CUDA {
		return nil
	}
	if out.DType.Name != "int64" {
		if err := s.estimate(nil, "torch.randperm", "n=%d dtype=%s: memory rule from PyTorch's kernel, its CUB sort of %s values not recorded on the GPU", n, out.DType.Name, out.DType.Name); err != nil {
			return err
		}
	}
	check, err := s.alloc(nil, out.DType, dev)
	if err != nil {
		return err
	}
	s.dropTensor(check)
	if n == 0 {
		return nil
	}
	nd := float64(n)
	bits := min(64, uint64(math.Ceil(math.Log2(nd-(6*nd*nd+1)/(math.Log(0.9)*12)))))
	key := DTypes["int32"]
	if bits > 32 {
		key = DTypes["int64"]
	}
	shape := []int64{n}
	ts, err := s.allocAll(dev, tensorShape{shape, out.DType}, tensorShape{shape, key}, tensorShape{slices.Clone(shape), key})
	if err != nil {
		return err
	}
	defer s.dropAll(ts)
	scratch := uint64(1)
	if uint64(n) > maxOneTileSort {
		scratch = onesweepScratch(uint64(n), key.Size, ceilDiv(bits, 8), onesweepTile[key.Size], true)
	}
	return s.libScratch(dev, "CUB's radix sort", scratch)
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
