package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// Tensor.type(): with no argument the legacy type name; with a dtype, a
// legacy type (torch.cuda.HalfTensor) or its name, the tensor converted
// by the op table's entry for .to(device, dtype) (itself when it has
// that type already); a type of the other device kind moves it, to the
// CPU or the current GPU. It is no entry of its own: with no argument it
// returns a str, and it takes legacy types, which no Param kind holds.
func init() {
	tensorMethod("type", "type(dtype=None, non_blocking=False): the legacy type name, or the tensor as .to(device, dtype)", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := b.in.ArgSpec("type", args, kw, 0, "dtype", "non_blocking")
		if err != nil {
			return nil, err
		}
		nonBlocking, err := b.boolArg(a[1], false)
		if err != nil {
			return nil, err
		}
		var lt legacyType
		switch d := a[0].(type) {
		case nil, eval.NoneType:
			return t.T.TypeName(), nil
		case *DTypeObj:
			lt = legacyType{d.D, t.T.Device().CUDA}
		case *eval.Class:
			var ok bool
			if lt, ok = legacyTypes[d]; !ok {
				return nil, b.in.Raise(eval.ValueErrorType, "invalid type: '%s'", d.QualName())
			}
		case string:
			dt, cuda, ok := engine.LegacyType(d)
			if !ok {
				return nil, b.in.Raise(eval.ValueErrorType, "invalid type: '%s'", d)
			}
			lt = legacyType{dt, cuda}
		default:
			return nil, b.in.Raise(eval.TypeErrorType, "type() argument 'dtype' must be torch.dtype or str")
		}
		dev := t.T.Device()
		if lt.cuda != dev.CUDA {
			dev = engine.CPU
			if lt.cuda {
				dev = engine.Device{CUDA: true, Index: b.S.CurrentDevice()}
			}
		}
		if err := b.cudaStarts(dev); err != nil {
			return nil, err
		}
		return b.runBound(engine.Ops["to"], engine.Args{t.T, dev, lt.dt, nonBlocking, false, nil}, []eval.Value{t})
	})
}
