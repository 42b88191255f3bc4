// Tests of Python's number and string formatting. The oracle is CPython:
// TestCPython (oracle_test.go, testdata/oracle.py) compares thousands of
// generated cases byte for byte with the python3 on the PATH.
package pyformat

import (
	"math"
	"math/big"
	"testing"
)

// result is a call's answer as the tables write it: the text, or the
// exception as Python's traceback prints it.
func result(s string, err error) string {
	if err != nil {
		return err.Error()
	}
	return s
}

func TestFormat(t *testing.T) {
	big5000 := new(big.Int).Exp(big.NewInt(10), big.NewInt(5000), nil)
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"repr switches to an exponent at 1e16", result(FormatFloat(1e16, "")), "1e+16"},
		{"repr keeps 1e15 positional", result(FormatFloat(1e15, "")), "1000000000000000.0"},
		{"repr of a small number", ReprFloat(1.5e-5), "1.5e-05"},
		{"repr of 1e-4", ReprFloat(1e-4), "0.0001"},
		{"repr of negative zero", ReprFloat(math.Copysign(0, -1)), "-0.0"},
		{"repr of NaN has no sign", ReprFloat(math.Copysign(math.NaN(), -1)), "nan"},
		{"no type with a precision turns exponent at precision-1", result(FormatFloat(123, ".3")), "1.23e+02"},
		{"no type with a precision keeps a digit after the point", result(FormatFloat(12, ".3")), "12.0"},
		{"g drops the point", result(FormatFloat(123, ".3g")), "123"},
		{"# keeps the point of a bare exponent", result(FormatFloat(1, "#.0")), "1.e+00"},
		{"f rounds half to even", result(FormatFloat(2.5, ".0f")), "2"},
		{"f rounds the binary value", result(FormatFloat(0.125, ".2f")), "0.12"},
		{"% multiplies by 100", result(FormatFloat(1.5, ".0%")), "150%"},
		{"z drops the sign of a rounded zero", result(FormatFloat(-0.0001, "z.2f")), "0.00"},
		{"zero padding is grouped", result(FormatInt(big.NewInt(1234), "08,")), "0,001,234"},
		{"zero padding of hex is grouped by four", result(FormatInt(big.NewInt(255), "#012_x")), "0x0_0000_00ff"},
		{"zero padding of inf is not grouped", result(FormatFloat(math.Inf(1), "012,")), "000000000inf"},
		{"zero padding of a fraction is grouped", result(FormatFloat(0.5, "010,")), "0,000,000.5"},
		{"a fill other than 0 is not grouped", result(FormatInt(big.NewInt(1234), "x=8,")), "xxx1,234"},
		{"centring puts the odd space right", result(FormatStr("ab", "^5")), " ab  "},
		{"c pads like a number", result(FormatInt(big.NewInt(65), "05c")), "0000A"},
		{"a string's 0 pads on the right", result(FormatStr("x", "05")), "x0000"},
		{"a precision truncates a string", result(FormatStr("abc", ".1")), "a"},
		{"bool without a spec", result(FormatBool(true, "")), "True"},
		{"bool with a spec is an int", result(FormatBool(true, ">5")), "    1"},
		{"an int with a float type", result(FormatInt(big.NewInt(1), ".2%")), "100.00%"},
		{"Unicode digits in a width", result(FormatInt(big.NewInt(5), "\u0663")), "  5"},
		{"unknown type", result(FormatFloat(1.5, "d")), "ValueError: Unknown format code 'd' for object of type 'float'"},
		{"unknown unprintable type", result(FormatInt(big.NewInt(5), "\x01")), "ValueError: Unknown format code '\\x1' for object of type 'int'"},
		{"a NUL type is no type for a float", result(FormatFloat(1, "\x00")), "1.0"},
		{"a NUL type is unknown for an int", result(FormatInt(big.NewInt(1), "\x00")), "ValueError: Unknown format code '\\x0' for object of type 'int'"},
		{"a spec that does not parse", result(FormatFloat(1.5, "10xx")), "ValueError: Invalid format specifier '10xx' for object of type 'float'"},
		{"grouping a string", result(FormatStr("a", ",")), "ValueError: Cannot specify ',' with 's'."},
		{"both separators", result(FormatInt(big.NewInt(1), ",_")), "ValueError: Cannot specify both ',' and '_'."},
		{"a separator twice", result(FormatFloat(1.5, "__")), "ValueError: Cannot specify '_' with '_'."},
		{"a point without a precision", result(FormatFloat(1, ".x")), "ValueError: Format specifier missing precision"},
		{"an int with a precision", result(FormatInt(big.NewInt(1), ".2")), "ValueError: Precision not allowed in integer format specifier"},
		{"z on an int", result(FormatInt(big.NewInt(1), "z")), "ValueError: Negative zero coercion (z) not allowed in integer format specifier"},
		{"a sign with c", result(FormatInt(big.NewInt(1), "+c")), "ValueError: Sign not allowed with integer format specifier 'c'"},
		{"c past Unicode", result(FormatInt(big.NewInt(-1), "c")), "OverflowError: %c arg not in range(0x110000)"},
		{"c past a C long", result(FormatInt(new(big.Int).Lsh(big.NewInt(1), 70), "c")), "OverflowError: Python int too large to convert to C long"},
		{"a string with =", result(FormatStr("s", "=5")), "ValueError: '=' alignment not allowed in string format specifier"},
		{"a string with a space", result(FormatStr("s", " ")), "ValueError: Space not allowed in string format specifier"},
		{"a width past 64 bits", result(FormatInt(big.NewInt(5), "99999999999999999999")), "ValueError: Too many decimal digits in format string"},
		{"a precision past a C int", result(FormatFloat(1, ".2147483648f")), "ValueError: precision too big"},
		{"a width too large to build", result(FormatInt(big.NewInt(5), "9223372036854775807")), "MemoryError"},
		{"an int past float", result(FormatInt(new(big.Int).Lsh(big.NewInt(1), 1024), "e")), "OverflowError: int too large to convert to float"},
		{"str of an int past the digit limit", result(IntString(big5000)), "ValueError: Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to increase the limit"},
		{"hex has no digit limit", result(FormatInt(big5000, "x"))[:5], "31e20"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func TestRepr(t *testing.T) {
	tests := []struct{ got, want string }{
		{ReprStr("it's"), `"it's"`},
		{ReprStr(`it's "x"`), `'it\'s "x"'`},
		{ReprStr("a\tb\n\\\x00\x7f"), `'a\tb\n\\\x00\x7f'`},
		{ReprStr("é中😀"), "'é中😀'"},
		{ReprStr("\u00a0\u200b\u2028\ue000\U000e0001"), `'\xa0\u200b\u2028\ue000\U000e0001'`},
		{ReprStr("\xff"), `'\xff'`}, // a byte that is not UTF-8, which no Python str holds
		{ReprBytes([]byte("it's\x80\n")), `b"it's\x80\n"`},
		{ASCII(ReprStr("é\x01😀")), `'\xe9\x01\U0001f600'`},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %s, want %s", tt.got, tt.want)
		}
	}
}

func BenchmarkFormatFloat(b *testing.B) {
	for b.Loop() {
		if _, err := FormatFloat(3072.123456, ",.1f"); err != nil {
			b.Fatal(err)
		}
	}
}
