package syntax

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// A promptCase is lines typed at the prompt, one after another. Each
// case ends its last statement (completes it or fails) at its last line.
type promptCase struct {
	name  string
	lines []string
}

// promptCases are Python typed at the prompt.
var promptCases = []promptCase{
	{"simple statement", []string{"x = 1"}},
	{"simple statements with semicolons", []string{"x = 1; y = 2;"}},
	{"empty line", []string{""}},
	{"spaces only", []string{"   "}},
	{"comment only", []string{"# c"}},
	{"open bracket", []string{"x = (1,", "2)"}},
	{"empty line in brackets", []string{"x = [", "", "1]"}},
	{"call over lines", []string{"f(a,", "  b", ")"}},
	{"triple-quoted string", []string{"s = '''a", "", "b'''"}},
	{"triple-quoted f-string", []string{"s = f'''{a", "}'''"}},
	{"backslash", []string{"x = 1 + \\", "2"}},
	{"backslash then empty line", []string{"x = \\", ""}},
	{"backslash in a string", []string{"x = 'abc\\", "def'"}},
	{"if block", []string{"if x:", "  y", ""}},
	{"one-line if", []string{"if x: y", ""}},
	{"one-line def", []string{"def f(): pass", ""}},
	{"blank lines that are not empty", []string{"for i in x:", "  y", "  ", "  # c", "# c", ""}},
	{"if else", []string{"if x:", "  y", "else:", "  z", ""}},
	{"if elif", []string{"if x:", "  y", "elif z:", "  w", ""}},
	{"nested def", []string{"class C:", "  def f(self):", "    pass", ""}},
	{"try except finally", []string{"try:", "  x", "except E as e:", "  y", "finally:", "  z", ""}},
	{"tab indentation", []string{"while x:", "\tpass", ""}},
	{"with", []string{"with a as b:", "  pass", ""}},
	{"bracket open in a block", []string{"def f():", "  x = (1,", "", "2)", ""}},
	{"decorated def", []string{"@dec", "def f(): pass", ""}},
	{"decorators and class", []string{"@a", "@b(1)", "class C: pass", ""}},
	{"decorator then empty line", []string{"@dec", ""}},
	{"decorator then statement", []string{"@dec", "x = 1"}},
	{"invalid syntax", []string{"x = = 1"}},
	{"unmatched bracket", []string{"x = )"}},
	{"print statement", []string{"print 'x'"}},
	{"unterminated string", []string{"x = 'a"}},
	{"unexpected indent", []string{"  x"}},
	{"statement after block", []string{"if x:", "  y", "z"}},
	{"bad unindent", []string{"if x:", "  y", " z"}},
	{"no indented block", []string{"if x:", "pass"}},
	{"header then empty line", []string{"if x:", ""}},
	{"try without except", []string{"try:", "  x", ""}},
	{"missing colon", []string{"if x"}},
	{"non-default argument", []string{"def f(x=1, y):"}},
	{"indent inside block", []string{"for i in x:", "  y", "    z"}},
	{"elif without test", []string{"if x:", "  y", "elif"}},
	{"else without colon", []string{"while x:", "  y", "else"}},
	{"unterminated f-string field", []string{"f'{'"}},
	{"return outside function", []string{"return 1"}},
	{"return in a block at module level", []string{"if x:", "  return 1", ""}},
	{"nonlocal bound later", []string{"def g():", "  def f():", "    nonlocal q", "  q = 1", ""}},
	{"nonlocal unbound", []string{"def f():", "  nonlocal q", ""}},
	{"break in for else", []string{"for i in x:", "  pass", "else:", "  break", ""}},
	{"lambda without body", []string{"lambda x:"}},
	{"operator without operand", []string{"x +"}},
}

// promptCommandCases are typed at a prompt whose IsCommand takes the
// words of testCommands; CPython is shown each command line as a pass
// statement.
var promptCommandCases = []promptCase{
	{"command", []string{"show x"}},
	{"command in a for body", []string{"for i in range(3):", "  show i", "  zeros 2x3 cuda", ""}},
	{"commands in if and else", []string{"if x:", "  show x", "else:", "  y = 1", "  show y", ""}},
	{"command that is not indented", []string{"for i in x:", "show i"}},
	{"command word inside brackets", []string{"f(", "show", ")"}},
}

// testCommands are the command words of the tests' IsCommand.
var testCommands = map[string]bool{"show": true, "zeros": true}

// isTestCommand reports whether line starts with a word of testCommands
// followed by a space.
func isTestCommand(line string) bool {
	word, _, ok := strings.Cut(line, " ")
	return ok && testCommands[word]
}

// asPass returns lines with each command line made a pass statement at
// the same indentation.
func asPass(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		text := strings.TrimLeft(l, " \t")
		if isTestCommand(text) {
			l = l[:len(l)-len(text)] + "pass"
		}
		out[i] = l
	}
	return out
}

// TestPromptMatchesCPython types each case's lines at python3's own
// interactive prompt and at ours (ParseInteractive on the lines since the
// last statement ended) and compares what each line does: wants more
// lines, completes a statement, or fails with a syntax error (kind, line,
// column, message).
func TestPromptMatchesCPython(t *testing.T) {
	python := pythonOrFail(t)
	cases := append(slices.Clip(promptCases), promptCommandCases...)
	want := make([][]string, len(cases))
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.NumCPU())
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			lines := c.lines
			if i >= len(promptCases) {
				lines = asPass(lines)
			}
			want[i] = cpythonPrompt(t, python, lines)
		}()
	}
	wg.Wait()
	for i, c := range cases {
		var opts *Options
		if i >= len(promptCases) {
			opts = &Options{IsCommand: isTestCommand}
		}
		got := ourPrompt(c.lines, opts)
		if strings.Join(got, "\n") != strings.Join(want[i], "\n") {
			t.Errorf("%s: %q\n got: %q\nwant: %q", c.name, c.lines, got, want[i])
		}
		if n := len(want[i]); n > 0 && want[i][n-1] == "more" {
			t.Errorf("%s: the case leaves its statement open at its last line", c.name)
		}
	}
}

// cpythonPrompt types lines at python3 -i, with testdata/prompt.py
// marking what the prompt does, and returns the outcome of each line.
func cpythonPrompt(t *testing.T, python string, lines []string) []string {
	cmd := exec.Command(python, "-S", "-q", "-i")
	cmd.Env = append(os.Environ(), "PYTHONSTARTUP="+filepath.Join("testdata", "prompt.py"))
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("python3 -i: %v: %s", err, stderr.String())
		return nil
	}
	var marks []string
	for _, chunk := range strings.Split(stderr.String(), "\x01")[1:] {
		mark, _, _ := strings.Cut(chunk, "\x02")
		marks = append(marks, mark)
	}
	// The first mark is the prompt before line 1; after that, each line
	// gives its marks up to the prompt for the next one.
	var out []string
	outcome := ""
	for _, m := range marks[1:] {
		switch {
		case m == ".":
			out = append(out, "more")
		case m == ">":
			out = append(out, cmp.Or(outcome, "ok"))
			outcome = ""
		case strings.HasPrefix(m, "E "):
			outcome = m[2:]
		}
	}
	return out
}

// ourPrompt types lines at ParseInteractive as a prompt would, and
// returns the outcome of each line in cpythonPrompt's words.
func ourPrompt(lines []string, opts *Options) []string {
	var out []string
	var buf []byte
	for _, l := range lines {
		buf = append(buf, l+"\n"...)
		_, err := ParseInteractive("<stdin>", buf, opts)
		var e *Error
		switch {
		case errors.Is(err, ErrIncomplete):
			out = append(out, "more")
			continue
		case errors.As(err, &e):
			out = append(out, fmt.Sprintf("%s|%d|%d|%s", e.Kind, e.Pos.Line, e.Pos.Col, e.Msg))
		case err != nil:
			out = append(out, "not a *Error: "+err.Error())
		default:
			out = append(out, "ok")
		}
		buf = buf[:0]
	}
	return out
}

// TestInteractiveCommands checks the Command statements of text typed at
// the prompt: where they stand in the tree, their text and their spans;
// and that a line continuing another is not asked about.
func TestInteractiveCommands(t *testing.T) {
	opts := &Options{IsCommand: isTestCommand}
	m, err := ParseInteractive("<stdin>", []byte("for i in range(3):\n  show i\n  zeros 2x3 cuda  # c\n\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	loop, ok := m.Body[0].(*For)
	if len(m.Body) != 1 || !ok || len(loop.Body) != 2 {
		t.Fatalf("want one for loop of two statements, got %s", dump(m))
	}
	want := []Command{
		{Node{Pos{2, 3}, Pos{2, 9}}, "show i"},
		{Node{Pos{3, 3}, Pos{3, 22}}, "zeros 2x3 cuda  # c"},
	}
	for i, s := range loop.Body {
		c, ok := s.(*Command)
		if !ok || *c != want[i] {
			t.Errorf("statement %d of the loop: got %#v, want %#v", i, s, want[i])
		}
	}
	m, err = ParseInteractive("<stdin>", []byte("x = \\\nshow + 1\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := m.Body[0].(*Assign); !ok || len(m.Body) != 1 {
		t.Errorf("a continued line became a command: %s", dump(m))
	} else if _, ok := a.Value.(*BinOp); !ok {
		t.Errorf("want show + 1 parsed as Python, got %s", dump(m))
	}
}
