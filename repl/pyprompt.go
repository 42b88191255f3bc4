package repl

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/eval"
	"github.com/gpumemrepl/gpumemrepl/python/syntax"
	"github.com/gpumemrepl/gpumemrepl/repl/command"
	"github.com/gpumemrepl/gpumemrepl/torchpy"
)

// pyPrompt is the Python of the prompt (or of a script): one
// interpreter whose module namespace is the session's names, and the
// block being typed.
type pyPrompt struct {
	in  *eval.Interp
	b   *torchpy.Binding
	fr  *eval.Frame
	buf []string // the lines of a statement not complete yet
	// typed counts the lines typed: <stdin>'s line numbers go on from
	// entry to entry, as a file's would.
	typed int
	// entry is the lines of the statements running and first the line
	// number of its first.
	entry []string
	first int
	// last is the last exception that reached the prompt: kept, as
	// CPython keeps sys.last_value, so the frames it passed through (and
	// their tensors) live until the next one.
	last error
}

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
	p := r.newModulePrompt(in, b, "<stdin>")
	if err := in.ExecSource(p.fr, "<stdin>", "import torch\n"); err != nil {
		in.Drop(err)
	}
	return p
}

// isBlockCommand is syntax.Options.IsCommand: a command word alone
// that Python would read as a bare name (vars, map...), or a line that
// is not Python and that the command form reads (rightly or not: its
// error is the command form's).
func (r *Runner) isBlockCommand(line string) bool {
	return r.isCmd.of(strings.TrimSpace(line), readsAsCommand)
}

// readsAsCommand is isBlockCommand of a line without its white space.
func readsAsCommand(t string) bool {
	if command.IsBare(t) || command.Claims(t) {
		return true
	}
	if word, _, _ := strings.Cut(t, " "); pyKeywords[strings.TrimRight(word, ":")] {
		return false
	}
	if _, err := syntax.ParseInteractive("<stdin>", []byte(t+"\n"), nil); err == nil || errors.Is(err, syntax.ErrIncomplete) {
		return false
	}
	_, ok, _ := command.Python(t)
	return ok
}

// commandError is the first command-form line of mod that cannot be
// read: where its error is and what it says (ok false when there is
// none). A script with one runs nothing, as with any syntax error.
func commandError(mod *syntax.Module) (pos syntax.Pos, msg string, ok bool) {
	syntax.Inspect(mod, func(n any) bool {
		c, isCmd := n.(*syntax.Command)
		if ok || !isCmd {
			return !ok
		}
		_, _, err := command.Python(c.Text)
		var ce *command.Error
		if errors.As(err, &ce) {
			pos, _ = c.Span()
			pos.Col += int32(ce.Col) - 1
			msg, ok = ce.Msg, true
		}
		return false
	})
	return pos, msg, ok
}

// commandStmt runs a command-form line (a syntax.Command statement) at
// pos: read into the Python it means, which runs at module level.
func (r *Runner) commandStmt(p *pyPrompt, text string, pos syntax.Pos) error {
	tr := r.translate(text)
	py, ok, err := tr.py, tr.ok, tr.err
	if !ok && err == nil {
		err = &command.Error{Col: 1, Msg: "not a command"}
	}
	if err != nil {
		var ce *command.Error
		col := 1
		if errors.As(err, &ce) {
			col = ce.Col
		}
		return p.in.Raise(eval.SyntaxErrorType, "%s (column %d)", err.Error(), int(pos.Col)+col-1)
	}
	file := r.File
	if file == "" {
		file = "<stdin>"
	}
	mod, done, err := r.parseLine(file, py, pos)
	if err != nil {
		return p.in.Raise(eval.SyntaxErrorType, "%v", err)
	}
	defer done()
	for _, s := range mod.Body {
		if err := p.in.ExecStmt(p.fr, s); err != nil {
			return err
		}
	}
	return nil
}

// translate is command.Python(text), remembered.
func (r *Runner) translate(text string) translation {
	return r.toPython.of(text, func(text string) translation {
		py, ok, err := command.Python(text)
		return translation{py, ok, err}
	})
}

// pyInput takes one line typed at the prompt into Python: it returns
// true while the statement needs more lines; a complete one runs, a
// statement a step.
func (r *Runner) pyInput(p *pyPrompt, line string) (more bool) {
	p.buf = append(p.buf, line)
	p.typed++
	first := p.typed - len(p.buf) + 1
	src := strings.Join(p.buf, "\n") + "\n"
	mod, err := syntax.ParseInteractive("<stdin>", []byte(src), &syntax.Options{IsCommand: r.isBlockCommand, At: syntax.Pos{Line: int32(first), Col: 1}})
	if errors.Is(err, syntax.ErrIncomplete) {
		return true
	}
	p.entry, p.first = p.buf, first
	p.buf = nil
	if err == nil {
		if pos, msg, bad := commandError(mod); bad {
			l := strings.Split(src, "\n")[min(max(int(pos.Line)-first+1, 1), len(strings.Split(src, "\n")))-1]
			fmt.Fprintf(r.Err, "    %s\n    %s%s\n", l, strings.Repeat(" ", caretOffset(l, int(pos.Col))), colorErr.Sprint("^"))
			fmt.Fprintf(r.Err, "%s %s\n", colorErr.Sprint("error:"), msg)
			return false
		}
	}
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) && int(se.Pos.Line)-first >= 0 && int(se.Pos.Line)-first < len(strings.Split(src, "\n")) {
			l := strings.Split(src, "\n")[int(se.Pos.Line)-first]
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
	if err != nil {
		r.noteRefusal(err, r.stepErrorOf(p.in, err).String())
	}
	r.Session.EndStep()
	r.seen = reported{}
	cur, n := r.measureStep()
	n.events = append(r.stepPeakEvents(cur), n.events...)
	st, _ := s.Span()
	label := fmt.Sprintf("%d: %s", st.Line, p.entry[min(max(int(st.Line)-p.first, 0), len(p.entry)-1)])
	r.notePeakStep(label)
	if err == nil {
		r.recordStep(label, cur)
	}
	if err != nil {
		if _, ok := err.(*eval.Exception); ok {
			io.WriteString(r.Err, fitLines(p.in.FormatError(err), r.Err))
			if p.last != nil {
				p.in.Drop(p.last)
			}
			p.last = err
		} else {
			fmt.Fprintf(r.Err, "%s %v\n", colorErr.Sprint("error:"), err)
		}
	}
	writeReport(r.Out, r.prev, cur, n)
	r.prev = cur
}
