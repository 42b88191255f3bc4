package engine

import "strings"

// TypeName is t.type() with no argument: its legacy type name,
// torch.cuda.FloatTensor or torch.FloatTensor.
func (t *Tensor) TypeName() string { return tensorType(t) }

// LegacyType reads a legacy type name (torch.cuda.HalfTensor): its
// dtype, and whether it names a CUDA type; ok false for another name.
func LegacyType(name string) (dt DType, cuda, ok bool) {
	rest, found := strings.CutPrefix(name, "torch.")
	if !found {
		return DType{}, false, false
	}
	rest, cuda = strings.CutPrefix(rest, "cuda.")
	base, found := strings.CutSuffix(rest, "Tensor")
	if !found {
		return DType{}, false, false
	}
	for n, legacy := range tensorTypes {
		if legacy == base {
			return DTypes[n], cuda, true
		}
	}
	return DType{}, false, false
}

// LegacyBase is dtype dt's legacy type name without module or suffix
// (Float for torch.FloatTensor); "" when it has none.
func LegacyBase(dt DType) string { return tensorTypes[dt.Name] }
