package eval

import (
	"math"
	"math/big"

	"github.com/gpumemrepl/gpumemrepl/python/pyformat"
)

// mathFuncs are math's functions, by name.
var mathFuncs = []struct {
	name, doc string
	fn        GoFunc
}{
	{"acos", "acos(x)", mathUnary("acos", math.Acos)},
	{"acosh", "acosh(x)", mathUnary("acosh", math.Acosh)},
	{"asin", "asin(x)", mathUnary("asin", math.Asin)},
	{"asinh", "asinh(x)", mathUnary("asinh", math.Asinh)},
	{"atan", "atan(x)", mathUnary("atan", math.Atan)},
	{"atan2", "atan2(y, x)", mathBinary("atan2", math.Atan2)},
	{"atanh", "atanh(x)", mathUnary("atanh", math.Atanh)},
	{"ceil", "ceil(x)", mathRound("ceil", math.Ceil)},
	{"comb", "comb(n, k)", mathCombPerm("comb")},
	{"copysign", "copysign(x, y)", mathBinary("copysign", math.Copysign)},
	{"cos", "cos(x)", mathUnary("cos", math.Cos)},
	{"cosh", "cosh(x)", mathUnary("cosh", math.Cosh)},
	{"degrees", "degrees(x)", mathUnary("degrees", func(x float64) float64 { return x * (180 / math.Pi) })},
	{"erf", "erf(x)", mathUnary("erf", math.Erf)},
	{"erfc", "erfc(x)", mathUnary("erfc", math.Erfc)},
	{"exp", "exp(x)", mathUnary("exp", math.Exp)},
	{"expm1", "expm1(x)", mathUnary("expm1", math.Expm1)},
	{"fabs", "fabs(x)", mathUnary("fabs", math.Abs)},
	{"factorial", "factorial(n)", mathFactorial},
	{"floor", "floor(x)", mathRound("floor", math.Floor)},
	{"fmod", "fmod(x, y)", mathBinary("fmod", math.Mod)},
	{"gcd", "gcd(*integers)", mathFold("gcd", func(a, b *big.Int) *big.Int { return new(big.Int).GCD(nil, nil, a, b) }, 0)},
	{"hypot", "hypot(*coordinates)", mathHypot},
	{"isclose", "isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0)", mathIsClose},
	{"isfinite", "isfinite(x)", mathTest("isfinite", func(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) })},
	{"isinf", "isinf(x)", mathTest("isinf", func(x float64) bool { return math.IsInf(x, 0) })},
	{"isnan", "isnan(x)", mathTest("isnan", math.IsNaN)},
	{"isqrt", "isqrt(n)", mathIsqrt},
	{"lcm", "lcm(*integers)", mathFold("lcm", lcm, 1)},
	{"log", "log(x[, base])", mathLog},
	{"log10", "log10(x)", mathUnary("log10", math.Log10)},
	{"log1p", "log1p(x)", mathUnary("log1p", math.Log1p)},
	{"log2", "log2(x)", mathUnary("log2", math.Log2)},
	{"perm", "perm(n, k=None)", mathCombPerm("perm")},
	{"pow", "pow(x, y)", mathBinary("pow", math.Pow)},
	{"prod", "prod(iterable, *, start=1)", mathProd},
	{"radians", "radians(x)", mathUnary("radians", func(x float64) float64 { return x * (math.Pi / 180) })},
	{"sin", "sin(x)", mathUnary("sin", math.Sin)},
	{"sinh", "sinh(x)", mathUnary("sinh", math.Sinh)},
	{"sqrt", "sqrt(x)", mathUnary("sqrt", math.Sqrt)},
	{"tan", "tan(x)", mathUnary("tan", math.Tan)},
	{"tanh", "tanh(x)", mathUnary("tanh", math.Tanh)},
	{"trunc", "trunc(x)", mathRound("trunc", math.Trunc)},
}

// mathModule is math: its constants and functions.
func mathModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("math")
	m.Set(in, "pi", math.Pi)
	m.Set(in, "e", math.E)
	m.Set(in, "inf", math.Inf(1))
	m.Set(in, "nan", math.NaN())
	m.Set(in, "tau", 2*math.Pi)
	for _, f := range mathFuncs {
		in.fn(m, f.name, f.doc, f.fn)
	}
	return m, nil
}

// mathUnary is a function of one float: a number the tool does not
// compute gives one back; a NaN from a number is a domain error.
func mathUnary(name string, f func(float64) float64) GoFunc {
	return func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var v Value
		if err := in.UnpackArgs("math."+name, args, kw, "x", &v, "/"); err != nil {
			return nil, err
		}
		if u, ok := v.(Unknown); ok {
			return u, nil
		}
		x, err := in.floatArg(name, v)
		if err != nil {
			return nil, err
		}
		r := f(x)
		if math.IsNaN(r) && !math.IsNaN(x) {
			return nil, in.Raise(ValueErrorType, "math domain error")
		}
		return r, nil
	}
}

// mathRound is ceil, floor or trunc: an int.
func mathRound(name string, f func(float64) float64) GoFunc {
	return func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var v Value
		if err := in.UnpackArgs("math."+name, args, kw, "x", &v, "/"); err != nil {
			return nil, err
		}
		if b, ok := bigInt(v); ok {
			return normInt(b), nil
		}
		if u, ok := v.(Unknown); ok {
			return u, nil
		}
		x, err := in.floatArg(name, v)
		if err != nil {
			return nil, err
		}
		r, err := pyformat.FloatToInt(f(x))
		if err != nil {
			return nil, in.pyErr(err)
		}
		return normInt(r), nil
	}
}

// mathTest is isnan, isinf or isfinite.
func mathTest(name string, f func(float64) bool) GoFunc {
	return func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var x float64
		if err := in.UnpackArgs("math."+name, args, kw, "x", &x, "/"); err != nil {
			return nil, err
		}
		return f(x), nil
	}
}

// mathBinary is a function of two floats: a NaN from numbers is a
// domain error, an infinity from finite ones a range error.
func mathBinary(name string, f func(x, y float64) float64) GoFunc {
	return func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var x, y float64
		if err := in.UnpackArgs("math."+name, args, kw, "x", &x, "y", &y, "/"); err != nil {
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
	}
}

// mathHypot is hypot(*coordinates): the Euclidean norm.
func mathHypot(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	if err := in.noKw("math.hypot", kw); err != nil {
		return nil, err
	}
	r := 0.0
	for _, a := range args {
		x, err := in.floatArg("hypot", a)
		if err != nil {
			return nil, err
		}
		r = math.Hypot(r, x)
	}
	return r, nil
}

// mathLog is log(x[, base]), which CPython checks by hand.
func mathLog(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	if err := in.noKw("log", kw); err != nil {
		return nil, err
	}
	if len(args) < 1 || len(args) > 2 {
		return nil, in.typeError("math.log requires 1 to 2 arguments")
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
}

// mathProd is prod(iterable, *, start=1).
func mathProd(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var iterable Value
	var acc Value = int64(1)
	if err := in.UnpackArgs("math.prod", args, kw, "iterable", &iterable, "/", "*", "start?", &acc); err != nil {
		return nil, err
	}
	acc = newRef(acc)
	err := in.forEach(iterable, func(v Value) error {
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
}

// mathIsClose is isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0).
func mathIsClose(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var a, b float64
	rel, abs := 1e-9, 0.0
	if err := in.UnpackArgs("math.isclose", args, kw, "a", &a, "b", &b, "*", "rel_tol?", &rel, "abs_tol?", &abs); err != nil {
		return nil, err
	}
	if rel < 0 || abs < 0 {
		return nil, in.Raise(ValueErrorType, "tolerances must be non-negative")
	}
	if a == b {
		return true, nil
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return false, nil
	}
	d := math.Abs(a - b)
	return d <= rel*math.Abs(b) || d <= rel*math.Abs(a) || d <= abs, nil
}

// mathInts is math's integer arguments as ints (through __index__ of a
// subclass's value), or CPython's TypeError.
func (in *Interp) mathInts(args ...Value) ([]*big.Int, error) {
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

// mathFold is gcd or lcm of any number of ints (empty: of none).
func mathFold(name string, f func(a, b *big.Int) *big.Int, empty int64) GoFunc {
	return func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.noKw("math."+name, kw); err != nil {
			return nil, err
		}
		ns, err := in.mathInts(args...)
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
	}
}

// lcm is the least common multiple of a and b (not negative).
func lcm(a, b *big.Int) *big.Int {
	if a.Sign() == 0 || b.Sign() == 0 {
		return new(big.Int)
	}
	g := new(big.Int).GCD(nil, nil, a, b)
	return new(big.Int).Mul(new(big.Int).Div(a, g), b)
}

// mathNonNeg refuses a negative n (what: CPython's ValueError) and, but
// for isqrt, an n too large to compute here.
func (in *Interp) mathNonNeg(name string, n *big.Int, what string) error {
	if n.Sign() < 0 {
		return in.Raise(ValueErrorType, "%s", what)
	}
	if n.BitLen() > 20 && name != "isqrt" {
		return in.Refuse(NotImplementedErrType, "math.%s of a number this large is not modelled by gpumemrepl", name)
	}
	return nil
}

func mathFactorial(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var v Value
	if err := in.UnpackArgs("math.factorial", args, kw, "n", &v, "/"); err != nil {
		return nil, err
	}
	ns, err := in.mathInts(v)
	if err != nil {
		return nil, err
	}
	if err := in.mathNonNeg("factorial", ns[0], "factorial() not defined for negative values"); err != nil {
		return nil, err
	}
	return normInt(new(big.Int).MulRange(1, ns[0].Int64())), nil
}

func mathIsqrt(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
	var v Value
	if err := in.UnpackArgs("math.isqrt", args, kw, "n", &v, "/"); err != nil {
		return nil, err
	}
	ns, err := in.mathInts(v)
	if err != nil {
		return nil, err
	}
	if err := in.mathNonNeg("isqrt", ns[0], "isqrt() argument must be nonnegative"); err != nil {
		return nil, err
	}
	return normInt(new(big.Int).Sqrt(ns[0])), nil
}

// mathCombPerm is comb(n, k) or perm(n, k=None).
func mathCombPerm(name string) GoFunc {
	return func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var nv, kv Value
		var err error
		if name == "comb" {
			err = in.UnpackArgs("math.comb", args, kw, "n", &nv, "k", &kv, "/")
		} else {
			err = in.UnpackArgs("math.perm", args, kw, "n", &nv, "k?", &kv, "/")
		}
		if err != nil {
			return nil, err
		}
		if kv == nil || kv == None {
			kv = nv
		}
		ns, err := in.mathInts(nv, kv)
		if err != nil {
			return nil, err
		}
		n, k := ns[0], ns[1]
		if n.Sign() < 0 {
			return nil, in.Raise(ValueErrorType, "n must be a non-negative integer")
		}
		if k.Sign() < 0 {
			return nil, in.Raise(ValueErrorType, "k must be a non-negative integer")
		}
		if err := in.mathNonNeg(name, n, ""); err != nil {
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
