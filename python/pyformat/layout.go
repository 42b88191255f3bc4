package pyformat

import "strings"

// number is a formatted number before padding: its sign ("", "-", "+"
// or " "), a prefix such as "0x", the digits that grouping applies to
// (the whole-number part) and the rest (decimal point, fraction,
// exponent, '%'; or all of "inf", or a 'c' character).
type number struct {
	sign, prefix, digits, rest string
}

// numberOf splits a formatted float's text into its whole-number digits
// and the rest.
func numberOf(sign, body string) number {
	digits := len(body) - len(strings.TrimLeft(body, "0123456789"))
	return number{sign: sign, digits: body[:digits], rest: body[digits:]}
}

// grouping is a separator and how many digits go between separators.
type grouping struct {
	sep  string
	size int
}

// grouping returns the spec's grouping, with size digits a group.
func (s Spec) grouping(size int) grouping {
	if s.Grouping == 0 {
		return grouping{}
	}
	return grouping{sep: string(s.Grouping), size: size}
}

// pad lays a number out in its field, as CPython's calc_number_widths:
// |lpad|sign|prefix|spad|grouped digits|rest|rpad|. With fill '0' and
// '=' the zeros are digits too, and are grouped.
func (n number) pad(s Spec, g grouping) (string, error) {
	if s.Width > maxWidth {
		return "", memoryError()
	}
	fill, align := s.fillAlign('>')
	other := len(n.sign) + len(n.prefix) + runeLen(n.rest)
	grouped := n.digits
	if n.digits != "" {
		minWidth := 0
		if fill == '0' && align == '=' {
			minWidth = s.Width - other
		}
		grouped = g.apply(n.digits, minWidth)
	}
	var lpad, spad, rpad int
	if padding := s.Width - other - len(grouped); padding > 0 {
		switch align {
		case '<':
			rpad = padding
		case '^':
			lpad = padding / 2
			rpad = padding - lpad
		case '=':
			spad = padding
		default:
			lpad = padding
		}
	}
	f := string(fill)
	return strings.Repeat(f, lpad) + n.sign + n.prefix + strings.Repeat(f, spad) + grouped + n.rest + strings.Repeat(f, rpad), nil
}

// apply puts separators into digits, from the right, and pads them with
// zeros to at least minWidth characters, separators included; a field
// never starts with a separator (a zero goes before it instead).
func (g grouping) apply(digits string, minWidth int) string {
	if g.sep == "" {
		return strings.Repeat("0", max(0, minWidth-len(digits))) + digits
	}
	var groups []string
	remaining := len(digits)
	for {
		l := min(g.size, max(remaining, minWidth, 1))
		chars := min(remaining, l)
		groups = append(groups, strings.Repeat("0", l-chars)+digits[remaining-chars:remaining])
		remaining -= chars
		minWidth -= l
		if remaining <= 0 && minWidth <= 0 {
			break
		}
		minWidth -= len(g.sep)
	}
	var b strings.Builder
	for i := len(groups) - 1; i >= 0; i-- {
		b.WriteString(groups[i])
		if i > 0 {
			b.WriteString(g.sep)
		}
	}
	return b.String()
}

// padText lays text out in a field of width characters.
func padText(text string, width int, fill rune, align byte) (string, error) {
	if width > maxWidth {
		return "", memoryError()
	}
	padding := width - runeLen(text)
	if padding <= 0 {
		return text, nil
	}
	left := 0
	switch align {
	case '>':
		left = padding
	case '^':
		left = padding / 2
	}
	f := string(fill)
	return strings.Repeat(f, left) + text + strings.Repeat(f, padding-left), nil
}

// signOf is the sign a number shows: '-' when negative, else what the
// spec's sign asks for ('+' or ' ').
func signOf(negative bool, sign byte) string {
	switch {
	case negative:
		return "-"
	case sign == '+' || sign == ' ':
		return string(sign)
	}
	return ""
}
