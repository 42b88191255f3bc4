package syntax

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"strconv"
	"strings"
	"sync"
)

//go:generate python3 unicode_gen.py

// unicodeData is Python 3.11's Unicode data that the parser needs:
// character names for \N{...} and the NFKC forms of identifier
// characters. unicode_gen.py writes it from Python's unicodedata.
//
//go:embed unicode.txt.gz
var unicodeData []byte

// unicodeTables is unicodeData, read once on first use.
type unicodeTables struct {
	byName map[string]rune
	ranges []nameRange
	nfkc   map[rune]string
}

// nameRange names lo..hi as prefix followed by the code point in hex.
type nameRange struct {
	prefix string
	lo, hi rune
}

var loadTables = sync.OnceValue(func() *unicodeTables {
	t := &unicodeTables{byName: map[string]rune{}, nfkc: map[rune]string{}}
	zr, err := gzip.NewReader(bytes.NewReader(unicodeData))
	if err != nil {
		return t
	}
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		kind, rest, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "N":
			hex, name, _ := strings.Cut(rest, " ")
			t.byName[name] = hexRune(hex)
		case "K":
			f := strings.Fields(rest)
			var b strings.Builder
			for _, h := range f[1:] {
				b.WriteRune(hexRune(h))
			}
			t.nfkc[hexRune(f[0])] = b.String()
		case "R":
			f := strings.Fields(rest)
			n := len(f)
			t.ranges = append(t.ranges, nameRange{strings.Join(f[:n-2], " "), hexRune(f[n-2]), hexRune(f[n-1])})
		}
	}
	return t
})

func hexRune(s string) rune {
	v, _ := strconv.ParseUint(s, 16, 32)
	return rune(v)
}

// lookupCharName returns the character a \N{name} escape names; like
// CPython it ignores the case of the name, but not of the hex digits of
// a name such as CJK UNIFIED IDEOGRAPH-4E00. Name aliases (such as LINE
// FEED) are not known.
func lookupCharName(name string) (rune, bool) {
	t := loadTables()
	upper := strings.ToUpper(name)
	if r, ok := t.byName[upper]; ok {
		return r, true
	}
	for _, rg := range t.ranges {
		if !strings.HasPrefix(upper, rg.prefix) {
			continue
		}
		hex := name[len(rg.prefix):]
		if hex != strings.ToUpper(hex) || len(hex) < 4 || len(hex) > 5 {
			return 0, false
		}
		v, err := strconv.ParseUint(hex, 16, 32)
		if err == nil && rune(v) >= rg.lo && rune(v) <= rg.hi {
			return rune(v), true
		}
	}
	return 0, false
}

// normalizeIdent returns a non-ASCII identifier in NFKC form, as CPython
// stores it, character by character (the composition of a letter with a
// combining mark that follows it is not done).
func normalizeIdent(name string) string {
	t := loadTables()
	var b strings.Builder
	for _, r := range name {
		if m, ok := t.nfkc[r]; ok {
			b.WriteString(m)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
