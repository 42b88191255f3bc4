package pyformat

import (
	"math"
	"math/big"
	"testing"
)

func TestPercent(t *testing.T) {
	mapping := pyDict([]string{"a", "a(b)"}, []pyValue{pyInt(5), pyStr("x")})
	tests := []struct {
		format string
		v      pyValue
		want   string
	}{
		{"%5.1f MiB", pyFloat(1234.56), "1234.6 MiB"},
		{"%.2f GB", pyFloat(1.5e9 / 1e9), "1.50 GB"},
		{"%d%%", pyFloat(99.9), "99%"},
		{"%s|%r|%a", pyTuple(pyStr("é"), pyStr("é"), pyStr("é")), "é|'é'|'\\xe9'"},
		{"%#010x", pyInt(-255), "-0x00000ff"},
		{"%#.3x", pyInt(5), "0x005"},
		{"%+.3d", pyInt(-5), "-005"},
		{"% 05d", pyInt(5), " 0005"},
		{"%-05d|", pyInt(5), "5    |"},
		{"%05s", pyStr("a"), "    a"},
		{"%010f", pyFloat(math.Inf(1)), "0000000inf"},
		{"%*d|%-*d", pyTuple(pyInt(-4), pyInt(3), pyInt(2), pyInt(1)), "3   |1 "},
		{"%.*f", pyTuple(pyInt(-2), pyFloat(3.14159)), "3"},
		{"%hd %Ld", pyTuple(pyInt(1), pyInt(2)), "1 2"},
		{"%c%c", pyTuple(pyStr("a"), pyInt(0x1F600)), "a😀"},
		{"%(a)d %(a(b))s", mapping, "5 x"},
		{"%s", mapping, "{'a': 5, 'a(b)': 'x'}"},
		{"%s", pyList(pyInt(1)), "[1]"},
		{"no directives", mapping, "no directives"},
		{"%s %s", pyTuple(pyInt(1)), "TypeError: not enough arguments for format string"},
		{"%s", pyTuple(pyInt(1), pyInt(2)), "TypeError: not all arguments converted during string formatting"},
		{"%(a)s", pyInt(1), "TypeError: format requires a mapping"},
		{"%(a", mapping, "ValueError: incomplete format key"},
		{"%(zz)s", mapping, "KeyError: 'zz'"},
		{"%d", pyStr("x"), "TypeError: %d format: a real number is required, not str"},
		{"%x", pyFloat(1.5), "TypeError: %x format: an integer is required, not float"},
		{"%f", pyStr("x"), "TypeError: must be real number, not str"},
		{"%d", pyFloat(math.NaN()), "ValueError: cannot convert float NaN to integer"},
		{"%c", pyStr("ab"), "TypeError: %c requires int or char"},
		{"%c", pyInt(0x110000), "OverflowError: %c arg not in range(0x110000)"},
		{"%*d", pyTuple(pyStr("a"), pyInt(1)), "TypeError: * wants int"},
		{"%*d", pyTuple(pyBig(new(big.Int).Lsh(big.NewInt(1), 70)), pyInt(1)), "OverflowError: Python int too large to convert to C ssize_t"},
		{"%.99999999999999999999d", pyInt(1), "ValueError: precision too big"},
		{"%99999999999999999999d", pyInt(1), "ValueError: width too big"},
		{"%5%", pyTuple(pyInt(1)), "ValueError: unsupported format character '%' (0x25) at index 2"},
		{"%é", pyInt(1), "ValueError: unsupported format character '?' (0xe9) at index 1"},
		{"%\x1f", pyInt(1), "ValueError: unsupported format character '\x1f' (0x1f) at index 1"},
		{"%\x7f", pyInt(1), "ValueError: unsupported format character '?' (0x7f) at index 1"},
		{"%lld", pyInt(1), "ValueError: unsupported format character 'l' (0x6c) at index 2"},
		{"ab%5", pyInt(1), "ValueError: incomplete format"},
	}
	for _, tt := range tests {
		if got := result(percent(tt.format, tt.v)); got != tt.want {
			t.Errorf("%q %% %v: got %q, want %q", tt.format, tt.v.kind, got, tt.want)
		}
	}
}
