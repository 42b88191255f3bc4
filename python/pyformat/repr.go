package pyformat

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ReprFloat returns repr(f), which is also str(f): the shortest digits
// that read back as f, in positional form from 1e-4 up to 1e16 and in
// exponent form outside it ("1e+16", "1.5e-05"); "1.0", "-0.0", "inf",
// "nan".
func ReprFloat(f float64) string {
	if s, ok := nonFinite(f, false); ok {
		return s
	}
	s := shortestLayout(math.Abs(f), false, true)
	if math.Signbit(f) {
		return "-" + s
	}
	return s
}

// nonFinite returns Python's text for an infinity or NaN, without a sign
// for NaN (Python never prints one) and with one for -inf.
func nonFinite(f float64, upper bool) (string, bool) {
	var s string
	switch {
	case math.IsNaN(f):
		s = "nan"
	case math.IsInf(f, 1):
		s = "inf"
	case math.IsInf(f, -1):
		s = "-inf"
	default:
		return "", false
	}
	if upper {
		s = strings.ToUpper(s)
	}
	return s, true
}

// ReprStr returns repr(s) for a Python str: single quotes unless s holds
// a single quote and no double quote; backslash, the quote, \t, \n and \r
// escaped; other characters that Python does not count as printable as
// \xNN, \uNNNN or \UNNNNNNNN; printable non-ASCII characters as they are.
// A byte of s that is not UTF-8 (no Python str holds one) prints as \xNN.
func ReprStr(s string) string {
	quote := chooseQuote(strings.ContainsRune(s, '\''), strings.ContainsRune(s, '"'))
	var b strings.Builder
	b.WriteByte(quote)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			writeHex(&b, 'x', uint32(s[i]), 2)
		} else {
			writeReprRune(&b, r, quote)
		}
		i += size
	}
	b.WriteByte(quote)
	return b.String()
}

// chooseQuote is the quote both reprs pick: ' unless only ' occurs.
func chooseQuote(hasSingle, hasDouble bool) byte {
	if hasSingle && !hasDouble {
		return '"'
	}
	return '\''
}

func writeReprRune(b *strings.Builder, r rune, quote byte) {
	if escapeCommon(b, r, quote) {
		return
	}
	switch {
	case r < 0x7f && r >= ' ':
		b.WriteRune(r)
	case r < 0x80:
		writeHex(b, 'x', uint32(r), 2)
	case unicode.IsPrint(r):
		b.WriteRune(r)
	default:
		writeEscapedRune(b, r)
	}
}

// escapeCommon writes the escapes that str and bytes reprs share.
func escapeCommon(b *strings.Builder, r rune, quote byte) bool {
	switch r {
	case '\\':
		b.WriteString(`\\`)
	case rune(quote):
		b.WriteByte('\\')
		b.WriteByte(quote)
	case '\t':
		b.WriteString(`\t`)
	case '\n':
		b.WriteString(`\n`)
	case '\r':
		b.WriteString(`\r`)
	default:
		return false
	}
	return true
}

// writeEscapedRune writes r as the shortest of \xNN, \uNNNN, \UNNNNNNNN.
func writeEscapedRune(b *strings.Builder, r rune) {
	switch {
	case r <= 0xff:
		writeHex(b, 'x', uint32(r), 2)
	case r <= 0xffff:
		writeHex(b, 'u', uint32(r), 4)
	default:
		writeHex(b, 'U', uint32(r), 8)
	}
}

func writeHex(b *strings.Builder, letter byte, v uint32, n int) {
	const hexDigits = "0123456789abcdef"
	b.WriteByte('\\')
	b.WriteByte(letter)
	for shift := 4 * (n - 1); shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[v>>uint(shift)&0xf])
	}
}

// ReprBytes returns repr(b) for a Python bytes: b'...' with the same
// quote choice as ReprStr, and every byte outside printable ASCII as \xNN.
func ReprBytes(p []byte) string {
	quote := chooseQuote(strings.ContainsRune(string(p), '\''), strings.ContainsRune(string(p), '"'))
	var b strings.Builder
	b.WriteByte('b')
	b.WriteByte(quote)
	for _, c := range p {
		if escapeCommon(&b, rune(c), quote) {
			continue
		}
		if c >= ' ' && c < 0x7f {
			b.WriteByte(c)
		} else {
			writeHex(&b, 'x', uint32(c), 2)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// ASCII returns ascii(x) given repr(x): every non-ASCII character of the
// repr escaped as \xNN, \uNNNN or \UNNNNNNNN, as Python's ascii() does.
func ASCII(repr string) string {
	var b strings.Builder
	for _, r := range repr {
		if r < utf8.RuneSelf {
			b.WriteRune(r)
		} else {
			writeEscapedRune(&b, r)
		}
	}
	return b.String()
}
