package pyformat

import (
	"math"
	"math/big"
	"sync"
)

// newFloat returns f exactly, at the working precision of bigLog and
// bigExp.
func newFloat(f float64) *big.Float {
	return new(big.Float).SetPrec(powPrec).SetFloat64(f)
}

// ln2 is log(2) to the working precision: 2*atanh(1/3).
var ln2 = sync.OnceValue(func() *big.Float {
	third := new(big.Float).SetPrec(powPrec).Quo(newFloat(1), newFloat(3))
	a := atanhSeries(third)
	return a.Mul(a, newFloat(2))
})

// atanhSeries returns atanh(s) = s + s**3/3 + s**5/5 + ... for small |s|.
func atanhSeries(s *big.Float) *big.Float {
	sum := new(big.Float).SetPrec(powPrec).Set(s)
	s2 := new(big.Float).SetPrec(powPrec).Mul(s, s)
	power := new(big.Float).SetPrec(powPrec).Set(s)
	term := new(big.Float).SetPrec(powPrec)
	for k := int64(3); ; k += 2 {
		power.Mul(power, s2)
		term.Quo(power, new(big.Float).SetInt64(k))
		if term.Sign() == 0 || term.MantExp(nil)-sum.MantExp(nil) < -powPrec-8 {
			return sum
		}
		sum.Add(sum, term)
	}
}

// bigLog returns log(x) for finite x > 0: e*log(2) + log(m) with
// x = m * 2**e and m near 1, log(m) as 2*atanh((m-1)/(m+1)).
func bigLog(x float64) *big.Float {
	m, e := math.Frexp(x)
	if m < math.Sqrt2/2 {
		m, e = m*2, e-1
	}
	num, den := newFloat(m), newFloat(m)
	num.Sub(num, newFloat(1))
	den.Add(den, newFloat(1))
	s := new(big.Float).SetPrec(powPrec).Quo(num, den)
	r := atanhSeries(s)
	r.Mul(r, newFloat(2))
	return r.Add(r, new(big.Float).SetPrec(powPrec).Mul(ln2(), newFloat(float64(e))))
}

// expHalvings: exp's argument is divided by 2**expHalvings before the
// Taylor series, and the sum squared as often after it.
const expHalvings = 12

// bigExp returns exp(t) for |t| < 1000: 2**k * exp(r) with
// t = k*log(2) + r, exp(r) from its Taylor series on r / 2**expHalvings.
func bigExp(t *big.Float) *big.Float {
	kf, _ := new(big.Float).Quo(t, ln2()).Float64()
	k := math.Round(kf)
	r := new(big.Float).SetPrec(powPrec).Mul(ln2(), newFloat(k))
	r.Sub(t, r)
	r.SetMantExp(r, -expHalvings)
	sum := newFloat(1)
	term := newFloat(1)
	for n := int64(1); ; n++ {
		term.Mul(term, r)
		term.Quo(term, new(big.Float).SetInt64(n))
		if term.Sign() == 0 || term.MantExp(nil) < -powPrec-8 {
			break
		}
		sum.Add(sum, term)
	}
	for range expHalvings {
		sum.Mul(sum, sum)
	}
	return sum.SetMantExp(sum, int(k))
}
