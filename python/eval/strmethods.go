package eval

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gpumemrepl/gpumemrepl/python/pyformat"
)

// strMethodTable are str's methods, by name.
var strMethodTable = []struct {
	name string
	fn   GoFunc
}{
	{"capitalize", strTransform("capitalize", strCapitalize)},
	{"casefold", strTransform("casefold", func(x string) string { return strings.ReplaceAll(strings.ToLower(x), "ß", "ss") })},
	{"center", strPad("center", "^")},
	{"count", strCount},
	{"encode", strEncode},
	{"endswith", strAffix("endswith", strings.HasSuffix)},
	{"expandtabs", strExpandTabs},
	{"find", strFind("find", strings.Index, false)},
	{"format", func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		return in.strFormat(self.(string), args, kw)
	}},
	{"index", strFind("index", strings.Index, true)},
	{"isalnum", strTest("isalnum", allRunes(func(r rune) bool { return unicode.IsLetter(r) || unicode.IsNumber(r) }))},
	{"isalpha", strTest("isalpha", allRunes(unicode.IsLetter))},
	{"isdecimal", strTest("isdecimal", allRunes(func(r rune) bool { return unicode.Is(unicode.Nd, r) }))},
	{"isdigit", strTest("isdigit", allRunes(isDigitChar))},
	{"isidentifier", strTest("isidentifier", isIdentifier)},
	{"islower", strTest("islower", func(x string) bool { return cased(x, unicode.IsUpper) })},
	{"isnumeric", strTest("isnumeric", allRunes(unicode.IsNumber))},
	{"isspace", strTest("isspace", allRunes(unicode.IsSpace))},
	{"istitle", strTest("istitle", isTitle)},
	{"isupper", strTest("isupper", func(x string) bool { return cased(x, unicode.IsLower) })},
	{"join", strJoin},
	{"ljust", strPad("ljust", "<")},
	{"lower", strTransform("lower", strings.ToLower)},
	{"lstrip", strStrip("lstrip", strings.TrimLeft, func(x string) string { return strings.TrimLeftFunc(x, unicode.IsSpace) })},
	{"partition", strPartition("partition", strings.Cut)},
	{"removeprefix", strRemoveAffix("removeprefix", strings.CutPrefix)},
	{"removesuffix", strRemoveAffix("removesuffix", strings.CutSuffix)},
	{"replace", strReplace},
	{"rfind", strFind("rfind", strings.LastIndex, false)},
	{"rindex", strFind("rindex", strings.LastIndex, true)},
	{"rjust", strPad("rjust", ">")},
	{"rpartition", strPartition("rpartition", lastCut)},
	{"rsplit", strSplit("rsplit", true)},
	{"rstrip", strStrip("rstrip", strings.TrimRight, func(x string) string { return strings.TrimRightFunc(x, unicode.IsSpace) })},
	{"split", strSplit("split", false)},
	{"splitlines", strSplitLines},
	{"startswith", strAffix("startswith", strings.HasPrefix)},
	{"strip", strStrip("strip", strings.Trim, strings.TrimSpace)},
	{"swapcase", strTransform("swapcase", strSwapCase)},
	{"title", strTransform("title", strTitle)},
	{"translate", strTranslate},
	{"upper", strTransform("upper", strings.ToUpper)},
	{"zfill", strZfill},
}

func init() {
	for _, m := range strMethodTable {
		method(StrType, m.name, m.fn)
	}
	varArgs(StrType, "find", "rfind", "index", "rindex", "count", "startswith", "endswith")
}

// strTransform is a method that makes a new str of the old: upper,
// lower, title...
func strTransform(name string, f func(string) string) GoFunc {
	return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("str."+name, args, kw); err != nil {
			return nil, err
		}
		return f(self.(string)), nil
	}
}

// strTest is a method that tests the str: isdigit, isupper...
func strTest(name string, f func(string) bool) GoFunc {
	return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		if err := in.UnpackArgs("str."+name, args, kw); err != nil {
			return nil, err
		}
		return f(self.(string)), nil
	}
}

// allRunes is the test that x is not empty and f holds of each of its
// characters.
func allRunes(f func(rune) bool) func(x string) bool {
	return func(x string) bool {
		for _, r := range x {
			if !f(r) {
				return false
			}
		}
		return x != ""
	}
}

// cased is whether x has a cased character and none of the case other
// says (isupper, islower).
func cased(x string, other func(rune) bool) bool {
	found := false
	for _, r := range x {
		if other(r) || unicode.IsTitle(r) {
			return false
		}
		found = found || unicode.IsUpper(r) || unicode.IsLower(r)
	}
	return found
}

// isIdentifier is str.isidentifier.
func isIdentifier(x string) bool {
	for i, r := range x {
		if !(r == '_' || unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r))) {
			return false
		}
	}
	return x != ""
}

// isTitle is str.istitle: uppercase letters only after uncased
// characters, lowercase ones only after cased ones, and one cased.
func isTitle(x string) bool {
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
}

// strTitle is str.title: each run of letters capitalized.
func strTitle(x string) string {
	prev := false
	return strings.Map(func(r rune) rune {
		out := unicode.ToLower(r)
		if !prev {
			out = unicode.ToTitle(r)
		}
		prev = unicode.IsLetter(r)
		return out
	}, x)
}

// strCapitalize is str.capitalize.
func strCapitalize(x string) string {
	if x == "" {
		return x
	}
	r := []rune(strings.ToLower(x))
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// strSwapCase is str.swapcase.
func strSwapCase(x string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsUpper(r) {
			return unicode.ToLower(r)
		}
		return unicode.ToUpper(r)
	}, x)
}

// strStrip is strip, lstrip or rstrip: of chars, or of whitespace.
func strStrip(name string, f func(string, string) string, ws func(string) string) GoFunc {
	return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		var chars Value = None
		if err := in.UnpackArgs("str."+name, args, kw, "chars?", &chars, "/"); err != nil {
			return nil, err
		}
		if chars == None {
			return ws(self.(string)), nil
		}
		c, ok := asStr(chars)
		if !ok {
			return nil, in.typeError("%s arg must be None or str", name)
		}
		return f(self.(string), c), nil
	}
}

func strJoin(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var iterable Value
	if err := in.UnpackArgs("str.join", args, kw, "iterable", &iterable, "/"); err != nil {
		return nil, err
	}
	var parts []string
	i := 0
	err := in.forEach(iterable, func(v Value) error {
		p, ok := asStr(v)
		if !ok {
			return in.typeError("sequence item %d: expected str instance, %s found", i, TypeOf(v).Name)
		}
		parts = append(parts, p)
		i++
		return nil
	})
	if err != nil {
		return nil, err
	}
	return strings.Join(parts, self.(string)), nil
}

// strSplit is split or rsplit (right).
func strSplit(name string, right bool) GoFunc {
	return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		var sep Value = None
		n := int64(-1)
		if err := in.UnpackArgs("str."+name, args, kw, "sep?", &sep, "maxsplit?", &n); err != nil {
			return nil, err
		}
		x := self.(string)
		var parts []string
		if sep == None {
			parts = strings.Fields(x)
			if n >= 0 && int64(len(parts)) > n+1 {
				parts = splitFieldsN(x, int(n), right)
			}
		} else {
			s, ok := asStr(sep)
			if !ok {
				return nil, in.typeError("must be str or None, not %s", TypeOf(sep).Name)
			}
			if s == "" {
				return nil, in.Raise(ValueErrorType, "empty separator")
			}
			if n < 0 {
				parts = strings.Split(x, s)
			} else if right {
				parts = rsplitN(x, s, int(n))
			} else {
				parts = strings.SplitN(x, s, int(n)+1)
			}
		}
		items := make([]Value, len(parts))
		for i, p := range parts {
			items[i] = p
		}
		return in.NewList(items), nil
	}
}

// strPartition is partition or rpartition (cut finding the separator).
func strPartition(name string, cut func(x, sep string) (before, after string, found bool)) GoFunc {
	return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		var sepArg Value
		if err := in.UnpackArgs("str."+name, args, kw, "sep", &sepArg, "/"); err != nil {
			return nil, err
		}
		sep, err := in.mustStr(sepArg)
		if err != nil {
			return nil, err
		}
		if sep == "" {
			return nil, in.Raise(ValueErrorType, "empty separator")
		}
		before, after, found := cut(self.(string), sep)
		if !found {
			return in.NewTuple([]Value{before, "", after}), nil
		}
		return in.NewTuple([]Value{before, sep, after}), nil
	}
}

// lastCut is rpartition's cut: at the last sep; a missing separator
// puts the string last.
func lastCut(x, sep string) (string, string, bool) {
	i := strings.LastIndex(x, sep)
	if i < 0 {
		return "", x, false
	}
	return x[:i], x[i+len(sep):], true
}

func strSplitLines(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var keep int64
	if err := in.UnpackArgs("str.splitlines", args, kw, "keepends?", &keep); err != nil {
		return nil, err
	}
	lines := splitLines(self.(string), keep != 0)
	items := make([]Value, len(lines))
	for i, l := range lines {
		items[i] = l
	}
	return in.NewList(items), nil
}

func strReplace(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var old, nw string
	n := int64(-1)
	if err := in.UnpackArgs("str.replace", args, kw, "old", &old, "new", &nw, "count?", &n, "/"); err != nil {
		return nil, err
	}
	return strings.Replace(self.(string), old, nw, int(n)), nil
}

// strAffix is startswith or endswith: of a str or a tuple of them,
// within the optional start and end.
func strAffix(name string, f func(string, string) bool) GoFunc {
	return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		sub, w, err := in.findArgs(name, self.(string), args, kw)
		if err != nil {
			return nil, err
		}
		if t, ok := sub.(*Tuple); ok {
			for _, p := range t.items {
				q, ok := asStr(p)
				if !ok {
					return nil, in.typeError("tuple for %s must only contain str, not %s", name, TypeOf(p).Name)
				}
				if !w.past && f(w.text, q) {
					return true, nil
				}
			}
			return false, nil
		}
		p, ok := asStr(sub)
		if !ok {
			return nil, in.typeError("%s first arg must be str or a tuple of str, not %s", name, TypeOf(sub).Name)
		}
		return !w.past && f(w.text, p), nil
	}
}

// strFind is find, rfind, index or rindex (raise: a ValueError when
// the substring is not there).
func strFind(name string, f func(string, string) int, raise bool) GoFunc {
	return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		subArg, w, err := in.findArgs(name, self.(string), args, kw)
		if err != nil {
			return nil, err
		}
		sub, err := in.mustStr(subArg)
		if err != nil {
			return nil, err
		}
		i := -1
		if !w.past {
			i = f(w.text, sub)
		}
		if i < 0 {
			if raise {
				return nil, in.Raise(ValueErrorType, "substring not found")
			}
			return int64(-1), nil
		}
		if _, ascii := in.charsOf(self.(string)); ascii {
			return int64(w.from + i), nil
		}
		return int64(w.from + len([]rune(w.text[:i]))), nil
	}
}

func strCount(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	subArg, w, err := in.findArgs("count", self.(string), args, kw)
	if err != nil {
		return nil, err
	}
	sub, err := in.mustStr(subArg)
	if err != nil || w.past {
		return int64(0), err
	}
	return int64(strings.Count(w.text, sub)), nil
}

// strPad is ljust, rjust or center (align as a format spec aligns).
func strPad(name string, align string) GoFunc {
	return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		var w int64
		var fillArg Value
		if err := in.UnpackArgs("str."+name, args, kw, "width", &w, "fillchar?", &fillArg, "/"); err != nil {
			return nil, err
		}
		fill := " "
		if fillArg != nil {
			var ok bool
			if fill, ok = asStr(fillArg); !ok {
				return nil, in.typeError("The fill character must be a unicode character, not %s", TypeOf(fillArg).Name)
			}
			if utf8.RuneCountInString(fill) != 1 {
				return nil, in.typeError("The fill character must be exactly one character long")
			}
		}
		out, err := pyformat.FormatStr(self.(string), fill+align+itoa(w))
		return out, in.pyErr(err)
	}
}

func strZfill(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var w int64
	if err := in.UnpackArgs("str.zfill", args, kw, "width", &w, "/"); err != nil {
		return nil, err
	}
	x := self.(string)
	sign := ""
	if x != "" && (x[0] == '-' || x[0] == '+') {
		sign, x = x[:1], x[1:]
	}
	for int64(len([]rune(x))+len(sign)) < w {
		x = "0" + x
	}
	return sign + x, nil
}

func strEncode(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	encoding, errors := "utf-8", "strict"
	if err := in.UnpackArgs("str.encode", args, kw, "encoding?", &encoding, "errors?", &errors); err != nil {
		return nil, err
	}
	return Bytes(self.(string)), nil
}

// strRemoveAffix is removeprefix or removesuffix.
func strRemoveAffix(name string, cut func(x, p string) (string, bool)) GoFunc {
	return func(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
		var p string
		if err := in.UnpackArgs("str."+name, args, kw, "affix", &p, "/"); err != nil {
			return nil, err
		}
		r, _ := cut(self.(string), p)
		return r, nil
	}
}

func strExpandTabs(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	size := int64(8)
	if err := in.UnpackArgs("str.expandtabs", args, kw, "tabsize?", &size); err != nil {
		return nil, err
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
}

func strTranslate(in *Interp, self Value, args []Value, kw []KeywordArg) (Value, error) {
	var table Value
	if err := in.UnpackArgs("str.translate", args, kw, "table", &table, "/"); err != nil {
		return nil, err
	}
	var b strings.Builder
	for _, r := range self.(string) {
		v, err := in.GetItem(table, int64(r))
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
}

// findArgs reads the arguments of str.find, index, count, startswith
// and their kin, sub[, start[, end]], as CPython's PyArg_ParseTuple
// does, and the window of s they give: start and end are read before
// sub is looked at, as CPython reads them.
func (in *Interp) findArgs(name, s string, args []Value, kw []KeywordArg) (sub Value, w strWindow, err error) {
	var start, end Value
	if err := in.unpackTuple("str."+name, args, kw, "sub", &sub, "start?", &start, "end?", &end, "/"); err != nil {
		return nil, w, err
	}
	w, err = in.window(s, start, end)
	return sub, w, err
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

// splitFieldsN splits on whitespace at most n times, from the left or
// the right, as str.split()/rsplit() with maxsplit.
func splitFieldsN(x string, n int, right bool) []string {
	if right {
		head := strings.TrimRightFunc(x, unicode.IsSpace)
		var out []string
		for range n {
			i := strings.LastIndexFunc(head, unicode.IsSpace)
			if i < 0 {
				break
			}
			out = append([]string{head[i+1:]}, out...)
			head = strings.TrimRightFunc(head[:i], unicode.IsSpace)
		}
		return append([]string{head}, out...)
	}
	var out []string
	rest := strings.TrimLeftFunc(x, unicode.IsSpace)
	for range n {
		i := strings.IndexFunc(rest, unicode.IsSpace)
		if i < 0 {
			break
		}
		out = append(out, rest[:i])
		rest = strings.TrimLeftFunc(rest[i:], unicode.IsSpace)
	}
	return append(out, rest)
}

func rsplitN(x, sep string, n int) []string {
	var out []string
	for range n {
		i := strings.LastIndex(x, sep)
		if i < 0 {
			break
		}
		out = append([]string{x[i+len(sep):]}, out...)
		x = x[:i]
	}
	return append([]string{x}, out...)
}

// strFormat is template.format(*args, **kw).
func (in *Interp) strFormat(tmpl string, args []Value, kw []KeywordArg) (Value, error) {
	pieces, perr := pyformat.ParseFormatString(tmpl)
	var b strings.Builder
	var render func(ps []pyformat.Piece) (string, error)
	render = func(ps []pyformat.Piece) (string, error) {
		var b strings.Builder
		for _, p := range ps {
			b.WriteString(p.Literal)
			f := p.Field
			if f == nil {
				continue
			}
			var v Value
			if f.Keyword != "" {
				v = Kwarg(kw, f.Keyword)
				if v == nil {
					return "", in.raiseInst(in.NewException(KeyErrorType, f.Keyword))
				}
				Incref(v)
			} else {
				if f.Index >= len(args) {
					return "", in.Raise(IndexErrorType, "Replacement index %d out of range for positional args tuple", f.Index)
				}
				v = newRef(args[f.Index])
			}
			for _, acc := range f.Path {
				var next Value
				var err error
				if acc.Attr {
					next, err = in.GetAttr(v, acc.Name)
				} else if acc.IsIndex {
					next, err = in.GetItem(v, int64(acc.Index))
				} else {
					next, err = in.GetItem(v, acc.Name)
				}
				in.Decref(v)
				if err != nil {
					return "", err
				}
				v = next
			}
			if f.Err != nil {
				in.Decref(v)
				return "", in.pyErr(f.Err)
			}
			if f.Conversion != 0 {
				var s string
				var err error
				if f.Conversion == 's' {
					s, err = in.Str(v)
				} else {
					s, err = in.Repr(v)
				}
				in.Decref(v)
				if err != nil {
					return "", err
				}
				v = s
			}
			spec, err := render(f.Spec)
			if err == nil && f.SpecErr != nil {
				err = in.pyErr(f.SpecErr)
			}
			if err != nil {
				in.Decref(v)
				return "", err
			}
			s, err := in.Format(v, spec)
			in.Decref(v)
			if err != nil {
				return "", err
			}
			b.WriteString(s)
		}
		return b.String(), nil
	}
	s, err := render(pieces)
	if err != nil {
		return nil, err
	}
	if perr != nil {
		return nil, in.pyErr(perr)
	}
	b.WriteString(s)
	return b.String(), nil
}

// strWindow is s[start:end] for a str method's optional start and
// end: the text, where it starts (in characters), and past when start
// lies beyond s or end before start, where CPython's find, count and
// startswith find nothing.
type strWindow struct {
	text string
	from int
	past bool
}

// window is s[start:end], start and end nil (absent), None or ints
// clamped as a slice clamps them.
func (in *Interp) window(s string, start, end Value) (strWindow, error) {
	if (start == nil || start == None) && (end == nil || end == None) {
		return strWindow{text: s}, nil
	}
	r, ascii := in.charsOf(s)
	n := len(r)
	if ascii {
		n = len(s)
	}
	at := func(b Value, def int) (int, error) {
		if b == nil || b == None {
			return def, nil
		}
		v, err := in.Index(b)
		if Matches(err, TypeErrorType) {
			in.Drop(err)
			err = in.typeError("slice indices must be integers or None or have an __index__ method")
		}
		if err != nil {
			return 0, err
		}
		if v < 0 {
			v = max(v+int64(n), 0)
		}
		return int(min(v, int64(n)+1)), nil
	}
	from, err := at(start, 0)
	if err != nil {
		return strWindow{}, err
	}
	to, err := at(end, n)
	if err != nil {
		return strWindow{}, err
	}
	to = min(to, n)
	switch {
	case from > n || to < from:
		return strWindow{from: from, past: true}, nil
	case ascii:
		return strWindow{text: s[from:to], from: from}, nil
	}
	return strWindow{text: string(r[from:to]), from: from}, nil
}
