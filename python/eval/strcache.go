package eval

import (
	"unicode/utf8"
	"unsafe"
)

// strChars remembers the characters of the last string indexed, sliced
// or searched by position: a loop that reads one string character by
// character (a parser) decodes it once, not at every index. It holds the
// string itself, so its memory is not reused while it is remembered.
type strChars struct {
	s     string
	runes []rune // nil when s is ASCII (a character is a byte)
}

// charsOf is s's characters: nil with ascii true when every character is
// one byte (index s itself), else its runes.
func (in *Interp) charsOf(s string) (runes []rune, ascii bool) {
	c := &in.strCache
	if len(s) != len(c.s) || unsafe.StringData(s) != unsafe.StringData(c.s) {
		c.s, c.runes = s, nil
		if utf8.RuneCountInString(s) != len(s) {
			c.runes = []rune(s)
		}
	}
	return c.runes, c.runes == nil
}
