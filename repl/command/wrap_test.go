package command

import (
	"strings"
	"testing"
)

// Wrap keeps every line within the width, loses no word, breaks no
// number from its unit, and leaves text that fits (or width 0) alone.
func TestWrapFits(t *testing.T) {
	texts := []string{
		"b: 1024.00 MiB float32 [256, 1024, 1024] on cpu; freed old b (1024.00 MiB on cuda:0); y: 8 bytes float32 [2] on cuda:0; the cuBLAS workspace 32.00 MiB on cuda:0",
		"cuda:0 allocated 1024.00 MiB \x1b[31m-1024.00 MiB\x1b[0m  reserved 2.00 GiB  driver 2.60 GiB (-12.00 MiB outside the allocator)",
		"a path /a/very/long/folder/name/that/is/wider/than/forty/columns/file.pickle written",
	}
	for _, width := range []int{80, 40} {
		for _, text := range texts {
			out := Wrap(text+"\n", width, "    ", "      ")
			if !strings.HasSuffix(out, "\n") {
				t.Errorf("width %d: newline lost: %q", width, out)
			}
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			for _, l := range lines {
				if Width(l) > width {
					t.Errorf("width %d: line of %d columns: %q", width, Width(l), l)
				}
				if strings.HasSuffix(plain(l), " MiB") && !strings.Contains(plain(l), ".") {
					t.Errorf("width %d: a unit without its number: %q", width, l)
				}
				if strings.HasPrefix(strings.TrimLeft(plain(l), " "), "MiB") {
					t.Errorf("width %d: a unit starts a line: %q", width, l)
				}
			}
			if len(lines) < 2 {
				t.Errorf("width %d: %q was not broken", width, text)
			}
			joined := strings.Join(strings.Fields(plain(strings.ReplaceAll(out, "\n", ""))), "")
			if want := strings.Join(strings.Fields(plain(text)), ""); joined != want {
				t.Errorf("width %d: text changed:\n got %q\nwant %q", width, joined, want)
			}
		}
	}
	if got := Wrap("short line\n", 80, "  ", "    "); got != "  short line\n" {
		t.Errorf("a line that fits: %q", got)
	}
	if got := Wrap(texts[0]+"\n", 0, "    ", "  "); got != "    "+texts[0]+"\n" {
		t.Errorf("width 0 changed the line: %q", got)
	}
}

// A continuation line starts with the indent; a bracketed shape stays
// on one line.
func TestWrapIndentAndShape(t *testing.T) {
	out := Wrap("x: 4.00 KiB float32 [256, 1024, 1024] on cuda:0\n", 30, "", "  ")
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if i > 0 && !strings.HasPrefix(l, "  ") {
			t.Errorf("line %d not indented: %q", i, l)
		}
	}
	if !strings.Contains(out, "[256, 1024, 1024]") {
		t.Errorf("the shape was split: %q", out)
	}
}

// Piped help is today's text; on a terminal every line fits and every
// command is still listed.
func TestHelpWidth(t *testing.T) {
	entries := 1 // help itself
	for _, c := range Registry {
		if c.Usage != "" {
			entries++
		}
	}
	if n := strings.Count(Help(""), "\n"); n != entries+3 {
		t.Errorf("piped help is %d lines, want a line a command (%d) and 3 of prose", n, entries)
	}
	for _, width := range []int{200, 120, 80, 40} {
		for _, topic := range []string{"", "python", "load", "nosuch"} {
			out := HelpWidth(topic, width)
			for _, l := range strings.Split(out, "\n") {
				if Width(l) > width {
					t.Errorf("help %q at %d: line of %d columns: %q", topic, width, Width(l), l)
				}
			}
			if strings.Join(strings.Fields(out), "") != strings.Join(strings.Fields(Help(topic)), "") {
				t.Errorf("help %q at %d lost or changed words", topic, width)
			}
		}
	}
}

// FuzzWrap: whatever the text and the width (wider than the indent),
// no line passes the width and no character but a space is lost.
func FuzzWrap(f *testing.F) {
	f.Add("b: 1024.00 MiB float32 [256, 1024, 1024] on cpu; freed old b (1024.00 MiB on cuda:0)", 40)
	f.Add("  NAME = zeros SHAPE [DTYPE] [DEVICE]    a new \x1b[31m+1.00 GiB\x1b[0m tensor", 12)
	f.Add("0000000000\x1b[ \x1b[00000000", 12) // an escape that is not a color
	f.Fuzz(func(t *testing.T, text string, width int) {
		text = strings.Map(func(r rune) rune {
			if r == '\n' || r == '\t' || r == '\r' {
				return ' '
			}
			return r
		}, text)
		width = 7 + int(uint(width)%200)
		out := Wrap(text+"\n", width, "  ", "      ")
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			if Width(l) > width {
				t.Fatalf("width %d: a line of %d: %q from %q", width, Width(l), l, text)
			}
		}
		if strings.ReplaceAll(strings.ReplaceAll(out, "\n", ""), " ", "") != strings.ReplaceAll("  "+text+"\n", " ", "")[:len(strings.ReplaceAll("  "+text, " ", ""))] {
			t.Fatalf("width %d: %q became %q", width, text, out)
		}
	})
}
