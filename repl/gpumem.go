package repl

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
	"github.com/gpumemrepl/gpumemrepl/python/syntax"
	"github.com/gpumemrepl/gpumemrepl/repl/command"
)

// gpumemNames are the short names a .gpumem script may use beside
// torch's own, as scripts/record_script.py defines them for PyTorch.
//
//go:embed gpumem_names.py
var gpumemNames string

// GpumemScript runs a .gpumem script, or input piped in, as a session
// transcript: every line that is not blank or a comment is one step, in
// Python (torch and the short names Linear, Sequential, ReLU, GELU, F,
// SGD, Adam and AdamW defined) or the command form. A bare expression's
// value is echoed, as at the prompt. `with X:` enters X as its own step;
// the indented lines after it are steps inside it, and it is exited at
// the next line that is not indented. Any other compound statement (def,
// class, for, while, if, try) is one step: its header and the lines
// indented under it (with its elif, else, except and finally), as
// Python reads it. A failing line stops the script (exit 1) unless
// KeepGoing.
func (r *Runner) GpumemScript(src io.Reader) (status int) {
	defer r.fitTerminal()()
	defer r.bufferOutput()()
	in, b := r.newInterp()
	in.Interactive = true
	p := r.newModulePrompt(in, b, r.File)
	defer r.end(in, p)
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
	rd := &lineReader{r: bufio.NewReaderSize(src, 64<<10), file: r.File}
	var out bytes.Buffer
	for {
		n, text, rerr := rd.next()
		if rerr != nil {
			if !errors.Is(rerr, io.EOF) {
				r.readError(n, rerr)
				return 1
			}
			return status
		}
		// (the lines are not kept: a script's memory does not grow with
		// its length; a traceback through a lambda defined here shows
		// no source line)
		body := strings.TrimLeft(text, " \t")
		if body == "" || strings.HasPrefix(body, "#") {
			continue
		}
		indent := text[:len(text)-len(body)]
		end := 0 // a step of one line has no end line
		if opensBlock(body) {
			body, text, end, rerr = rd.block(body, indent)
			if rerr != nil && !errors.Is(rerr, io.EOF) {
				r.readError(end+1, rerr)
				return 1
			}
		}
		col := int32(len([]rune(indent)) + 1)
		run := func() error {
			if indent == "" {
				if err := exitBlocks(); err != nil {
					return err
				}
			}
			return r.gpumemLine(p, body, syntax.Pos{Line: int32(n), Col: col})
		}
		if code, stop := r.step(p, &out, n, end, text, run, &status); stop {
			return code
		}
	}
}

// readError reports an error reading the script at line n: one that
// says its own place (a NUL byte's, a bound's) as it is.
func (r *Runner) readError(n int, err error) {
	var se *syntax.Error
	var tl *fileio.TooLargeError
	if errors.As(err, &se) || errors.As(err, &tl) {
		fmt.Fprintln(r.Err, err)
		return
	}
	fmt.Fprintf(r.Err, "%s:%d: %v\n", r.File, n, err)
}

// lineReader reads a script's lines, numbered, with one line of
// look-ahead (a block ends at the first line that is not inside it).
type lineReader struct {
	r       *bufio.Reader
	n       int // the number of the last line read
	pending *string
	file    string // for errors
}

// next is the next line (without its line ending) and its number. A
// NUL byte is refused as it arrives, as CPython refuses it in a source
// file: /dev/zero is one endless line of them.
func (l *lineReader) next() (int, string, error) {
	if l.pending != nil {
		t := *l.pending
		l.pending = nil
		return l.n, t, nil
	}
	// a long line is kept as the buffer's pieces, joined once it ends:
	// one that never ends (up to the script's bound) costs its length,
	// not the garbage of a slice grown to it
	var parts [][]byte
	runes := 0
	for {
		chunk, err := l.r.ReadSlice('\n')
		if i := bytes.IndexByte(chunk, 0); i >= 0 {
			col := runes + utf8.RuneCount(chunk[:i]) + 1
			return l.n + 1, "", &syntax.Error{Filename: l.file, Kind: "SyntaxError", Pos: syntax.Pos{Line: int32(l.n + 1), Col: int32(col)}, Msg: "source code cannot contain null bytes"}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			parts = append(parts, bytes.Clone(chunk))
			runes += utf8.RuneCount(chunk)
			continue
		}
		if err != nil && len(chunk) == 0 && len(parts) == 0 {
			return l.n + 1, "", err
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return l.n + 1, "", err
		}
		l.n++
		line := string(chunk)
		if len(parts) > 0 {
			line = string(bytes.Join(append(parts, chunk), nil))
		}
		return l.n, strings.TrimRight(line, "\r\n"), nil
	}
}

// block reads the body of a compound statement whose header (without
// its indentation, indent) was just read: the lines after it that are
// blank or indented further, up to the first that is not (kept for the
// next read). It returns the statement dedented by indent, its text as
// written, and the number of its last line; blank lines after the last
// are left out.
func (l *lineReader) block(header, indent string) (src, text string, last int, err error) {
	lines, written, last := []string{header}, []string{indent + header}, l.n
	keep := 1 // lines up to the last that is not blank
	// decorated: the header is a decorator, and the def or class it
	// decorates (after any more decorators) is still to come
	decorated := strings.HasPrefix(header, "@")
	for {
		n, t, err := l.next()
		if err != nil {
			return strings.Join(lines[:keep], "\n"), strings.Join(written[:keep], "\n"), last, err
		}
		rest, inside := strings.CutPrefix(t, indent)
		trimmed := strings.TrimSpace(t)
		blank := trimmed == "" || strings.HasPrefix(trimmed, "#")
		deeper := inside && rest != strings.TrimLeft(rest, " \t")
		decoratedNext := decorated && inside && !deeper && (strings.HasPrefix(rest, "@") || definesName(rest))
		if decoratedNext && !strings.HasPrefix(rest, "@") {
			decorated = false
		}
		if !blank && !deeper && !decoratedNext && !(inside && continuesBlock(rest)) {
			l.pending = &t
			return strings.Join(lines[:keep], "\n"), strings.Join(written[:keep], "\n"), last, nil
		}
		if !inside {
			rest = trimmed // a comment left of the block's indentation
		}
		lines, written = append(lines, rest), append(written, t)
		if !blank {
			last, keep = n, len(lines)
		}
	}
}

// continuesBlock reports whether a line at a compound statement's own
// indentation goes on with it: elif, else, except and finally.
func continuesBlock(line string) bool {
	for _, kw := range []string{"elif", "else", "except", "finally"} {
		if rest, ok := strings.CutPrefix(line, kw); ok && (rest == "" || strings.IndexAny(rest[:1], " \t:(") == 0) {
			return true
		}
	}
	return false
}

// definesName reports whether a line is a def or class header (what
// decorators decorate).
func definesName(line string) bool {
	for _, kw := range []string{"def ", "class ", "async def "} {
		if strings.HasPrefix(line, kw) {
			return true
		}
	}
	return false
}

// headerWords are the words a compound statement's header starts with
// (match and case are soft keywords).
var headerWords = map[string]bool{"if": true, "elif": true, "else": true, "while": true, "for": true, "try": true, "except": true,
	"finally": true, "def": true, "class": true, "async": true, "match": true, "case": true}

// leadingWord is the identifier characters a line starts with.
func leadingWord(line string) string {
	i := strings.IndexFunc(line, func(r rune) bool { return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if i < 0 {
		return line
	}
	return line[:i]
}

// opensBlock reports whether a line is the header of a compound
// statement other than with (def, class, for, while, if, try, async
// and match: one that needs an indented body), or a decorator.
func opensBlock(body string) bool {
	if strings.HasPrefix(body, "with ") {
		return false
	}
	if strings.HasPrefix(body, "@") { // a decorator: its def or class follows
		return true
	}
	if !headerWords[leadingWord(body)] {
		return false // no parse for a line no compound statement starts
	}
	// one unindented line fails with an IndentationError only for the
	// body it lacks ("expected an indented block after ...")
	_, err := syntax.ParseFile("<line>", []byte(body+"\n"), nil)
	var se *syntax.Error
	return errors.As(err, &se) && se.Kind == "IndentationError"
}

// gpumemLine runs one line of a .gpumem script (without its
// indentation) at pos.
func (r *Runner) gpumemLine(p *pyPrompt, body string, pos syntax.Pos) error {
	src := body
	if strings.HasPrefix(body, "with ") && strings.HasSuffix(strings.TrimSpace(body), ":") {
		enter, err := withEntry(r.File, body, pos)
		if err != nil {
			return err
		}
		src = enter
	}
	if cmd, mod, done := r.oneLine(src, pos); cmd != nil {
		return r.execPy(p.in, p.fr, cmd)
	} else if mod != nil {
		defer done()
		return r.execModule(p, mod)
	}
	mod, err := syntax.ParseFile(r.File, []byte(src+"\n"), &syntax.Options{IsCommand: r.isBlockCommand, At: pos})
	if err != nil {
		return err // FILE:LINE:COL: SyntaxError: ..., as a .py file's
	}
	if pos, msg, bad := commandError(mod); bad {
		return &placedError{File: r.File, Pos: pos, Msg: msg}
	}
	return r.execModule(p, mod)
}

// execModule runs a line's statements.
func (r *Runner) execModule(p *pyPrompt, mod *syntax.Module) error {
	for _, s := range mod.Body {
		if err := r.execPy(p.in, p.fr, s); err != nil {
			return err
		}
	}
	return nil
}

// oneLine reads most lines of a script in one parse, where the command
// form's reading (the line parsed with isBlockCommand asked of it, which
// parses it again) takes three: a line that is Python is its module; one
// that is not, and that the command form reads without an error, is its
// Command, as that reading makes it. Both nil leave the line to that
// reading (a block, a bare command word, a file verb's line, a line of
// neither or one the command form refuses, whose error it says). The
// module's done gives its tree back (parseLine) once it has run.
func (r *Runner) oneLine(src string, pos syntax.Pos) (*syntax.Command, *syntax.Module, func()) {
	t := strings.TrimSpace(src)
	if strings.Contains(src, "\n") || command.IsBare(t) || command.Claims(t) {
		return nil, nil, nil
	}
	// a line read before as a command is not parsed as Python again,
	// to fail (a generated sweep repeats its lines)
	if known, ok := r.isCmd[t]; !ok || !known {
		if mod, done, err := r.parseLine(r.File, src, pos); err == nil {
			return nil, mod, done
		}
	}
	if !r.isBlockCommand(src) || r.translate(t).err != nil {
		return nil, nil, nil
	}
	end := pos
	end.Col += int32(utf8.RuneCountInString(src))
	return &syntax.Command{Node: syntax.Node{Start: pos, End: end}, Text: src}, nil, nil
}

// withEntry is the Python that enters a with header's context managers
// (`with A as x, B:`, at pos of file): each entered through the tool
// module, which keeps it until the block ends.
func withEntry(file, header string, pos syntax.Pos) (string, error) {
	mod, err := syntax.ParseFile(file, []byte(header+"\n    pass\n"), &syntax.Options{At: pos})
	if err != nil {
		return "", err
	}
	w, ok := mod.Body[0].(*syntax.With)
	if !ok || len(mod.Body) != 1 {
		return "", fmt.Errorf("expected a with header")
	}
	var stmts []string
	for _, it := range w.Items {
		expr := spanText(header, pos.Col-1, it.ContextExpr)
		call := command.ToolModule + ".enter(" + expr + ")"
		if it.OptionalVars != nil {
			call = spanText(header, pos.Col-1, it.OptionalVars) + " = " + call
		}
		stmts = append(stmts, call)
	}
	return strings.Join(stmts, "; "), nil
}

// spanText is the text of a node of a one-line source whose columns
// were placed shift to the right (Options.At).
func spanText(line string, shift int32, n interface {
	Span() (syntax.Pos, syntax.Pos)
}) string {
	st, end := n.Span()
	rs := []rune(line)
	from, to := int(st.Col-shift)-1, int(end.Col-shift)-1
	return string(rs[max(from, 0):max(min(to, len(rs)), max(from, 0))])
}
