package eval

import (
	"fmt"
	"strings"
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
	var b strings.Builder
	in.formatChain(&b, e.Inst, map[*Instance]bool{})
	return b.String()
}

func (in *Interp) formatChain(b *strings.Builder, o *Instance, seen map[*Instance]bool) {
	seen[o] = true
	s := o.exc
	if c, ok := s.cause.(*Instance); ok && !seen[c] {
		in.formatChain(b, c, seen)
		b.WriteString("\nThe above exception was the direct cause of the following exception:\n\n")
	} else if c, ok := s.context.(*Instance); ok && !s.suppress && !seen[c] {
		in.formatChain(b, c, seen)
		b.WriteString("\nDuring handling of the above exception, another exception occurred:\n\n")
	}
	if len(s.tb) > 0 {
		b.WriteString("Traceback (most recent call last):\n")
		for i := len(s.tb) - 1; i >= 0; i-- {
			in.formatEntry(b, s.tb[i])
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
// not the whole line.
func (in *Interp) formatEntry(b *strings.Builder, e tbEntry) {
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
	if start < indent || end <= start || start == indent && end >= len([]rune(text))+indent {
		return
	}
	fmt.Fprintf(b, "    %s%s\n", strings.Repeat(" ", start-indent), strings.Repeat("^", end-start))
}

// ErrorLine is an exception as one line, "FILE:LINE:COL: Type: message",
// placed where it was raised (the innermost frame); ok is false for an
// error that is not a Python exception.
func (in *Interp) ErrorLine(err error) (line string, inFunction bool, ok bool) {
	e, isExc := err.(*Exception)
	if !isExc || e.Inst == nil {
		return "", false, false
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
		return msg, false, true
	}
	inner := s.tb[0]
	return fmt.Sprintf("%s:%d:%d: %s", inner.frame.file, inner.start.Line, inner.start.Col, msg), len(s.tb) > 1, true
}

// StackFrame is one frame of the code running: its file, the line it is
// at, and the function's name ("<module>" at top level).
type StackFrame struct {
	File string
	Line int
	Name string
}

// Stack is the code running now, innermost frame first.
func (in *Interp) Stack() []StackFrame {
	var out []StackFrame
	for fr := in.frame; fr != nil; fr = fr.back {
		out = append(out, StackFrame{File: fr.file, Line: int(fr.start.Line), Name: fr.name})
		if len(out) > recursionLimit {
			break
		}
	}
	return out
}
