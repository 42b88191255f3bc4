package syntax

import (
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"
)

// number scans a numeric literal. Where CPython's tokenizer refuses one,
// the error names the literal's kind and stands where CPython's does.
func (s *scanner) number() token {
	start := s.off
	if s.src[s.off] == '0' {
		switch s.peekc(1) | 0x20 {
		case 'x':
			return s.radixNumber(start, isHexDigit, "hexadecimal")
		case 'o':
			return s.radixNumber(start, isOctDigit, "octal")
		case 'b':
			return s.radixNumber(start, isBinDigit, "binary")
		}
	}
	if s.src[s.off] == '0' {
		// Zeros alone make an int; zeros then other digits only a float.
		s.off++
		for s.src[s.off] == '0' || s.src[s.off] == '_' {
			if s.src[s.off] == '_' && !isDigit(s.peekc(1)) {
				return s.syntaxError(s.off+1, "invalid decimal literal")
			}
			s.off++
		}
		if isDigit(s.src[s.off]) {
			if t, bad := s.decimalTail(); bad {
				return t
			}
			if c := s.src[s.off] | 0x20; c != '.' && c != 'e' && c != 'j' {
				p := s.pos(start)
				return s.errorAt(p, kindSyntax, true, "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers")
			}
		}
	} else if s.src[s.off] != '.' {
		if t, bad := s.decimalTail(); bad {
			return t
		}
	}
	kind := "decimal"
	if s.src[s.off] == '.' {
		s.off++
		if isDigit(s.src[s.off]) {
			if t, bad := s.decimalTail(); bad {
				return t
			}
		}
	}
	if s.src[s.off]|0x20 == 'e' {
		e := s.off
		s.off++
		if c := s.src[s.off]; c == '+' || c == '-' {
			s.off++
			if !isDigit(s.src[s.off]) {
				return s.syntaxError(s.off, "invalid decimal literal")
			}
		}
		if !isDigit(s.src[s.off]) {
			// "1else": the number ends before the e.
			s.off = e
			return s.endNumber(start, kind)
		}
		if t, bad := s.decimalTail(); bad {
			return t
		}
	}
	if s.src[s.off]|0x20 == 'j' {
		s.off++
		kind = "imaginary"
	}
	return s.endNumber(start, kind)
}

// decimalTail scans digits that single underscores may group.
func (s *scanner) decimalTail() (token, bool) {
	for {
		for isDigit(s.src[s.off]) {
			s.off++
		}
		if s.src[s.off] != '_' {
			return token{}, false
		}
		s.off++
		if !isDigit(s.src[s.off]) {
			return s.syntaxError(s.off, "invalid decimal literal"), true
		}
	}
}

// radixNumber scans a 0x, 0o or 0b literal: groups of digits, each group
// after the first led by one underscore, and one may follow the prefix.
func (s *scanner) radixNumber(start int, isRadixDigit func(byte) bool, kind string) token {
	s.off += 2
	for {
		if s.src[s.off] == '_' {
			s.off++
		}
		if c := s.src[s.off]; !isRadixDigit(c) {
			if isDigit(c) {
				return s.syntaxError(s.off+1, "invalid digit '%c' in %s literal", c, kind)
			}
			return s.syntaxError(s.off, "invalid %s literal", kind)
		}
		for isRadixDigit(s.src[s.off]) {
			s.off++
		}
		if s.src[s.off] != '_' {
			break
		}
	}
	if c := s.src[s.off]; isDigit(c) {
		return s.syntaxError(s.off+1, "invalid digit '%c' in %s literal", c, kind)
	}
	return s.endNumber(start, kind)
}

func isOctDigit(c byte) bool { return '0' <= c && c <= '7' }
func isBinDigit(c byte) bool { return c == '0' || c == '1' }

// endNumber ends the literal at the cursor. An ASCII letter or digit
// right after it is an error, except where a keyword that may follow a
// number in valid code starts there (1if x else 2): CPython only warns
// about those. A non-ASCII character starts the next token.
func (s *scanner) endNumber(start int, kind string) token {
	if c := s.src[s.off]; c < utf8.RuneSelf && isIdentChar(c) && !s.keywordAfterNumber() {
		return s.syntaxError(s.off, "invalid %s literal", kind)
	}
	return token{kind: tNumber, text: string(s.src[start:s.off]), start: s.pos(start), end: s.pos(s.off), off: start}
}

// keywordAfterNumber reports whether the text at the cursor starts with
// and, else, for, or, not (not followed by a name character), or with
// if, in, is: the keywords CPython lets touch a number.
func (s *scanner) keywordAfterNumber() bool {
	rest := s.src[s.off:]
	if len(rest) >= 2 && rest[0] == 'i' && (rest[1] == 'f' || rest[1] == 'n' || rest[1] == 's') {
		return true
	}
	for _, kw := range [...]string{"and", "else", "for", "or", "not"} {
		if len(rest) > len(kw) && string(rest[:len(kw)]) == kw && !isIdentChar(rest[len(kw)]) {
			return true
		}
	}
	return false
}

// numberValue returns the value of a numeric literal the scanner accepted:
// int64, *big.Int, float64 or complex128.
func numberValue(text string) any {
	text = strings.ReplaceAll(text, "_", "")
	last := text[len(text)-1] | 0x20
	if last == 'j' {
		f, _ := strconv.ParseFloat(text[:len(text)-1], 64)
		return complex(0, f)
	}
	base, digits := 10, text
	if len(text) > 1 && text[0] == '0' {
		switch text[1] | 0x20 {
		case 'x':
			base, digits = 16, text[2:]
		case 'o':
			base, digits = 8, text[2:]
		case 'b':
			base, digits = 2, text[2:]
		}
	}
	if base == 10 && strings.ContainsAny(text, ".eE") {
		f, _ := strconv.ParseFloat(text, 64) // out of range gives ±Inf, as in Python
		return f
	}
	if n, err := strconv.ParseInt(digits, base, 64); err == nil {
		return n
	}
	n, _ := new(big.Int).SetString(digits, base)
	return n
}
