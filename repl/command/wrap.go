package command

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Wrap is text (one line, its newline kept) fitted to width columns (0:
// as it is) and starting with first: a line too long breaks at spaces,
// each line it continues on starting with indent. A number stays with
// the word before it and with its unit ("allocated 1024.00 MiB"), and a
// bracketed list ("[256, 1024, 1024]", "(a, b)") stays whole, unless that alone is
// wider than a line; only a word wider than a line is cut. Colors (ANSI
// escapes) take no columns.
func Wrap(text string, width int, first, indent string) string {
	end := ""
	if strings.HasSuffix(text, "\n") {
		text, end = text[:len(text)-1], "\n"
	}
	if width <= 0 || Width(first+text) <= width {
		return first + text + end
	}
	f := &filler{width: width, indent: indent}
	f.b.WriteString(first)
	f.col = Width(first)
	f.fresh = true
	for _, u := range glue(pieces(text), glueNumbers) {
		f.unit(u, glueNumbers)
	}
	return f.b.String() + end
}

// Width is how many columns s takes on a terminal: its runes, less its
// ANSI escape sequences.
func Width(s string) int { return utf8.RuneCountInString(plain(s)) }

// escapeEnd is where the ANSI escape (CSI: ESC [, parameter bytes, a
// final byte, as colors are written) at s[i] ends; i when there is none.
func escapeEnd(s string, i int) int {
	if !strings.HasPrefix(s[i:], "\x1b[") {
		return i
	}
	j := i + 2
	for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
		j++
	}
	if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
		return j + 1
	}
	return i
}

// A piece is a word and the spaces before it.
type piece struct{ sp, w string }

// pieces splits text into its words, keeping the spaces between them.
func pieces(text string) []piece {
	var out []piece
	for text != "" {
		w := strings.TrimLeft(text, " ")
		sp := text[:len(text)-len(w)]
		n := strings.IndexByte(w, ' ')
		if n < 0 {
			n = len(w)
		}
		if n == 0 { // trailing spaces
			break
		}
		out = append(out, piece{sp, w[:n]})
		text = w[n:]
	}
	return out
}

// sizeUnits are the words a size ends with, which never start a line.
var sizeUnits = map[string]bool{"B": true, "bytes": true, "KiB": true, "MiB": true, "GiB": true, "TiB": true, "PiB": true}

// Glue levels: the runs a line break may not split, loosest last. A
// run too wide for a line is laid out by the next level's runs.
const (
	glueUnits   = iota // a unit with its number ("1024.00 MiB")
	glueLists          // and a bracketed list ("[256, 1024, 1024]", "(1.00 GiB on cuda:0)")
	glueLabels         // and a number with the word before it ("reserved 2.00 GiB")
	glueNumbers        // and a number with the number before it ("2.00 GiB +1.00 GiB")
)

// glue groups pieces into the runs no line break may split at level.
func glue(ps []piece, level int) [][]piece {
	var units [][]piece
	depth, afterNumber := 0, false
	for i, p := range ps {
		vis := plain(p.w)
		num := startsNumber(vis)
		joined := sizeUnits[vis] || level >= glueLists && depth > 0 ||
			num && (level >= glueNumbers || level >= glueLabels && !afterNumber)
		if i == 0 || !joined {
			units = append(units, nil)
		}
		units[len(units)-1] = append(units[len(units)-1], p)
		depth += strings.Count(vis, "[") + strings.Count(vis, "(") - strings.Count(vis, "]") - strings.Count(vis, ")")
		afterNumber = num || sizeUnits[vis]
	}
	return units
}

// plain is s without its ANSI escapes.
func plain(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		if j := escapeEnd(s, i); j > i {
			i = j
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}

// startsNumber reports whether s starts with a digit, signed or not.
func startsNumber(s string) bool {
	s = strings.TrimLeft(s, "+-")
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsDigit(r)
}

// A filler lays words out in lines of at most width columns.
type filler struct {
	b      strings.Builder
	width  int
	indent string
	col    int  // the current line's columns so far
	fresh  bool // no word on the current line yet
	cont   bool // the current line continues an earlier one
}

// lead is the spaces p keeps before it here: none at the start of a
// continuation line.
func (f *filler) lead(p piece) string {
	if f.fresh && f.cont {
		return ""
	}
	return p.sp
}

// unit places a run of pieces glued at level: where it is, or on a new
// line when it fits there; a run wider than a line by the runs of the
// level below, the last by word.
func (f *filler) unit(u []piece, level int) {
	w := Width(u[0].w)
	for _, p := range u[1:] {
		w += Width(p.sp) + Width(p.w)
	}
	if f.col+Width(f.lead(u[0]))+w > f.width && w <= f.width-Width(f.indent) {
		f.newline()
	}
	switch {
	case f.col+Width(f.lead(u[0]))+w <= f.width:
		for _, p := range u {
			f.put(f.lead(p) + p.w)
		}
	case level == glueUnits || len(u) == 1:
		for _, p := range u {
			f.word(p)
		}
	default:
		for _, v := range glue(u, level-1) {
			f.unit(v, level-1)
		}
	}
}

// word places one word: on a new line when it does not fit after the
// current one, cut where it is wider than a line.
func (f *filler) word(p piece) {
	if !f.fresh && f.col+Width(p.sp)+Width(p.w) > f.width {
		f.newline()
	}
	s := f.lead(p) + p.w
	for w := Width(s); f.col+w > f.width && f.col < f.width; {
		n := f.width - f.col
		cut := cutAt(s, n)
		f.put(s[:cut])
		s, w = s[cut:], w-n
		f.newline()
	}
	f.put(s)
}

// put writes s on the current line.
func (f *filler) put(s string) {
	f.b.WriteString(s)
	f.col += Width(s)
	f.fresh = false
}

// newline ends the current line and starts an indented one.
func (f *filler) newline() {
	f.b.WriteString("\n" + f.indent)
	f.col = Width(f.indent)
	f.fresh, f.cont = true, true
}

// cutAt is the byte offset in s after n columns, escapes kept whole.
func cutAt(s string, n int) int {
	i := 0
	for i < len(s) {
		if j := escapeEnd(s, i); j > i {
			i = j
			continue
		}
		if n == 0 {
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n--
	}
	return i
}
