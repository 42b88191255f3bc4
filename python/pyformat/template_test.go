package pyformat

import (
	"fmt"
	"strings"
	"testing"
)

// describe writes parsed pieces in a short form to compare: literals
// quoted, fields in braces with their argument, path, conversion, spec
// and errors.
func describe(pieces []Piece, err error) string {
	var parts []string
	for _, p := range pieces {
		if p.Literal != "" {
			parts = append(parts, fmt.Sprintf("%q", p.Literal))
		}
		if f := p.Field; f != nil {
			s := "{" + fmt.Sprint(f.Index)
			if f.Keyword != "" {
				s = "{" + f.Keyword
			}
			for _, a := range f.Path {
				switch {
				case a.Attr:
					s += "." + a.Name
				case a.IsIndex:
					s += fmt.Sprintf("[%d]", a.Index)
				default:
					s += fmt.Sprintf("[%q]", a.Name)
				}
			}
			if f.Err != nil {
				s += " raise " + f.Err.Error()
			}
			if f.Conversion != 0 {
				s += "!" + string(f.Conversion)
			}
			if f.Spec != nil || f.SpecErr != nil {
				s += ":" + describe(f.Spec, f.SpecErr)
			}
			parts = append(parts, s+"}")
		}
	}
	if err != nil {
		parts = append(parts, "raise "+err.Error())
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestParseFormatString(t *testing.T) {
	tests := []struct{ template, want string }{
		{"{:.1f} MiB", `[{0:[".1f"]} " MiB"]`},
		{"a{{b}}c", `["a{b}c"]`},
		{"{}{}{name}", `[{0} {1} {name}]`},
		{"{0.x[1][k]!r:>10}", `[{0.x[1]["k"]!r:[">10"]}]`},
		{"{0[-1]}{0[ 1]}", `[{0["-1"]} {0[" 1"]}]`},
		{"{:{w}.{}}", `[{0:[{w} "." {1}]}]`},
		{"{:{{}}}", `[{0:["{}"]}]`},
		{"{\u0663}", `[{3}]`},
		{"{0[}]}", `[{0["}"]}]`},
		{"x{0}{}", `["x" {0} raise ValueError: cannot switch from manual field specification to automatic field numbering]`},
		{"{}{0}", `[{0} raise ValueError: cannot switch from automatic field numbering to manual field specification]`},
		{"{:{0}}", `[{0:[raise ValueError: cannot switch from automatic field numbering to manual field specification]}]`},
		{"{:{:{}}}", `[{0:[{1:[raise ValueError: Max string recursion exceeded]}]}]`},
		{"{0.a[}", `[raise ValueError: expected '}' before end of string]`},
		{"{0.a[1]x}", `[{0.a[1] raise ValueError: Only '.' or '[' may follow ']' in format field specifier}]`},
		{"{0.a.}", `[{0.a raise ValueError: Empty attribute in format string}]`},
		{"{0[1}", `[raise ValueError: expected '}' before end of string]`},
		{"{0!x}", `[{0 raise ValueError: Unknown conversion specifier x!x}]`},
		{"{0!\u00e9}", `[{0 raise ValueError: Unknown conversion specifier \xe9!é}]`},
		{"{0!r", `[raise ValueError: unmatched '{' in format spec]`},
		{"{0!rr}", `[raise ValueError: expected ':' after conversion specifier]`},
		{"{0!", `[raise ValueError: end of string while looking for conversion specifier]`},
		{"{a{b}", `[raise ValueError: unexpected '{' in field name]`},
		{"ab}", `[raise ValueError: Single '}' encountered in format string]`},
		{"ab{", `[raise ValueError: Single '{' encountered in format string]`},
		{"{99999999999999999999x}", `[raise ValueError: Too many decimal digits in format string]`},
	}
	for _, tt := range tests {
		if got := describe(ParseFormatString(tt.template)); got != tt.want {
			t.Errorf("ParseFormatString(%q) = %s, want %s", tt.template, got, tt.want)
		}
	}
}
