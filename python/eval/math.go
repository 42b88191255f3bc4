package eval

import (
	"math"
	"math/big"

	"github.com/gpumemrepl/gpumemrepl/python/pyformat"
)

// mathModule is math: its constants and the functions of floats and ints.
func mathModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("math")
	m.Set(in, "pi", math.Pi)
	m.Set(in, "e", math.E)
	m.Set(in, "inf", math.Inf(1))
	m.Set(in, "nan", math.NaN())
	m.Set(in, "tau", 2*math.Pi)
	in.mathIntegers(m)
	in.mathBinary(m)
	unary := map[string]func(float64) float64{"sqrt": math.Sqrt, "exp": math.Exp, "log2": math.Log2,
		"log10": math.Log10, "sin": math.Sin, "cos": math.Cos, "tanh": math.Tanh, "fabs": math.Abs,
		"tan": math.Tan, "asin": math.Asin, "acos": math.Acos, "atan": math.Atan, "sinh": math.Sinh,
		"cosh": math.Cosh, "asinh": math.Asinh, "acosh": math.Acosh, "atanh": math.Atanh,
		"expm1": math.Expm1, "log1p": math.Log1p, "erf": math.Erf, "erfc": math.Erfc,
		"degrees": func(x float64) float64 { return x * (180 / math.Pi) },
		"radians": func(x float64) float64 { return x * (math.Pi / 180) }}
	for name, f := range unary {
		in.fn(m, name, name+"(x)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 1, 1); err != nil {
				return nil, err
			}
			if u, ok := args[0].(Unknown); ok {
				return u, nil
			}
			x, err := in.floatArg(name, args[0])
			if err != nil {
				return nil, err
			}
			r := f(x)
			if math.IsNaN(r) && !math.IsNaN(x) {
				return nil, in.Raise(ValueErrorType, "math domain error")
			}
			return r, nil
		})
	}
	in.fn(m, "log", "log(x[, base])", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("log", args, kw, 1, 2); err != nil {
			return nil, err
		}
		x, err := in.floatArg("log", args[0])
		if err != nil {
			return nil, err
		}
		if x <= 0 {
			return nil, in.Raise(ValueErrorType, "math domain error")
		}
		r := math.Log(x)
		if len(args) == 2 {
			b, err := in.floatArg("log", args[1])
			if err != nil {
				return nil, err
			}
			r /= math.Log(b)
		}
		return r, nil
	})
	rounding := map[string]func(float64) float64{"ceil": math.Ceil, "floor": math.Floor, "trunc": math.Trunc}
	for name, f := range rounding {
		in.fn(m, name, name+"(x)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 1, 1); err != nil {
				return nil, err
			}
			if b, ok := bigInt(args[0]); ok {
				return normInt(b), nil
			}
			if u, ok := args[0].(Unknown); ok {
				return u, nil
			}
			x, err := in.floatArg(name, args[0])
			if err != nil {
				return nil, err
			}
			r, err := pyformat.FloatToInt(f(x))
			if err != nil {
				return nil, in.pyErr(err)
			}
			return normInt(r), nil
		})
	}
	in.fn(m, "prod", "prod(iterable)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("prod", args, kw, 1, 1); err != nil {
			return nil, err
		}
		var acc Value = int64(1)
		err := in.forEach(args[0], func(v Value) error {
			r, err := in.BinOp(multOp, acc, v, false)
			in.Decref(acc)
			acc = r
			if err != nil {
				acc = int64(0)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		return acc, nil
	})
	in.fn(m, "isclose", "isclose(a, b)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if len(args) != 2 {
			return nil, in.typeError("isclose() takes 2 positional arguments")
		}
		a, err := in.floatArg("isclose", args[0])
		if err != nil {
			return nil, err
		}
		b, err := in.floatArg("isclose", args[1])
		if err != nil {
			return nil, err
		}
		return a == b || math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b)), nil
	})
	for name, f := range map[string]func(float64) bool{"isnan": math.IsNaN, "isinf": func(x float64) bool { return math.IsInf(x, 0) },
		"isfinite": func(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }} {
		in.fn(m, name, name+"(x)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 1, 1); err != nil {
				return nil, err
			}
			x, err := in.floatArg(name, args[0])
			if err != nil {
				return nil, err
			}
			return f(x), nil
		})
	}
	return m, nil
}

// mathIntegers adds math's integer functions to m: gcd, lcm, factorial,
// isqrt, comb, perm.
func (in *Interp) mathIntegers(m *ModuleObj) {
	ints := func(name string, args []Value) ([]*big.Int, error) {
		out := make([]*big.Int, len(args))
		for i, a := range args {
			b, ok := bigInt(plain(a, "__index__"))
			if !ok {
				return nil, in.typeError("'%s' object cannot be interpreted as an integer", TypeOf(a).Name)
			}
			out[i] = b
		}
		return out, nil
	}
	fold := func(name string, f func(a, b *big.Int) *big.Int, empty int64) {
		in.fn(m, name, name+"(*integers)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.noKw(name, kw); err != nil {
				return nil, err
			}
			ns, err := ints(name, args)
			if err != nil {
				return nil, err
			}
			r := big.NewInt(empty)
			for i, n := range ns {
				if i == 0 {
					r = new(big.Int).Abs(n)
					continue
				}
				r = f(r, new(big.Int).Abs(n))
			}
			return normInt(r), nil
		})
	}
	fold("gcd", func(a, b *big.Int) *big.Int { return new(big.Int).GCD(nil, nil, a, b) }, 0)
	fold("lcm", func(a, b *big.Int) *big.Int {
		if a.Sign() == 0 || b.Sign() == 0 {
			return new(big.Int)
		}
		g := new(big.Int).GCD(nil, nil, a, b)
		return new(big.Int).Mul(new(big.Int).Div(a, g), b)
	}, 1)
	nonneg := func(name string, n *big.Int, what string) error {
		if n.Sign() < 0 {
			return in.Raise(ValueErrorType, "%s", what)
		}
		if n.BitLen() > 20 && name != "isqrt" {
			return in.Raise(NotImplementedErrType, "math.%s of a number this large is not modelled by gpumemrepl", name)
		}
		return nil
	}
	in.fn(m, "factorial", "factorial(n)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("factorial", args, kw, 1, 1); err != nil {
			return nil, err
		}
		ns, err := ints("factorial", args)
		if err != nil {
			return nil, err
		}
		if err := nonneg("factorial", ns[0], "factorial() not defined for negative values"); err != nil {
			return nil, err
		}
		return normInt(new(big.Int).MulRange(1, ns[0].Int64())), nil
	})
	in.fn(m, "isqrt", "isqrt(n)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("isqrt", args, kw, 1, 1); err != nil {
			return nil, err
		}
		ns, err := ints("isqrt", args)
		if err != nil {
			return nil, err
		}
		if err := nonneg("isqrt", ns[0], "isqrt() argument must be nonnegative"); err != nil {
			return nil, err
		}
		return normInt(new(big.Int).Sqrt(ns[0])), nil
	})
	for _, name := range []string{"comb", "perm"} {
		in.fn(m, name, name+"(n, k)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 1, 2); err != nil {
				return nil, err
			}
			if name == "comb" && len(args) != 2 {
				return nil, in.typeError("comb expected 2 arguments, got %d", len(args))
			}
			ns, err := ints(name, args)
			if err != nil {
				return nil, err
			}
			n, k := ns[0], ns[0]
			if len(ns) == 2 {
				k = ns[1]
			}
			if n.Sign() < 0 {
				return nil, in.Raise(ValueErrorType, "n must be a non-negative integer")
			}
			if k.Sign() < 0 {
				return nil, in.Raise(ValueErrorType, "k must be a non-negative integer")
			}
			if err := nonneg(name, n, ""); err != nil {
				return nil, err
			}
			if k.Cmp(n) > 0 {
				return int64(0), nil
			}
			nn, kk := n.Int64(), k.Int64()
			r := new(big.Int).MulRange(nn-kk+1, nn)
			if kk == 0 {
				r = big.NewInt(1)
			}
			if name == "comb" {
				r.Div(r, new(big.Int).MulRange(1, kk))
			}
			return normInt(r), nil
		})
	}
}

// mathBinary adds math's functions of two floats to m: atan2, copysign,
// fmod, pow, hypot.
func (in *Interp) mathBinary(m *ModuleObj) {
	binary := map[string]func(x, y float64) float64{"atan2": math.Atan2, "copysign": math.Copysign,
		"fmod": math.Mod, "pow": math.Pow, "hypot": math.Hypot}
	for name, f := range binary {
		in.fn(m, name, name+"(x, y)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 2, 2); err != nil {
				return nil, err
			}
			x, err := in.floatArg(name, args[0])
			if err != nil {
				return nil, err
			}
			y, err := in.floatArg(name, args[1])
			if err != nil {
				return nil, err
			}
			r := f(x, y)
			finite := !math.IsInf(x, 0) && !math.IsInf(y, 0) && !math.IsNaN(x) && !math.IsNaN(y)
			switch {
			case math.IsNaN(r) && !math.IsNaN(x) && !math.IsNaN(y):
				return nil, in.Raise(ValueErrorType, "math domain error")
			case math.IsInf(r, 0) && finite && x == 0:
				return nil, in.Raise(ValueErrorType, "math domain error") // pow(0, negative)
			case math.IsInf(r, 0) && finite:
				return nil, in.Raise(OverflowErrorType, "math range error")
			}
			return r, nil
		})
	}
}

// floatArg is v as a float, for math's functions.
func (in *Interp) floatArg(fn string, v Value) (float64, error) {
	v = plain(v, "__float__", "__index__")
	switch x := v.(type) {
	case float64:
		return x, nil
	case *big.Int:
		f, err := pyformat.IntToFloat(x)
		return f, in.pyErr(err)
	case Unknown:
		return 0, in.unknownError(x)
	}
	if _, ok := bigInt(v); ok {
		return toFloat(v), nil
	}
	return 0, in.typeError("must be real number, not %s", TypeOf(v).Name)
}
