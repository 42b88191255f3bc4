package repl

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/eval"
	"github.com/gpumemrepl/gpumemrepl/repl/syntax"
	"github.com/gpumemrepl/gpumemrepl/repl/torchpy"
)

// pyPrompt is the Python of the prompt (or of a script): one
// interpreter whose module namespace is the session's names, and the
// block being typed.
type pyPrompt struct {
	in  *eval.Interp
	b   *torchpy.Binding
	fr  *eval.Frame
	buf []string // the lines of a statement not complete yet
	// last is the last exception that reached the prompt: kept, as
	// CPython keeps sys.last_value, so the frames it passed through (and
	// their tensors) live until the next one.
	last error
}

// sessionWords are command-form words that are also valid Python (a
// bare name): at the prompt they are the commands.
var sessionWords = map[string]bool{"vars": true, "map": true, "gpus": true, "empty_cache": true, "memory_summary": true, "memory_stats": true, "reset_peak_memory_stats": true, "help": true}

// pyKeywords start a Python statement that a line alone may not make
// whole (return outside a function...): never the command form's.
var pyKeywords = map[string]bool{"return": true, "break": true, "continue": true, "pass": true, "yield": true,
	"raise": true, "nonlocal": true, "global": true, "else": true, "elif": true, "except": true, "finally": true,
	"try": true, "while": true, "for": true, "if": true, "with": true, "def": true, "class": true, "import": true,
	"from": true, "lambda": true, "assert": true, "await": true, "async": true}

// newPyPrompt starts the prompt's Python, with torch imported.
func (r *Runner) newPyPrompt() *pyPrompt {
	in, b := r.newInterp()
	in.Interactive = true
	in.Stdout = r.Out
	g := in.NewGlobals("<stdin>")
	p := &pyPrompt{in: in, b: b, fr: in.ModuleFrame("<stdin>", g)}
	in.Decref(g)
	in.Hooks.Command = func(text string, pos syntax.Pos) error { return r.blockCommand(p, text, pos) }
	if mod, err := syntax.ParseFile("<stdin>", []byte("import torch\n"), nil); err == nil {
		for _, s := range mod.Body {
			if err := in.ExecStmt(p.fr, s); err != nil {
				in.Drop(err)
			}
		}
	}
	return p
}

// isCommandLine reports whether a line typed at the prompt (outside a
// block) is the command form: a session word, or a line that is not
// Python but the command form reads (or looks like it, for its error).
func (r *Runner) isCommandLine(line string) bool {
	t := strings.TrimSpace(line)
	switch {
	case t == "" || strings.HasPrefix(t, "#"):
		return false
	case strings.HasPrefix(t, "help "):
		return true
	}
	return r.commandForm(t, looksLikeCommand)
}

// looksLikeCommand reports whether a line starts as a command-form line
// does (NAME = zeros ..., map 1, load FILE...): its error is the
// command form's.
func looksLikeCommand(t string) bool {
	if _, rhs, ok := strings.Cut(t, "="); ok && !strings.ContainsAny(t[:strings.Index(t, "=")], "([.") {
		t = strings.TrimSpace(rhs)
	}
	word, _, _ := strings.Cut(t, " ")
	if constructors[word] {
		return true
	}
	for _, c := range commandHelp {
		if c.name == word && !helpTopics[word] && strings.Contains(t, " ") {
			return true
		}
	}
	return false
}

// isBlockCommand is syntax.Options.IsCommand in a script and inside a
// block at the prompt: a session word alone, or a line that is not
// Python and that the command form reads.
func (r *Runner) isBlockCommand(line string) bool {
	return r.commandForm(strings.TrimSpace(line), func(string) bool { return false })
}

// commandForm decides a line (trimmed) for the prompt and scripts: a
// session word is a command; a line that starts with a Python keyword,
// or is Python, is not; one the command form reads is; orElse decides
// the rest.
func (r *Runner) commandForm(t string, orElse func(string) bool) bool {
	if sessionWords[t] {
		return true
	}
	if word, _, _ := strings.Cut(t, " "); pyKeywords[strings.TrimRight(word, ":")] {
		return false
	}
	if _, err := syntax.ParseInteractive("<stdin>", []byte(t+"\n"), nil); err == nil || errors.Is(err, syntax.ErrIncomplete) {
		return false
	}
	if _, err := Parse(t, 1, r.Session.CurrentDevice()); err == nil {
		return true
	}
	return orElse(t)
}

// exportNames lends the command form the prompt's tensors: each
// top-level name of a tensor is bound there to another reference of it.
func (r *Runner) exportNames(p *pyPrompt) map[string]*engine.Tensor {
	shared := map[string]*engine.Tensor{}
	p.fr.Globals().Items(func(k, v eval.Value) bool {
		if t, ok := v.(*torchpy.Tensor); ok && t.T != nil {
			name, _ := k.(string)
			e := r.Session.Share(t.T)
			r.Session.BindTensor(name, e)
			shared[name] = e
		}
		return true
	})
	return shared
}

// importNames takes back what a command-form line left: a name it
// rebound is rebound in Python (the old object dropped after), a name it
// deleted is deleted, a new one bound; a name it left alone gives back
// its loan.
func (r *Runner) importNames(p *pyPrompt, shared map[string]*engine.Tensor) {
	taken := r.Session.TakeTensors()
	bound := p.in.Hooks.Bound
	p.in.Hooks.Bound = nil // the command form reported its bindings
	defer func() { p.in.Hooks.Bound = bound }()
	names := make([]string, 0, len(shared)+len(taken))
	for n := range shared {
		names = append(names, n)
	}
	for n := range taken {
		if _, ok := shared[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		t, ok := taken[n]
		e, lent := shared[n]
		switch {
		case ok && lent && t == e:
			r.Session.Release(e)
		case ok:
			p.in.Bind(p.fr, n, p.b.Wrap(t))
		default:
			if err := p.in.Unbind(p.fr, n); err != nil {
				p.in.Drop(err)
			}
		}
	}
}

// commandLine runs a command-form line at the prompt as its own step,
// over the prompt's names.
func (r *Runner) commandLine(p *pyPrompt, line string, n int) {
	shared := r.exportNames(p)
	r.afterExec = func() { r.importNames(p, shared) }
	defer func() { r.afterExec = nil }()
	r.Line(line, n)         //nolint:errcheck // printed by Line; the session goes on
	if r.afterExec != nil { // Line stopped before running the command
		r.importNames(p, shared)
	}
}

// blockCommand runs a command-form line met inside a Python block.
func (r *Runner) blockCommand(p *pyPrompt, text string, pos syntax.Pos) error {
	cmd, err := Parse(text, int(pos.Line), r.Session.CurrentDevice())
	if err != nil {
		return p.in.Raise(eval.SyntaxErrorType, "%s", errMsg(err))
	}
	if cmd == nil {
		return nil
	}
	shared := r.exportNames(p)
	res, err := r.Session.ExecInStep(cmd)
	r.importNames(p, shared)
	io.WriteString(p.in.Stdout, res.Output)
	if err != nil {
		return p.b.Error(err)
	}
	return nil
}

// pyInput takes one line typed at the prompt into Python: it returns
// true while the statement needs more lines; a complete one runs, a
// statement a step.
func (r *Runner) pyInput(p *pyPrompt, line string) (more bool) {
	p.buf = append(p.buf, line)
	src := strings.Join(p.buf, "\n") + "\n"
	mod, err := syntax.ParseInteractive("<stdin>", []byte(src), &syntax.Options{IsCommand: r.isBlockCommand})
	if errors.Is(err, syntax.ErrIncomplete) {
		return true
	}
	p.buf = nil
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) && int(se.Pos.Line) >= 1 && int(se.Pos.Line) <= len(strings.Split(src, "\n")) {
			l := strings.Split(src, "\n")[se.Pos.Line-1]
			fmt.Fprintf(r.Err, "    %s\n    %s%s\n", l, strings.Repeat(" ", caretOffset(l, int(se.Pos.Col))), colorErr.Sprint("^"))
			fmt.Fprintf(r.Err, "%s %s: %s\n", colorErr.Sprint("error:"), se.Kind, se.Msg)
		} else {
			fmt.Fprintf(r.Err, "%s %v\n", colorErr.Sprint("error:"), err)
		}
		return false
	}
	for _, s := range mod.Body {
		r.promptStep(p, s)
	}
	return false
}

// promptStep runs one statement typed at the prompt as a step.
func (r *Runner) promptStep(p *pyPrompt, s syntax.Stmt) {
	if !r.started {
		r.prev = r.Session.Measure()
		r.started = true
	}
	r.Session.BeginStep()
	err := r.execPy(p.in, p.fr, s)
	cur := r.Session.Measure()
	events := tally(r.Session.Events())
	if err != nil {
		if _, ok := err.(*eval.Exception); ok {
			io.WriteString(r.Err, p.in.FormatError(err))
			if p.last != nil {
				p.in.Drop(p.last)
			}
			p.last = err
		} else {
			fmt.Fprintf(r.Err, "%s %v\n", colorErr.Sprint("error:"), err)
		}
	}
	writeReport(r.Out, r.prev, cur, events)
	r.prev = cur
}
