package eval

import (
	"math"
	"math/big"
)

// math's integer functions (gcd, lcm, factorial, isqrt, comb, perm) and
// its two-argument functions, added to the module mathModule makes.
func (in *Interp) mathMore(m *ModuleObj) {
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

// powMod is pow(base, exp, mod) of ints: a negative exponent takes the
// inverse modulo mod, as CPython 3.8 and later do.
func (in *Interp) powMod(base, exp, mod Value) (Value, error) {
	b, ok1 := bigInt(plain(base, "__index__"))
	e, ok2 := bigInt(plain(exp, "__index__"))
	m, ok3 := bigInt(plain(mod, "__index__"))
	if !ok1 || !ok2 || !ok3 {
		for _, v := range []Value{base, exp, mod} {
			if !isNumber(plain(v)) {
				return nil, in.typeError("unsupported operand type(s) for ** or pow(): '%s', '%s', '%s'", TypeOf(base).Name, TypeOf(exp).Name, TypeOf(mod).Name)
			}
		}
		return nil, in.typeError("pow() 3rd argument not allowed unless all arguments are integers")
	}
	if m.Sign() == 0 {
		return nil, in.Raise(ValueErrorType, "pow() 3rd argument cannot be 0")
	}
	am := new(big.Int).Abs(m)
	if e.Sign() < 0 {
		inv := new(big.Int).ModInverse(new(big.Int).Mod(b, am), am)
		if inv == nil {
			return nil, in.Raise(ValueErrorType, "base is not invertible for the given modulus")
		}
		b, e = inv, new(big.Int).Neg(e)
	}
	r := new(big.Int).Exp(b, e, am)
	if m.Sign() < 0 && r.Sign() != 0 {
		r.Add(r, m) // the result takes the modulus's sign
	}
	return normInt(r), nil
}

// intTextBuiltins are the builtins bin, oct and hex.
func intTextBuiltins() []*Builtin {
	var out []*Builtin
	for name, base := range map[string]int{"bin": 2, "oct": 8, "hex": 16} {
		prefix := map[int]string{2: "0b", 8: "0o", 16: "0x"}[base]
		b := NewBuiltin(name, name+"(number)", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 1, 1); err != nil {
				return nil, err
			}
			n, ok := bigInt(plain(args[0], "__index__"))
			if !ok {
				if f := TypeOf(args[0]).lookup("__index__"); f != nil {
					i, err := in.Index(args[0])
					if err != nil {
						return nil, err
					}
					n = big.NewInt(i)
				} else {
					return nil, in.typeError("'%s' object cannot be interpreted as an integer", TypeOf(args[0]).Name)
				}
			}
			sign := ""
			if n.Sign() < 0 {
				sign = "-"
			}
			return sign + prefix + new(big.Int).Abs(n).Text(base), nil
		})
		out = append(out, b)
	}
	return out
}
