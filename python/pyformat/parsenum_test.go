package pyformat

import (
	"math/big"
	"strings"
	"testing"
)

// intResult is an int's str, or the error in its place.
func intResult(x *big.Int, err error) string {
	if err != nil {
		return err.Error()
	}
	return result(IntString(x))
}

func TestParseFloat(t *testing.T) {
	tests := []struct{ in, want string }{
		{" 1_0.5 ", "10.5"},
		{"\u0663.\u0665", "3.5"},
		{"1\u00a0", "1.0"},
		{"-nan", "nan"},
		{"+iNfiNity", "inf"},
		{".5", "0.5"},
		{"5.", "5.0"},
		{"1_0e1_0", "100000000000.0"},
		{"1e500", "inf"},
		{"-1e-500", "-0.0"},
		{"1__0", "ValueError: could not convert string to float: '1__0'"},
		{"1_.5", "ValueError: could not convert string to float: '1_.5'"},
		{"0x10", "ValueError: could not convert string to float: '0x10'"},
		{"nan(1)", "ValueError: could not convert string to float: 'nan(1)'"},
		{"infinit", "ValueError: could not convert string to float: 'infinit'"},
		{".e1", "ValueError: could not convert string to float: '.e1'"},
		{"\x1c5", "ValueError: could not convert string to float: '\\x1c5'"},
		{"", "ValueError: could not convert string to float: ''"},
	}
	for _, tt := range tests {
		f, err := ParseFloat(tt.in)
		if got := result(ReprFloat(f), err); got != tt.want {
			t.Errorf("ParseFloat(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestParseInt(t *testing.T) {
	long := strings.Repeat("1", 201) + "x"
	tests := []struct {
		in   string
		base int
		want string
	}{
		{" +1_000 ", 10, "1000"},
		{"-0x_F", 0, "-15"},
		{"0O17", 0, "15"},
		{"0b1", 16, "177"},
		{"0_0", 0, "0"},
		{"z", 36, "35"},
		{"\u0663\u0664", 16, "52"},
		{"\u3000 7 ", 10, "7"},
		{"010", 0, "ValueError: invalid literal for int() with base 0: '010'"},
		{"0x", 16, "ValueError: invalid literal for int() with base 16: '0x'"},
		{"0x__F", 0, "ValueError: invalid literal for int() with base 0: '0x__F'"},
		{"_1", 10, "ValueError: invalid literal for int() with base 10: '_1'"},
		{"1_", 10, "ValueError: invalid literal for int() with base 10: '1_'"},
		{"+-1", 10, "ValueError: invalid literal for int() with base 10: '+-1'"},
		{"12", 2, "ValueError: invalid literal for int() with base 2: '12'"},
		{"1", 37, "ValueError: int() base must be >= 2 and <= 36, or 0"},
		{long, 10, "ValueError: invalid literal for int() with base 10: '" + long[:199]},
		{strings.Repeat("1", 4301) + "x", 10, "ValueError: Exceeds the limit (4300 digits) for integer string conversion: value has 4301 digits; use sys.set_int_max_str_digits() to increase the limit"},
	}
	for _, tt := range tests {
		if got := intResult(ParseInt(tt.in, tt.base)); got != tt.want {
			t.Errorf("ParseInt(%q, %d) = %s, want %s", tt.in, tt.base, got, tt.want)
		}
	}
	if x, err := ParseInt(strings.Repeat("f", 5000), 16); err != nil || x.BitLen() != 20000 {
		t.Errorf("a 5000-digit hex int: %v, %d bits", err, x.BitLen())
	}
}
