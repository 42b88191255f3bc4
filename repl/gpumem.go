package repl

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/repl/command"
	"github.com/gpumemrepl/gpumemrepl/repl/eval"
	"github.com/gpumemrepl/gpumemrepl/repl/syntax"
)

// gpumemNames are the short names a .gpumem script may use beside
// torch's own, as scripts/record_script.py defines them for PyTorch.
const gpumemNames = `import torch
F = torch.nn.functional
Linear = torch.nn.Linear
Sequential = torch.nn.Sequential
ReLU = torch.nn.ReLU
GELU = torch.nn.GELU
SGD = torch.optim.SGD
Adam = torch.optim.Adam
AdamW = torch.optim.AdamW
`

// GpumemScript runs a .gpumem script, or input piped in, as a session
// transcript: every line that is not blank or a comment is one step, in
// Python (torch and the short names Linear, Sequential, ReLU, GELU, F,
// SGD, Adam and AdamW defined) or the command form. A bare expression's
// value is echoed, as at the prompt. `with X:` enters X as its own step;
// the indented lines after it are steps inside it, and it is exited at
// the next line that is not indented. Other compound statements need a
// .py file. A failing line stops the script (exit 1) unless KeepGoing.
func (r *Runner) GpumemScript(src io.Reader) (status int) {
	defer r.fitTerminal()()
	in, b := r.newInterp()
	in.Interactive = true
	p := r.newModulePrompt(in, b, r.File)
	defer in.Release(p.fr)
	if err := in.ExecSource(p.fr, "<gpumemrepl>", gpumemNames); err != nil {
		in.Drop(err)
	}
	var blocks []eval.Value // entered context managers, innermost last
	exitBlocks := func() error {
		var first error
		for len(blocks) > 0 {
			cm := blocks[len(blocks)-1]
			blocks = blocks[:len(blocks)-1]
			v, err := in.CallMethod(cm, "__exit__", eval.None, eval.None, eval.None)
			if err == nil {
				in.Decref(v)
			} else if first == nil {
				first = err
			}
			in.Decref(cm)
		}
		return first
	}
	defer func() {
		if err := exitBlocks(); err != nil {
			in.Drop(err)
		}
	}()
	m, _ := in.Builtins().GetStr(command.ToolModule)
	if mod, ok := m.(*eval.ModuleObj); ok {
		mod.Set(in, "enter", eval.NewBuiltin("enter", "", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
			v, err := in.CallMethod(args[0], "__enter__")
			if err == nil {
				eval.Incref(args[0])
				blocks = append(blocks, args[0])
			}
			return v, err
		}))
	}
	r.prev = r.Session.Measure()
	rd := bufio.NewReader(src)
	var out bytes.Buffer
	for n := 1; ; n++ {
		raw, rerr := rd.ReadString('\n')
		if rerr != nil && raw == "" {
			if !errors.Is(rerr, io.EOF) {
				fmt.Fprintf(r.Err, "%s:%d: %v\n", r.File, n, rerr)
				return 1
			}
			return status
		}
		// (the lines are not kept: a script's memory does not grow with
		// its length; a traceback through a lambda defined here shows
		// no source line)
		text := strings.TrimRight(raw, "\r\n")
		body := strings.TrimLeft(text, " \t")
		if body == "" || strings.HasPrefix(body, "#") {
			continue
		}
		indented := body != text
		col := int32(len([]rune(text)) - len([]rune(body)) + 1)
		run := func() error {
			if !indented {
				if err := exitBlocks(); err != nil {
					return err
				}
			}
			return r.gpumemLine(p, body, syntax.Pos{Line: int32(n), Col: col})
		}
		if code, stop := r.step(p, &out, n, 0, text, run, &status); stop {
			return code
		}
	}
}

// gpumemLine runs one line of a .gpumem script (without its
// indentation) at pos.
func (r *Runner) gpumemLine(p *pyPrompt, body string, pos syntax.Pos) error {
	src := body
	if strings.HasPrefix(body, "with ") && strings.HasSuffix(strings.TrimSpace(body), ":") {
		enter, err := withEntry(body)
		if err != nil {
			return p.in.Raise(eval.SyntaxErrorType, "%v", err)
		}
		src = enter
	}
	mod, err := syntax.ParseFile(r.File, []byte(src+"\n"), &syntax.Options{IsCommand: r.isBlockCommand, At: pos})
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) && strings.HasPrefix(se.Msg, "expected an indented block") {
			return p.in.Raise(eval.SyntaxErrorType, "a .gpumem script runs one line a step (with blocks aside): put def, class, for, while, if and try in a .py file")
		}
		return p.in.Raise(eval.SyntaxErrorType, "%v", err)
	}
	if pos, msg, bad := commandError(mod); bad {
		return fmt.Errorf("%s:%d:%d: %s", r.File, pos.Line, pos.Col, msg)
	}
	for _, s := range mod.Body {
		if err := r.execPy(p.in, p.fr, s); err != nil {
			return err
		}
	}
	return nil
}

// withEntry is the Python that enters a with header's context managers
// (`with A as x, B:`): each entered through the tool module, which keeps
// it until the block ends.
func withEntry(header string) (string, error) {
	mod, err := syntax.ParseFile("<with>", []byte(header+"\n    pass\n"), nil)
	if err != nil {
		return "", err
	}
	w, ok := mod.Body[0].(*syntax.With)
	if !ok || len(mod.Body) != 1 {
		return "", fmt.Errorf("expected a with header")
	}
	var stmts []string
	for _, it := range w.Items {
		expr := spanText(header, it.ContextExpr)
		call := command.ToolModule + ".enter(" + expr + ")"
		if it.OptionalVars != nil {
			call = spanText(header, it.OptionalVars) + " = " + call
		}
		stmts = append(stmts, call)
	}
	return strings.Join(stmts, "; "), nil
}

// spanText is the text of a node of a one-line source.
func spanText(line string, n interface {
	Span() (syntax.Pos, syntax.Pos)
}) string {
	st, end := n.Span()
	rs := []rune(line)
	return string(rs[st.Col-1 : min(int(end.Col)-1, len(rs))])
}
