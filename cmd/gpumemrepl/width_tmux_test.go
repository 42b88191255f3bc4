package main

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkWidth fails unless every line the session wrote after its first
// prompt (wrapped lines joined, as the program wrote them, the history
// included) fits width columns; it returns them.
func (term *terminal) checkWidth(width int) string {
	term.t.Helper()
	_, s, _ := strings.Cut(term.tmux("capture-pane", "-p", "-J", "-S", "-"), "\ngpumem> ")
	for _, l := range strings.Split(s, "\n") {
		if n := utf8.RuneCountInString(strings.TrimRight(l, " ")); n > width {
			term.t.Errorf("a line of %d columns on a %d-column terminal: %q", n, width, l)
		}
	}
	return s
}

// On an 80-column terminal (made so by a resize, which the next step
// follows) a step report of two devices and several events, help and
// map fit the width, and say what they said on a wide one.
func TestWidthInTmux(t *testing.T) {
	term := startTerminal(t, "--device", "sim", "--devices", "2", "--fake-host", "--no-color")
	term.tmux("resize-window", "-x", "80", "-y", "50")
	term.keys("a = zeros 256x1024x1024 cuda:1", "Enter")
	term.waitFor("a: 1024.00 MiB float32 [256, 1024, 1024] on cuda:1")
	term.keys("b = a.to cuda:0", "Enter")
	term.waitFor("b: 1024.00 MiB float32 [256, 1024, 1024] on cuda:0")
	s := term.checkWidth(80)
	if !strings.Contains(s, "\n    cuda:0 allocated 1024.00 MiB +1024.00 MiB") {
		t.Errorf("the devices are not on lines of their own:\n%s", s)
	}
	term.keys("help", "Enter")
	term.waitFor("help [COMMAND]")
	term.keys("map", "Enter")
	term.waitFor("free in 0 block(s)")
	s = term.checkWidth(80)
	if !regexp.MustCompile(`\nlarge 1024.00 MiB \|#{33}\| 0 bytes free in 0 block\(s\)\n`).MatchString(s) {
		t.Errorf("cuda:0's segment is not a bar as wide as the terminal:\n%s", s)
	}
	term.quit()
}

// Tab completes in context at the prompt: a tensor's methods after
// x., torch.cuda's functions, a file name after load.
func TestCompletionInTmux(t *testing.T) {
	term := startTerminal(t, "--device", "sim", "--fake-host", "--no-color")
	term.keys("x = zeros 3 cuda", "Enter")
	term.waitFor("x: 12 bytes float32 [3] on cuda:0")
	term.keys("x.", "Tab")
	s := term.waitFor("sum(")
	if !strings.Contains(s, "backward(") {
		t.Errorf("x. Tab does not list tensor methods:\n%s", s)
	}
	term.keys("C-c", "C-c", "torch.cuda.empty_c", "Tab")
	term.waitFor("torch.cuda.empty_cache(")
	term.keys(")", "Enter")
	term.keys("load flags_te", "Tab")
	term.waitFor("load flags_test.go")
	term.keys("C-c")
	term.quit()
}
