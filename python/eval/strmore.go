package eval

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// findArgs checks the arguments of str.find, index, count, startswith
// and their kin: sub[, start[, end]], as CPython's PyArg_ParseTuple
// words a wrong count.
func (in *Interp) findArgs(name string, args []Value, kw []KeywordArg) error {
	if err := in.noKw("str."+name, kw); err != nil {
		return err
	}
	switch {
	case len(args) < 1:
		return in.typeError("%s() takes at least 1 argument (%d given)", name, len(args))
	case len(args) > 3:
		return in.typeError("%s() takes at most 3 arguments (%d given)", name, len(args))
	}
	return nil
}

// mustStr is v as a str, or CPython's "must be str" TypeError.
func (in *Interp) mustStr(v Value) (string, error) {
	s, ok := asStr(v)
	if !ok {
		return "", in.typeError("must be str, not %s", TypeOf(v).Name)
	}
	return s, nil
}

// splitLines is str.splitlines: lines end at \n, \r, \r\n and the other
// line boundaries CPython knows; keep keeps each line's ending.
func splitLines(s string, keep bool) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			end := i + n
			if r == '\r' && end < len(s) && s[end] == '\n' {
				end++
			}
			if keep {
				out = append(out, s[start:end])
			} else {
				out = append(out, s[start:i])
			}
			start, i = end, end
			continue
		}
		i += n
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

func init() {
	s := StrType
	affix := func(name string, cut func(x, p string) (string, bool)) {
		method(s, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs(name, args, kw, 1, 1); err != nil {
				return nil, err
			}
			p, ok := asStr(args[0])
			if !ok {
				return nil, in.typeError("%s() argument must be str, not %s", name, TypeOf(args[0]).Name)
			}
			r, _ := cut(self.(string), p)
			return r, nil
		})
	}
	affix("removeprefix", strings.CutPrefix)
	affix("removesuffix", strings.CutSuffix)
	method(s, "expandtabs", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		a, err := in.ArgSpec("expandtabs", args, kw, 0, "tabsize")
		if err != nil {
			return nil, err
		}
		size := int64(8)
		if a[0] != nil {
			if size, err = in.Index(a[0]); err != nil {
				return nil, err
			}
		}
		var b strings.Builder
		col := int64(0)
		for _, r := range self.(string) {
			switch r {
			case '\t':
				if size > 0 {
					n := size - col%size
					b.WriteString(strings.Repeat(" ", int(n)))
					col += n
				}
			case '\n', '\r':
				b.WriteRune(r)
				col = 0
			default:
				b.WriteRune(r)
				col++
			}
		}
		return b.String(), nil
	})
	method(s, "translate", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.fixedArgs("str.translate", args, kw, 1, 1); err != nil {
			return nil, err
		}
		var b strings.Builder
		for _, r := range self.(string) {
			v, err := in.GetItem(args[0], int64(r))
			if err != nil {
				if Matches(err, LookupErrorType) {
					in.Drop(err)
					b.WriteRune(r)
					continue
				}
				return nil, err
			}
			switch x := plain(v).(type) {
			case NoneType:
			case string:
				b.WriteString(x)
			case int64:
				b.WriteRune(rune(x))
			default:
				in.Decref(v)
				return nil, in.typeError("character mapping must return integer, None or str")
			}
			in.Decref(v)
		}
		return b.String(), nil
	})
	simple := func(name string, f func(string) string) {
		method(s, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs("str."+name, args, kw, 0, 0); err != nil {
				return nil, err
			}
			return f(self.(string)), nil
		})
	}
	simple("casefold", func(x string) string { return strings.ReplaceAll(strings.ToLower(x), "ß", "ss") })
	simple("swapcase", func(x string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsUpper(r) {
				return unicode.ToLower(r)
			}
			return unicode.ToUpper(r)
		}, x)
	})
	test := func(name string, f func(string) bool) {
		method(s, name, func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
			if err := in.fixedArgs("str."+name, args, kw, 0, 0); err != nil {
				return nil, err
			}
			return f(self.(string)), nil
		})
	}
	// cased is whether x has a cased character and none of the case
	// other says
	cased := func(x string, other func(rune) bool) bool {
		found := false
		for _, r := range x {
			if other(r) || unicode.IsTitle(r) {
				return false
			}
			found = found || unicode.IsUpper(r) || unicode.IsLower(r)
		}
		return found
	}
	test("isupper", func(x string) bool { return cased(x, unicode.IsLower) })
	test("islower", func(x string) bool { return cased(x, unicode.IsUpper) })
	every := func(x string, f func(rune) bool) bool {
		for _, r := range x {
			if !f(r) {
				return false
			}
		}
		return x != ""
	}
	test("isalnum", func(x string) bool {
		return every(x, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) })
	})
	test("isnumeric", func(x string) bool { return every(x, unicode.IsNumber) })
	test("isdecimal", func(x string) bool { return every(x, func(r rune) bool { return unicode.Is(unicode.Nd, r) }) })
	test("isidentifier", func(x string) bool {
		for i, r := range x {
			if !(r == '_' || unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r))) {
				return false
			}
		}
		return x != ""
	})
	test("istitle", func(x string) bool {
		prevCased, any := false, false
		for _, r := range x {
			switch {
			case unicode.IsUpper(r) || unicode.IsTitle(r):
				if prevCased {
					return false
				}
				prevCased, any = true, true
			case unicode.IsLower(r):
				if !prevCased {
					return false
				}
				prevCased, any = true, true
			default:
				prevCased = false
			}
		}
		return any
	})
}

// digitRanges are the characters besides the decimal digits (Nd) whose
// Unicode numeric type is Digit, which str.isdigit accepts: super- and
// subscripts, circled and parenthesised digits, Ethiopic digits.
var digitRanges = &unicode.RangeTable{
	R16: []unicode.Range16{
		{Lo: 0x00b2, Hi: 0x00b3, Stride: 1}, {Lo: 0x00b9, Hi: 0x00b9, Stride: 1},
		{Lo: 0x1369, Hi: 0x1371, Stride: 1}, {Lo: 0x19da, Hi: 0x19da, Stride: 1},
		{Lo: 0x2070, Hi: 0x2070, Stride: 1}, {Lo: 0x2074, Hi: 0x2079, Stride: 1},
		{Lo: 0x2080, Hi: 0x2089, Stride: 1}, {Lo: 0x2460, Hi: 0x2468, Stride: 1},
		{Lo: 0x2474, Hi: 0x247c, Stride: 1}, {Lo: 0x2488, Hi: 0x2490, Stride: 1},
		{Lo: 0x24ea, Hi: 0x24ea, Stride: 1}, {Lo: 0x24f5, Hi: 0x24fd, Stride: 1},
		{Lo: 0x24ff, Hi: 0x24ff, Stride: 1}, {Lo: 0x2776, Hi: 0x277e, Stride: 1},
		{Lo: 0x2780, Hi: 0x2788, Stride: 1}, {Lo: 0x278a, Hi: 0x2792, Stride: 1},
	},
}

// isDigitChar is str.isdigit's test of one character.
func isDigitChar(r rune) bool { return unicode.IsDigit(r) || unicode.Is(digitRanges, r) }
