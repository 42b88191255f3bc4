package pyformat

import (
	"errors"
	"math"
	"math/big"
	"regexp"
	"strings"
	"testing"
)

// checkError fails unless err is nil or a Python exception.
func checkError(t *testing.T, what string, err error) {
	var e *Error
	if err != nil && (!errors.As(err, &e) || e.Kind == "") {
		t.Fatalf("%s: %v is not a Python exception", what, err)
	}
}

// longNumber matches a width or precision too large to build quickly.
var longNumber = regexp.MustCompile(`[0-9\p{Nd}]{5,}`)

func FuzzSpec(f *testing.F) {
	for _, s := range []string{"", ">10", "*^+#012,.3f", "z.2%", "_x", "\u00e9<\u0663c", ",,", ".", "10xx", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if longNumber.MatchString(spec) {
			return
		}
		for _, typeName := range []string{"int", "float", "str", "bool"} {
			var out string
			var err error
			switch typeName {
			case "int":
				out, err = FormatInt(big.NewInt(-12345), spec)
			case "float":
				out, err = FormatFloat(-1.5e-7, spec)
			case "str":
				out, err = FormatStr("h\u00e9llo", spec)
			default:
				out, err = FormatBool(true, spec)
			}
			checkError(t, typeName+" "+spec, err)
			s, perr := ParseSpec(spec, typeName)
			if err == nil && perr == nil && runeLen(out) < s.Width {
				t.Fatalf("format(%s, %q) = %q, narrower than its width %d", typeName, spec, out, s.Width)
			}
		}
	})
}

func FuzzFormatString(f *testing.F) {
	for _, s := range []string{"", "{}", "a{{b}}c", "{0.x[1]!r:>{w}}", "{:{:{}}}", "{0[}", "{!", "}{", "{name:{}.{}f}"} {
		f.Add(s)
	}
	unescape := strings.NewReplacer("{{", "{", "}}", "}")
	args := []pyValue{pyInt(3), pyFloat(2.5), pyStr("s"), pyList(pyInt(1))}
	kwargs := pyDict([]string{"w", "name"}, []pyValue{pyInt(4), pyStr("n")})
	f.Fuzz(func(t *testing.T, template string) {
		if longNumber.MatchString(template) {
			return
		}
		pieces, err := ParseFormatString(template)
		checkError(t, template, err)
		fields := false
		var text strings.Builder
		for _, p := range pieces {
			text.WriteString(p.Literal)
			fields = fields || p.Field != nil
		}
		// The parser reads runes: a byte that is not UTF-8 (no Python str
		// holds one) reads as U+FFFD.
		if err == nil && !fields && text.String() != unescape.Replace(string([]rune(template))) {
			t.Fatalf("ParseFormatString(%q) gives the text %q", template, text.String())
		}
		_, err = renderPieces(pieces, err, args, kwargs)
		checkError(t, template, err)
	})
}

func FuzzPercent(f *testing.F) {
	for _, s := range []string{"", "%s", "%(a)s %%", "%-*.*f", "%#010x|%c", "%(a", "%5%", "%lld"} {
		f.Add(s)
	}
	args := pyTuple(pyInt(65), pyFloat(-0.5), pyStr("x"), pyInt(-7), pyInt(3))
	mapping := pyDict([]string{"a"}, []pyValue{pyFloat(1.25)})
	f.Fuzz(func(t *testing.T, format string) {
		if longNumber.MatchString(format) {
			return
		}
		for _, v := range []pyValue{args, mapping, pyStr("one")} {
			_, err := percent(format, v)
			checkError(t, format, err)
		}
	})
}

func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"1_000", " -0x_1f ", "1e500", "nan", "\u0663.5", "0b", "1__0", "."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if x, err := ParseInt(s, 0); err == nil {
			text, err := IntString(x)
			if err == nil {
				if y, err := ParseInt(text, 10); err != nil || y.Cmp(x) != 0 {
					t.Fatalf("int(%q) = %s does not read back: %v", s, text, err)
				}
			}
		} else {
			checkError(t, s, err)
		}
		if v, err := ParseFloat(s); err == nil && !math.IsNaN(v) {
			if back, err := ParseFloat(ReprFloat(v)); err != nil || back != v {
				t.Fatalf("float(%q) = %s does not read back: %v", s, ReprFloat(v), err)
			}
		} else {
			checkError(t, s, err)
		}
	})
}
