package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// torch.isclose and torch.allclose (engine/closeness.go): isclose's
// bool tensor is made as ATen makes it; allclose's answer is a value
// the tool does not compute (an assert on it is taken to hold, and says
// so).

// closenessArgs binds (input, other, rtol=1e-05, atol=1e-08,
// equal_nan=False): the tensors, whether both tolerances are 0, and
// equal_nan.
func (b *Binding) closenessArgs(name string, args []eval.Value, kw []eval.KeywordArg) (x, y *engine.Tensor, zeroTol, equalNaN bool, err error) {
	a, err := b.in.ArgSpec(name, args, kw, 2, "input", "other", "rtol", "atol", "equal_nan")
	if err != nil {
		return nil, nil, false, false, err
	}
	tx, err := b.tensorOf(a[0], name)
	if err != nil {
		return nil, nil, false, false, err
	}
	ty, err := b.tensorOf(a[1], name)
	if err != nil {
		return nil, nil, false, false, err
	}
	zero := true
	for i, def := range []float64{1e-05, 1e-08} {
		v := def
		if a[2+i] != nil {
			f, ok := number(a[2+i])
			if !ok {
				return nil, nil, false, false, b.in.Raise(eval.TypeErrorType, "%s(): argument '%s' must be float", name, []string{"rtol", "atol"}[i])
			}
			v = f
		}
		if v < 0 {
			return nil, nil, false, false, b.in.Raise(eval.RuntimeErrorType, "%s must be greater than or equal to zero, but got %g", []string{"rtol", "atol"}[i], v)
		}
		zero = zero && v == 0
	}
	equalNaN, err = b.boolArg(a[4], false)
	return tx.T, ty.T, zero, equalNaN, err
}

// declareCloseness declares torch.isclose and torch.allclose in m.
func (b *Binding) declareCloseness(m *eval.ModuleObj) {
	b.fn(m, "isclose", "isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False): a new bool tensor, after the errors' temporaries", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return b.isClose(args, kw)
	})
	b.fn(m, "allclose", "allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False): isclose's temporaries, then all(); the answer is not computed", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return b.allClose(args, kw)
	})
}

func (b *Binding) isClose(args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	x, y, zero, nan, err := b.closenessArgs("isclose", args, kw)
	if err != nil {
		return nil, err
	}
	c, err := b.S.IsClose(x, y, zero, nan)
	if err != nil {
		return nil, b.pyErr(err)
	}
	return b.wrap(c), nil
}

func (b *Binding) allClose(args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
	x, y, zero, nan, err := b.closenessArgs("allclose", args, kw)
	if err != nil {
		return nil, err
	}
	if err := b.S.AllClose(x, y, zero, nan); err != nil {
		return nil, b.pyErr(err)
	}
	return eval.Unknown{What: "torch.allclose()"}, nil
}

func init() {
	method("isclose", "isclose(other, rtol=1e-05, atol=1e-08, equal_nan=False)", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		t, err := self(in, s)
		if err != nil {
			return nil, err
		}
		return t.b.isClose(append([]eval.Value{s}, args...), kw)
	})
	method("allclose", "allclose(other, rtol=1e-05, atol=1e-08, equal_nan=False)", func(in *eval.Interp, s eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		t, err := self(in, s)
		if err != nil {
			return nil, err
		}
		return t.b.allClose(append([]eval.Value{s}, args...), kw)
	})
}
