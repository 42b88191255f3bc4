// Package command is gpumemrepl's short command form (`a = zeros
// 256x1024x1024 cuda`, `b = b.to cpu`, `del a b`, `empty_cache`, `map 1`,
// `load run.pickle until 500 as run`): one registry of its words, which
// help, completion and dispatch all read, and the reading of a line into
// the Python statement it means. Nothing here runs: the Python is parsed
// and run as any other, over the same names, so a command-form line and
// a Python line are one language. The session's own verbs (map, vars,
// plot, load...) are calls of the tool's module, named ToolModule in the
// builtins.
package command

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ToolModule is the name of the module of the session's verbs, in the
// builtins of every interpreter that reads the command form.
const ToolModule = "_gpumemrepl"

// Spec is one entry of the vocabulary.
type Spec struct {
	Name    string // the word, as typed (or a help topic)
	Usage   string
	Summary string
	// Topic marks a help entry that is not a word that starts a line
	// (a method, an operator, a PyTorch form): completion leaves it out.
	Topic bool
	// read turns the words after the command word (and the name bound,
	// if any) into Python; nil for a topic.
	read func(l *line) (string, error)
	// bare marks a word that is a command alone even though Python would
	// read it as a name (vars, map, empty_cache...).
	bare bool
}

// Error is a command-form line that cannot be read: the column (1-based,
// in the line) and what is wrong.
type Error struct {
	Col int
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// Lookup finds a word's entry.
func Lookup(name string) (Spec, bool) {
	for _, s := range Registry {
		if s.Name == name {
			return s, true
		}
	}
	return Spec{}, false
}

// Words are the command words (not topics), in the registry's order.
func Words() []string {
	var out []string
	for _, s := range Registry {
		if !s.Topic {
			out = append(out, s.Name)
		}
	}
	return out
}

// fileVerbs take a file name, which may hold any character: a line that
// starts with one and an argument is theirs even when it would also be
// Python (`plot /tmp/run.html` divides).
var fileVerbs = map[string]bool{"plot": true, "load": true, "snapshot": true}

// Claims reports whether a line (trimmed) is the command form before
// Python is asked: a file verb and its file.
func Claims(t string) bool {
	if verb, _, _ := strings.Cut(strings.ReplaceAll(t, "\t", " "), " "); !fileVerbs[verb] {
		return false // (most lines: not split, as a sweep's million are not)
	}
	w := split(t)
	return len(w) >= 2 && fileVerbs[w[0].text] && w[1].text != "=" && !strings.HasPrefix(w[1].text, "=")
}

// IsBare reports whether a line (trimmed) is a command word alone that
// Python would read as a bare name: at the prompt and in scripts, it is
// the command.
func IsBare(t string) bool {
	s, ok := Lookup(t)
	return ok && s.bare
}

// targetRE is the name a line binds, `NAME =` (not `==`), and the
// spaces after it.
var targetRE = regexp.MustCompile(`^[\p{L}_][\p{L}\p{N}_]*\s*=\s*`)

// word is one space-separated word of a line and its column.
type word struct {
	text string
	col  int
}

// line is a command-form line being read.
type line struct {
	words []word
	i     int
	end   int // the column after the line's last character
}

func (l *line) more() bool { return l.i < len(l.words) }

func (l *line) next() word {
	w := l.words[l.i]
	l.i++
	return w
}

func (l *line) errAt(col int, format string, args ...any) error {
	return &Error{Col: col, Msg: fmt.Sprintf(format, args...)}
}

// rest is what is left of the line, as one word.
func (l *line) rest() (word, bool) {
	if !l.more() {
		return word{}, false
	}
	w := word{col: l.words[l.i].col}
	var parts []string
	for l.more() {
		parts = append(parts, l.next().text)
	}
	w.text = strings.Join(parts, " ")
	return w, true
}

// Python reads a line (without its indentation) of the command form into
// the Python statement it means, which starts at the line's first column
// and keeps the columns of the name it binds and of its command word.
// ok is false when the line is not the command form (it may be Python);
// err is set when it is, but wrong.
func Python(text string) (py string, ok bool, err error) {
	prefix, rest := "", text // prefix: "NAME = " when the line binds a name
	if m := targetRE.FindStringIndex(text); m != nil && !strings.HasPrefix(text[strings.IndexByte(text, '='):], "==") {
		prefix, rest = text[:m[1]], text[m[1]:]
	}
	words := split(rest)
	shift := utf8.RuneCountInString(prefix)
	for i := range words {
		words[i].col += shift
	}
	if len(words) == 0 {
		return "", false, nil
	}
	l := &line{words: words, end: utf8.RuneCountInString(text) + 1}
	head := l.next()
	if obj, m, isMethod := strings.Cut(head.text, "."); isMethod && isIdent(obj) && (m == "to" || m == "cuda" || m == "cpu") && (l.more() || m != "to") {
		body, err := move(obj, m, l)
		return prefix + body, true, err
	}
	s, found := Lookup(head.text)
	if !found || s.Topic || (!l.more() && !s.bare && prefix == "" && !constructors[head.text]) {
		return "", false, nil
	}
	if prefix != "" && !constructors[s.Name] {
		return "", false, nil
	}
	body, err := s.read(l)
	if err != nil {
		return "", true, err
	}
	return prefix + body, true, nil
}

// split breaks a line into words at spaces, keeping a quoted string
// (which may hold spaces) one word; a comment ends the line.
func split(text string) []word {
	var out []word
	rs := []rune(text)
	for i := 0; i < len(rs); {
		switch {
		case rs[i] == ' ' || rs[i] == '\t':
			i++
			continue
		case rs[i] == '#':
			return out
		}
		start := i
		if rs[i] == '\'' || rs[i] == '"' {
			q := rs[i]
			i++
			for i < len(rs) && rs[i] != q {
				i++
			}
			i = min(i+1, len(rs))
		} else {
			for i < len(rs) && rs[i] != ' ' && rs[i] != '\t' {
				i++
			}
		}
		out = append(out, word{string(rs[start:i]), start + 1})
	}
	return out
}

func isIdent(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127) {
			return false
		}
	}
	return true
}

// excerpt is a word as an error quotes it: at most 40 characters, so a
// message never repeats a long input.
func excerpt(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "..."
	}
	return s
}

// quote is s as a Python string literal.
func quote(s string) string {
	return "'" + quoter.Replace(s) + "'"
}

// quoter escapes what a quoted Python string cannot hold as it is.
var quoter = strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`)

// unquote is a word without the quotes it may have.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// device reads a device word: cpu, cuda, cuda:N, or N (a GPU).
func device(w word) (string, error) {
	s := unquote(w.text)
	switch {
	case s == "cpu" || s == "cuda":
		return quote(s), nil
	case strings.HasPrefix(s, "cuda:"):
		if n, err := strconv.Atoi(s[5:]); err == nil && n >= 0 {
			return quote(s), nil
		}
	default:
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			return quote("cuda:" + s), nil
		}
	}
	return "", &Error{Col: w.col, Msg: fmt.Sprintf("expected a device (cpu, cuda, cuda:N), found %q", excerpt(w.text))}
}

// gpu reads a GPU argument: cuda, cuda:N or N, as Python's device
// index (cuda alone: the current device).
func gpu(w word) (string, error) {
	s := unquote(w.text)
	if s == "cuda" {
		return "None", nil
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(s, "cuda:")); err == nil && n >= 0 && n < 1<<20 {
		return strconv.Itoa(n), nil
	}
	return "", &Error{Col: w.col, Msg: fmt.Sprintf("expected a device index, found %q", excerpt(w.text))}
}

// move is X.to DEVICE, X.cuda [DEVICE], X.cpu.
func move(obj, m string, l *line) (string, error) {
	var args []string
	for l.more() {
		d, err := device(l.next())
		if err != nil {
			return "", err
		}
		args = append(args, d)
	}
	if m == "cpu" && len(args) > 0 || len(args) > 1 {
		return "", &Error{Col: l.words[len(l.words)-1].col, Msg: fmt.Sprintf("%s.%s takes at most one device", obj, m)}
	}
	return fmt.Sprintf("%s.%s(%s)", obj, m, strings.Join(args, "")), nil
}
