package pyformat

import (
	"strings"
	"unicode"
)

// decimalValue returns the value of a decimal digit: ASCII, or any
// character of Unicode category Nd, which Python's int(), float() and
// format specs all accept.
func decimalValue(r rune) (int, bool) {
	if r >= '0' && r <= '9' {
		return int(r - '0'), true
	}
	if r < 0x80 || !unicode.Is(unicode.Nd, r) {
		return 0, false
	}
	// Unicode encodes each set of decimal digits as a run 0..9, and
	// abutting runs are whole sets.
	start := r
	for unicode.Is(unicode.Nd, start-1) {
		start--
	}
	return int(r-start) % 10, true
}

// isSpace reports whether int() and float() strip r: ASCII space, \t,
// \n, \v, \f, \r, and Unicode's whitespace beyond ASCII.
func isSpace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || (r >= '\t' && r <= '\r')
	}
	return unicode.IsSpace(r)
}

// asciiNumber prepares text for int() or float() as CPython does: other
// decimal digits become ASCII digits and whitespace is stripped; ok is
// false when another non-ASCII character is left.
func asciiNumber(s string) (string, bool) {
	var b strings.Builder
	for _, r := range strings.TrimFunc(s, isSpace) {
		if r < 0x80 {
			b.WriteRune(r)
		} else if d, ok := decimalValue(r); ok {
			b.WriteByte(byte('0' + d))
		} else {
			return "", false
		}
	}
	return b.String(), true
}
