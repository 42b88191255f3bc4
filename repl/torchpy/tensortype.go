package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/eval"
)

// Tensor.type(): with no argument the legacy type name; with a dtype, or
// a legacy name of the tensor's own device kind, the tensor converted as
// .to(dtype) converts it (itself when it has that type already). A name
// of the other device kind would move it: not modelled.
func init() {
	tensorMethod("type", "type(dtype=None): the legacy type name, or the tensor as .to(dtype)", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := b.in.ArgSpec("type", args, kw, 0, "dtype", "non_blocking")
		if err != nil {
			return nil, err
		}
		switch d := a[0].(type) {
		case nil, eval.NoneType:
			return t.T.TypeName(), nil
		case *DTypeObj:
			return b.toDType(t, d.D)
		case string:
			dt, cuda, ok := engine.LegacyType(d)
			if !ok {
				return nil, b.in.Raise(eval.ValueErrorType, "invalid type: '%s'", d)
			}
			if cuda != t.T.Device().CUDA {
				return nil, b.notModelled("Tensor.type() to a type of another device")
			}
			return b.toDType(t, dt)
		}
		return nil, b.in.Raise(eval.TypeErrorType, "type() argument 'dtype' must be torch.dtype or str")
	})
}
