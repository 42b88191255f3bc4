package pyformat

import (
	"errors"
	"math"
	"math/big"
	"testing"
)

// pair is a float pair as Python prints a tuple of two.
func pair(q, m float64, err error) string {
	return result("("+ReprFloat(q)+", "+ReprFloat(m)+")", err)
}

func floatResult(f float64, err error) string {
	return result(ReprFloat(f), err)
}

func TestArith(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	negZero := math.Copysign(0, -1)
	huge := new(big.Int).Lsh(big.NewInt(1), 1024)
	tests := []struct {
		name, got, want string
	}{
		{"divmod takes the divisor's sign", pair(Divmod(5, -3)), "(-2.0, -1.0)"},
		{"divmod of -0.0", pair(Divmod(negZero, 3)), "(-0.0, 0.0)"},
		{"divmod by inf", pair(Divmod(-5, inf)), "(-1.0, inf)"},
		{"divmod of inf", pair(Divmod(inf, 3)), "(nan, nan)"},
		{"floor division by zero", floatResult(FloorDiv(5, 0)), "ZeroDivisionError: float floor division by zero"},
		{"modulo by zero", floatResult(Mod(5, 0)), "ZeroDivisionError: float modulo"},
		{"divmod by zero", pair(Divmod(5, 0)), "ZeroDivisionError: float divmod()"},
		{"division by zero", floatResult(Div(5, 0)), "ZeroDivisionError: float division by zero"},
		{"int division to -0.0", floatResult(TrueDiv(big.NewInt(0), big.NewInt(-5))), "-0.0"},
		{"int division rounds to even at the top", floatResult(TrueDiv(new(big.Int).Sub(huge, new(big.Int).Lsh(big.NewInt(1), 970)), big.NewInt(1))), "OverflowError: integer division result too large for a float"},
		{"int division by zero", floatResult(TrueDiv(big.NewInt(1), big.NewInt(0))), "ZeroDivisionError: division by zero"},
		{"int floor division", intResult(IntFloorDiv(big.NewInt(-7), big.NewInt(2))), "-4"},
		{"int modulo takes the divisor's sign", intResult(IntMod(big.NewInt(7), big.NewInt(-2))), "-1"},
		{"int modulo by zero", intResult(IntMod(big.NewInt(7), big.NewInt(0))), "ZeroDivisionError: integer modulo by zero"},
		{"int floor division by zero", intResult(IntFloorDiv(big.NewInt(7), big.NewInt(0))), "ZeroDivisionError: integer division or modulo by zero"},
		{"round rounds the binary value", floatResult(Round(2.675, 2)), "2.67"},
		{"round half to even to tens", floatResult(Round(25, -1)), "20.0"},
		{"round to zero keeps the sign", floatResult(Round(-0.4, 0)), "-0.0"},
		{"round far left", floatResult(Round(-1.5, -400)), "-0.0"},
		{"round far right", floatResult(Round(1.5, 400)), "1.5"},
		{"round into overflow", floatResult(Round(math.MaxFloat64, -308)), "OverflowError: rounded value too large to represent"},
		{"round of inf", floatResult(Round(inf, -400)), "inf"},
		{"round() half to even", intResult(RoundInt(2.5)), "2"},
		{"round() of -0.5", intResult(RoundInt(-0.5)), "0"},
		{"round() of inf", intResult(RoundInt(inf)), "OverflowError: cannot convert float infinity to integer"},
		{"round() of nan", intResult(RoundInt(nan)), "ValueError: cannot convert float NaN to integer"},
		{"int() truncates", intResult(FloatToInt(-3.99)), "-3"},
		{"float() of a huge int", floatResult(IntToFloat(huge)), "OverflowError: int too large to convert to float"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %s, want %s", tt.name, tt.got, tt.want)
		}
	}
}

func TestPow(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	negZero := math.Copysign(0, -1)
	tests := []struct {
		x, y float64
		want string
	}{
		{nan, 0, "1.0"},
		{1, nan, "1.0"},
		{-1, inf, "1.0"},
		{0.5, -inf, "inf"},
		{-inf, 3, "-inf"},
		{-inf, -3, "-0.0"},
		{-inf, 0.5, "inf"},
		{negZero, 3, "-0.0"},
		{negZero, 2, "0.0"},
		{negZero, -1, "ZeroDivisionError: 0.0 cannot be raised to a negative power"},
		{-2, 3, "-8.0"},
		{-2, -3, "-0.125"},
		{-1, 1e300, "1.0"},
		// 3**34 is halfway between two floats: to the even one. (glibc's
		// pow gives the other, 1.667718169966657e+16: it is not correctly
		// rounded, and FloatPow does not copy its algorithm.)
		{3, 34, "1.6677181699666568e+16"},
		{2, 0.5, "1.4142135623730951"},
		{10, -400, "0.0"},
		{2, -1074, "5e-324"},
		{2, 1024, "OverflowError: (34, 'Numerical result out of range')"},
		{1.1, 10, "2.5937424601000023"},
	}
	for _, tt := range tests {
		if got := floatResult(FloatPow(tt.x, tt.y)); got != tt.want {
			t.Errorf("%v ** %v = %s, want %s", tt.x, tt.y, got, tt.want)
		}
	}
	if _, err := FloatPow(-8, 1.0/3); !errors.Is(err, ErrComplex) {
		t.Errorf("-8.0 ** (1/3): got %v, want ErrComplex", err)
	}
	if i, f, err := IntPow(big.NewInt(2), big.NewInt(-1)); i != nil || f != 0.5 || err != nil {
		t.Errorf("2 ** -1 = %v, %v, %v; want the float 0.5", i, f, err)
	}
	if i, _, err := IntPow(big.NewInt(-3), big.NewInt(3)); err != nil || i.Int64() != -27 {
		t.Errorf("-3 ** 3 = %v, %v; want -27", i, err)
	}
	if _, _, err := IntPow(big.NewInt(0), big.NewInt(-1)); result("", err) != "ZeroDivisionError: 0.0 cannot be raised to a negative power" {
		t.Errorf("0 ** -1: got %v", err)
	}
	if _, _, err := IntPow(big.NewInt(2), big.NewInt(1e10)); result("", err) != "MemoryError" {
		t.Errorf("2 ** 10**10: got %v, want MemoryError", err)
	}
}

// BenchmarkFloatPow measures the correctly rounded power: a fractional
// exponent takes the log and exp at 192 bits.
func BenchmarkFloatPow(b *testing.B) {
	for _, y := range []float64{0.5, 10, 123.456} {
		b.Run(ReprFloat(y), func(b *testing.B) {
			for b.Loop() {
				if _, err := FloatPow(1.1, y); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
