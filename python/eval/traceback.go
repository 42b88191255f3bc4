package eval

import (
	"fmt"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/python/syntax"
)

// tracebackObj is an exception's __traceback__: it holds the frames
// the exception passed through, so their locals live while it does.
type tracebackObj struct {
	Header
	frames []*Frame
}

func (t *tracebackObj) Type() *Class { return TracebackType }

func (t *tracebackObj) Traverse(visit func(Value)) {
	for _, f := range t.frames {
		visit(f)
	}
}

func (t *tracebackObj) Clear(in *Interp) {
	fs := t.frames
	t.frames = nil
	for _, f := range fs {
		in.Decref(f)
	}
}

// newTraceback is o.__traceback__ (owned).
func (in *Interp) newTraceback(o *Instance) Value {
	t := &tracebackObj{}
	for _, e := range o.exc.tb {
		t.frames = append(t.frames, newRef(e.frame).(*Frame))
	}
	in.track(t)
	return t
}

// tracebackOf is __traceback__ or None.
func (in *Interp) tracebackOf(o *Instance) Value {
	if len(o.exc.tb) == 0 {
		return None
	}
	return in.newTraceback(o)
}

// FormatError is the traceback CPython prints for an exception that
// reaches the top, chained causes and contexts first; other errors are
// their message.
func (in *Interp) FormatError(err error) string {
	e, ok := err.(*Exception)
	if !ok || e.Inst == nil {
		return err.Error() + "\n"
	}
	return in.formatException(e.Inst, false)
}

// formatException is o's traceback as the interpreter prints it, or
// (module) as the traceback module formats it: the two place an
// operator's carets differently after a parenthesised operand.
func (in *Interp) formatException(o *Instance, module bool) string {
	var b strings.Builder
	in.formatChain(&b, o, map[*Instance]bool{}, module)
	return b.String()
}

func (in *Interp) formatChain(b *strings.Builder, o *Instance, seen map[*Instance]bool, module bool) {
	seen[o] = true
	s := o.exc
	if c, ok := s.cause.(*Instance); ok && !seen[c] {
		in.formatChain(b, c, seen, module)
		b.WriteString("\nThe above exception was the direct cause of the following exception:\n\n")
	} else if c, ok := s.context.(*Instance); ok && !s.suppress && !seen[c] {
		in.formatChain(b, c, seen, module)
		b.WriteString("\nDuring handling of the above exception, another exception occurred:\n\n")
	}
	if len(s.tb) > 0 {
		b.WriteString("Traceback (most recent call last):\n")
		for i := len(s.tb) - 1; i >= 0; i-- {
			in.formatEntry(b, s.tb[i], module)
		}
	}
	name := o.cls.Name
	if o.cls.Module != "" && o.cls.Module != "builtins" && o.cls.Module != "__main__" {
		name = o.cls.Module + "." + name
	}
	if s.str == "" {
		b.WriteString(name + s.hint + "\n")
	} else {
		b.WriteString(name + ": " + s.str + s.hint + "\n")
	}
}

// formatEntry writes one "File ..., line N, in f" entry with its line
// and, as Python 3.11 does, carets under the part that failed when it is
// not the whole line or is an operator or a subscript: then ~ marks the
// operands and ^ the operator, or the subscript's brackets.
func (in *Interp) formatEntry(b *strings.Builder, e tbEntry, module bool) {
	fmt.Fprintf(b, "  File \"%s\", line %d, in %s\n", e.frame.file, e.start.Line, e.frame.name)
	lines := in.sources[e.frame.file]
	if int(e.start.Line) < 1 || int(e.start.Line) > len(lines) {
		return
	}
	line := []rune(strings.TrimRight(lines[e.start.Line-1], "\r\n"))
	indent := 0
	for indent < len(line) && (line[indent] == ' ' || line[indent] == '\t') {
		indent++
	}
	text := strings.TrimRight(string(line[indent:]), " \t")
	fmt.Fprintf(b, "    %s\n", text)
	start := int(e.start.Col) - 1
	end := len([]rune(text)) + indent
	if e.end.Line == e.start.Line {
		end = int(e.end.Col) - 1
	}
	if start < indent || end <= start || end > len(line) {
		return
	}
	left, right, anchored := 0, 0, false
	if e.end.Line == e.start.Line {
		left, right, anchored = caretAnchors(string(line[start:end]), module)
	}
	if !anchored && start == indent && end >= len([]rune(text))+indent {
		return
	}
	marks := make([]rune, end-start)
	for i := range marks {
		marks[i] = '^'
		if anchored && (i < left || i >= right) {
			marks[i] = '~'
		}
	}
	fmt.Fprintf(b, "    %s%s\n", strings.Repeat(" ", start-indent), string(marks))
}

// caretAnchors finds, in the source of a failed expression, where
// CPython 3.11's traceback puts its ^ between ~: a binary operator's
// symbol, or a subscript's brackets and index; ok is false for any
// other expression. The interpreter's own printing (C) and the
// traceback module (module) find an operator after a ')' differently.
func caretAnchors(seg string, module bool) (left, right int, ok bool) {
	m, err := syntax.ParseFile("<segment>", []byte(seg), nil)
	if err != nil || len(m.Body) != 1 {
		return 0, 0, false
	}
	s, isExpr := m.Body[0].(*syntax.ExprStmt)
	if !isExpr {
		return 0, 0, false
	}
	r := []rune(seg)
	switch x := s.Value.(type) {
	case *syntax.BinOp:
		_, lend := x.Left.Span()
		rstart, _ := x.Right.Span()
		from, to := int(lend.Col)-1, int(rstart.Col)-1
		if lend.Line != 1 || rstart.Line != 1 || to > len(r) {
			return 0, 0, false
		}
		if module {
			left, right = moduleOperatorAnchors(r, from, to)
			return left, right, true
		}
		for i := from; i < to; i++ {
			if r[i] == ' ' || r[i] == '\t' || r[i] == '\f' {
				continue
			}
			left, right = i, i+1
			if i+1 < to && r[i+1] != ' ' && r[i+1] != '\t' && r[i+1] != '\f' {
				right++
			}
			if i+1 < to && r[i] == ')' {
				continue // past an operand's closing parenthesis
			}
			break
		}
		return left, right, true
	case *syntax.Subscript:
		_, vend := x.Value.Span()
		_, send := x.Slice.Span()
		if vend.Line != 1 || send.Line != 1 {
			return 0, 0, false
		}
		return int(vend.Col) - 1, int(send.Col), true
	}
	return 0, 0, false
}

// ErrorLine is an exception as one line, "LINE:COL: Type: message",
// placed where it was raised in file: the innermost frame of the
// program's own code, past frames of sources that have no file (a
// library module run from a string, named "<...>": the program cannot
// open it; "<stdin>", the prompt, is the program's), else the innermost;
// file is "" and the line the message alone for an exception raised
// nowhere. ok is false for an error that is not a Python exception.
func (in *Interp) ErrorLine(err error) (file, line string, inFunction bool, ok bool) {
	e, isExc := err.(*Exception)
	if !isExc || e.Inst == nil {
		return "", "", false, false
	}
	s := e.Inst.exc
	name := e.Inst.cls.Name
	if m := e.Inst.cls.Module; m != "" && m != "builtins" && m != "__main__" {
		name = m + "." + name
	}
	msg := name
	if s.str != "" {
		msg += ": " + s.str
	}
	msg += s.hint
	if len(s.tb) == 0 {
		return "", msg, false, true
	}
	inner := s.tb[0]
	for _, e := range s.tb {
		if !strings.HasPrefix(e.frame.file, "<") || e.frame.file == "<stdin>" {
			inner = e
			break
		}
	}
	return inner.frame.file, fmt.Sprintf("%d:%d: %s", inner.start.Line, inner.start.Col, msg), len(s.tb) > 1, true
}

// StackFrame is one frame of the code running: its file, the line it is
// at, and the function's name ("<module>" at top level).
type StackFrame struct {
	File string
	Line int
	Name string
}

// EachFrame calls f with each frame of the code running now, innermost
// first.
func (in *Interp) EachFrame(f func(StackFrame)) {
	n := 0
	for fr := in.frame; fr != nil && n <= recursionLimit; fr = fr.back {
		f(StackFrame{File: fr.file, Line: int(fr.start.Line), Name: fr.name})
		n++
	}
}

// moduleOperatorAnchors is the traceback module's placing of an
// operator between r[from:to]: after the leading blanks, two characters
// when the second is not blank, then moved past closing parentheses,
// blanks and '#'.
func moduleOperatorAnchors(r []rune, from, to int) (left, right int) {
	blank := func(c rune) bool { return c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r' || c == '\v' }
	off := 0
	for from+off < to && blank(r[from+off]) {
		off++
	}
	left = from + off
	right = left + 1
	if from+off+1 < to && !blank(r[from+off+1]) {
		right++
	}
	for left < len(r) && (blank(r[left]) || r[left] == ')' || r[left] == '#') {
		left++
		right++
	}
	return left, right
}

// tracebackModule is traceback: extract_tb, clear_frames, format_exc,
// format_exception and print_exc.
func tracebackModule(in *Interp) (*ModuleObj, error) {
	m := in.NewModule("traceback")
	in.fn(m, "extract_tb", "extract_tb(tb): the traceback's entries", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var tbArg, limit Value
		if err := in.UnpackDefArgs("extract_tb", args, kw, "tb", &tbArg, "limit?", &limit); err != nil {
			return nil, err
		}
		var items []Value
		if tb, ok := tbArg.(*tracebackObj); ok {
			for i := len(tb.frames) - 1; i >= 0; i-- {
				items = append(items, tb.frames[i].name)
			}
		}
		return in.NewList(items), nil
	})
	in.fn(m, "clear_frames", "clear_frames(tb): clear the locals of the traceback's frames", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var tbArg Value
		if err := in.UnpackDefArgs("clear_frames", args, kw, "tb", &tbArg); err != nil {
			return nil, err
		}
		if tb, ok := tbArg.(*tracebackObj); ok {
			for _, f := range tb.frames {
				if f != in.frame && f.gen == nil && !f.toplevel {
					locals := f.locals
					f.locals = make([]Value, len(locals))
					for _, v := range locals {
						if v != nil {
							in.Decref(v)
						}
					}
				}
			}
		}
		return None, nil
	})
	in.fn(m, "format_exc", "format_exc(): the exception being handled, as a traceback", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var limit, chain Value // not modelled: the whole chain is formatted
		if err := in.UnpackDefArgs("format_exc", args, kw, "limit?", &limit, "chain?", &chain); err != nil {
			return nil, err
		}
		return in.formatHandled(), nil
	})
	in.fn(m, "format_exception", "format_exception(exc) or (type, value, tb): the exception's traceback, as a list of strings", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var exc, value, tb, limit, chain Value
		if err := in.UnpackDefArgs("format_exception", args, kw, "exc", &exc, "/", "value?", &value, "tb?", &tb, "limit?", &limit, "chain?", &chain); err != nil {
			return nil, err
		}
		v := exc
		if value != nil {
			v = value // the old form: (type, value, tb)
		}
		e, ok := v.(*Instance)
		if !ok || !isException(e.cls) {
			return nil, in.typeError("format_exception() expects an exception")
		}
		return in.NewList([]Value{in.formatException(e, true)}), nil
	})
	in.fn(m, "print_exc", "print_exc(): print the exception being handled", func(in *Interp, _ Value, args []Value, kw []KeywordArg) (Value, error) {
		var limit, file, chain Value // limit and chain are not modelled
		if err := in.UnpackDefArgs("print_exc", args, kw, "limit?", &limit, "file?", &file, "chain?", &chain); err != nil {
			return nil, err
		}
		if file == nil || file == None {
			file = in.sysStream("stderr")
		}
		return None, in.writeStream(file, in.formatHandled(), in.Stderr)
	})
	return m, nil
}

// formatHandled is the exception being handled as the traceback module
// formats it, or CPython's "NoneType: None" when there is none.
func (in *Interp) formatHandled() string {
	if n := len(in.handling); n > 0 {
		return in.formatException(in.handling[n-1], true)
	}
	return "NoneType: None\n"
}
