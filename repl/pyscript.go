package repl

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/internal/refusal"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
	"github.com/gpumemrepl/gpumemrepl/python/syntax"
	"github.com/gpumemrepl/gpumemrepl/repl/command"
	"github.com/gpumemrepl/gpumemrepl/torchpy"
)

// IsPython reports whether a script is Python (run by the Python front
// end) rather than the line-by-line .gpumem form.
func IsPython(file string) bool { return strings.HasSuffix(file, ".py") }

// PyScript runs a Python file as python FILE would, one step per
// top-level statement (a whole for loop or class is one step), with the
// step report after each. Lines of the command form (not Python, but
// what a .gpumem script reads) may be mixed in, over the same names. A
// syntax error runs nothing. An exception stops the script (exit 1)
// unless KeepGoing; sys.exit(n) ends it with status n.
func (r *Runner) PyScript(src []byte) (status int) {
	defer r.fitTerminal()()
	defer r.bufferOutput()()
	mod, err := syntax.ParseFile(r.File, src, &syntax.Options{IsCommand: r.isBlockCommand})
	if err != nil {
		fmt.Fprintln(r.Err, err)
		return 1
	}
	if pos, msg, bad := commandError(mod); bad {
		fmt.Fprintf(r.Err, "%s:%d:%d: %s\n", r.File, pos.Line, pos.Col, msg)
		return 1
	}
	lines := eval.SourceLines(src)
	in, b := r.newInterp()
	r.gcCount = in.GCCount
	defer func() { r.gcCount, r.stepGC = nil, nil }()
	in.Argv = append([]string{r.File}, r.Args...)
	in.AddSource(r.File, lines)
	var out bytes.Buffer // what the step printed, not yet shown
	if r.EachStatement {
		in.Hooks.Executed = func(file string, s syntax.Stmt) {
			st, end := s.Span()
			if file != r.File || int(st.Line) > len(lines) {
				return
			}
			cur, n := r.measureStep()
			src := strings.TrimSpace(lines[st.Line-1])
			if r.JSON {
				r.writeStepJSON(int(st.Line), int(end.Line), src, cur, n, out.String(), nil)
			} else {
				b := &r.stepOut
				b.Reset()
				b.width = widthOf(r.Out)
				b.Write(out.Bytes())
				b.echo(int(st.Line), ":", src)
				writeReport(b, r.prev, cur, n)
				r.Out.Write(b.Bytes()) //nolint:errcheck // as every report line's write
			}
			out.Reset()
			r.prev = cur
			r.stepStart = time.Now()
		}
	}
	p := r.newModulePrompt(in, b, r.File)
	// At the end the module's objects go, as at interpreter exit: after
	// the last step's report, so nothing is reported of them.
	defer r.end(in, p)
	r.prev = r.Session.Measure()
	for _, s := range mod.Body {
		st, end := stmtSpan(s)
		endLine := int(end.Line)
		if end.Col == 1 && endLine > int(st.Line) {
			endLine--
		}
		first := min(max(int(st.Line), 1), len(lines))
		text := strings.TrimRight(strings.Join(lines[first-1:max(min(endLine, len(lines)), first)], ""), "\r\n")
		if code, stop := r.step(p, &out, int(st.Line), endLine, text, func() error { return r.execPy(in, p.fr, s) }, &status); stop {
			return code
		}
	}
	return status
}

// end ends a script: a report whose figures rest on estimates says so
// at its end, AtEnd sees the session as the program left it, then the
// module's objects go.
func (r *Runner) end(in *eval.Interp, p *pyPrompt) {
	r.Session.EndStep()
	switch {
	case r.Peak && r.JSON:
		if b, ok, _ := r.peakBreakdown(0, false); ok {
			writePeakJSON(r.Out, b)
		}
	case r.Peak:
		if b, ok, _ := r.peakBreakdown(0, false); ok {
			writeBreakdown(r.Out, b, widthOf(r.Out))
		}
	case !r.JSON:
		r.writeRunPeak()
	}
	if r.PlotPath != "" {
		if err := r.plotTo(r.PlotPath); err != nil {
			fmt.Fprintf(r.Err, "gpumemrepl: plot: %v\n", err)
		} else if !r.JSON {
			fmt.Fprintf(r.Out, "wrote %s: %d steps\n", r.PlotPath, r.history.Steps())
		}
	}
	if t := r.Session.Tier(); !t.Exact() && !r.JSON {
		io.WriteString(r.Out, command.Wrap(EstimatedMark+" "+EstimatedText(t)+" (--strict refuses estimates)\n", widthOf(r.Out), "", "  "))
	}
	if r.AtEnd != nil {
		r.AtEnd()
	}
	r.hostSummary()
	in.Release(p.fr)
}

// newModulePrompt is the module run by in for file (a script, or the
// prompt's <stdin>): its frame, the command form and the tool module.
func (r *Runner) newModulePrompt(in *eval.Interp, b *torchpy.Binding, file string) *pyPrompt {
	g := in.NewGlobals(file)
	p := &pyPrompt{in: in, b: b, fr: in.ModuleFrame(file, g)}
	in.Decref(g)
	in.Hooks.Command = func(text string, pos syntax.Pos) error { return r.commandStmt(p, text, pos) }
	r.installTool(p)
	r.nameTensors(p)
	return p
}

// step runs one step of a script (run), then echoes its lines (from
// line to endLine, text), what it printed (out) and its report, or its
// error; status becomes 1 after an error. stop says the script ends
// (sys.exit, or an error without KeepGoing), with code its status.
func (r *Runner) step(p *pyPrompt, out *bytes.Buffer, line, endLine int, text string, run func() error, status *int) (code int, stop bool) {
	in := p.in
	out.Reset()
	in.Stdout = out
	r.Session.BeginStep()
	r.seen = reported{}
	r.stepStart = time.Now()
	if r.Progress != nil {
		r.Progress.Begin(fmt.Sprintf("%s:%d:", r.File, line))
	}
	r.Progress.Tick()
	var err error
	if r.AsRecorded {
		err = in.ExecStatement(run)
	} else {
		err = run()
	}
	r.Progress.Done()
	if r.AsRecorded {
		c := in.GCCount()
		r.stepGC = &c
		defer func() { r.stepGC = nil }()
		reads := func() error { return nil }
		if p.b != nil {
			reads = p.b.RecorderReads
		}
		if rerr := in.RecorderRead(reads); rerr != nil && err == nil {
			err = rerr
		}
	}
	if code, msg, ok := in.ExitStatus(err); ok {
		in.Drop(err) // its traceback's frames go, as at python3's exit
		if r.JSON {  // the step's row, with what it printed before it exited
			cur, n := r.measureStep()
			r.writeStepJSON(line, endLine, text, cur, n, out.String(), nil)
			r.prev = cur
		} else {
			io.WriteString(r.Out, out.String())
		}
		if msg != "" {
			fmt.Fprintln(r.Err, msg)
		}
		return code, true
	}
	// An exception that ends the statement is printed, then dropped
	// before the step is measured: its traceback's frames (and their
	// tensors) go, as they would in python3 at the script's end.
	failed := r.stepErrorOf(in, err)
	var msg string
	if failed != nil {
		msg = failed.String()
	}
	if err != nil {
		r.endedBy = nil
		if e, ok := err.(*eval.Exception); ok {
			r.endedBy = e.Inst.Type()
		}
		r.noteRefusal(err, msg)
		in.Drop(err)
	}
	r.Session.EndStep()
	cur, n := r.measureStep()
	n.events = append(r.stepPeakEvents(cur), n.events...)
	label := fmt.Sprintf("%d: %s", line, firstLine(text))
	r.notePeakStep(label)
	if err == nil {
		r.recordStep(label, cur)
	}
	if r.JSON {
		r.writeStepJSON(line, endLine, text, cur, n, out.String(), failed)
		if msg != "" {
			io.WriteString(r.Err, fitLines(msg, r.Err))
		}
	} else {
		// the step's echo, output and report in one write
		b := &r.stepOut
		b.Reset()
		b.width = widthOf(r.Out)
		for i, l := range strings.Split(text, "\n") {
			mark := ">"
			if i > 0 {
				mark = "."
			}
			b.echo(line+i, mark, l)
		}
		b.Write(out.Bytes())
		if msg == "" {
			writeReport(b, r.prev, cur, n)
		}
		r.Out.Write(b.Bytes()) //nolint:errcheck // as every report line's write
		if msg != "" {
			io.WriteString(r.Err, fitLines(msg, r.Err))
		}
	}
	r.prev = cur
	if err != nil {
		*status = 1
		if !r.KeepGoing {
			return *status, true
		}
	}
	return 0, false
}

// measureStep is the figures after a step (or a statement of it) and
// what it did that is not reported yet: its events and estimates, each
// tallied (only those, not copying what was reported: a loop's report
// after each statement copied all of its step's every time).
func (r *Runner) measureStep() (engine.Figures, stepNews) {
	cur := r.Session.Measure()
	events, estimates := r.Session.EventsSince(r.seen.events), r.Session.StepEstimatesSince(r.seen.estimates)
	n := stepNews{events: tally(events)}
	for _, e := range estimates {
		n.estimates = append(n.estimates, e.String())
	}
	n.estimates = tally(n.estimates)
	r.seen.events += len(events)
	r.seen.estimates += len(estimates)
	return cur, n
}

// stepNews is what a step did, in words: its events and its estimates
// (engine.Estimate's String).
type stepNews struct {
	events, estimates []string
}

// reported counts the events and estimates of a step already reported
// (by a statement's report, with EachStatement).
type reported struct{ events, estimates int }

// newInterp makes the Python of a script or the prompt over the
// session: torch declared, Ctrl-C polled, a tensor bound at top level
// reported as the command form reports it.
func (r *Runner) newInterp() (*eval.Interp, *torchpy.Binding) {
	in := eval.New()
	in.Stderr = r.Err
	in.Interrupted = r.Session.Interrupted
	b := torchpy.Install(in, r.Session)
	b.AsRecorded = r.AsRecorded
	r.Session.RecordFrames(func(out []snapshot.Frame) []snapshot.Frame {
		in.EachFrame(func(f eval.StackFrame) {
			out = append(out, snapshot.Frame{Filename: f.File, Line: f.Line, Name: f.Name})
		})
		return out
	})
	in.Hooks.Bound = func(name string, v eval.Value) {
		if t, ok := v.(*torchpy.Tensor); ok && t.T != nil {
			if t.T.SharesStorage() {
				r.Session.Eventf("%s: %s, sharing storage (no new memory)", name, t.T.Describe())
			} else {
				r.Session.Eventf("%s: %s", name, t.T.Describe())
			}
			return
		}
		if d, ok := b.Describe(v); ok {
			if _, isOpt := v.(*torchpy.Optimizer); isOpt {
				d += " (its state is made at the first step)"
			}
			r.Session.Eventf("%s: %s", name, d)
		}
	}
	in.Hooks.Assumed = func(pos syntax.Pos) {
		r.Session.Eventf("the assert at line %d needs a tensor's value, which this tool does not compute: taken to hold", pos.Line)
	}
	return in, b
}

// execPy runs one statement; a Go panic becomes an internal error
// naming the line, never a crash.
func (r *Runner) execPy(in *eval.Interp, fr *eval.Frame, s syntax.Stmt) (err error) {
	defer func() {
		if p := recover(); p != nil {
			st, _ := s.Span()
			err = &refusal.Error{Err: &placedError{File: r.File, Pos: syntax.Pos{Line: st.Line}, Msg: fmt.Sprintf("internal error: %v (please report this line)", p)}}
		}
	}()
	return in.ExecStmt(fr, s)
}

// stepError is how a failed statement is reported: one line, FILE:
// LINE:COL: Type: message, then the traceback when it was raised inside
// a function; kept as the file it names ("" for none) and the rest.
type stepError struct{ file, rest string }

func (e *stepError) String() string {
	if e.file == "" {
		return e.rest
	}
	return e.file + ":" + e.rest
}

// placedError is a failure at a place of a script that is no Python
// exception: a short command's error, or an internal one (Col 0: the
// line alone).
type placedError struct {
	File string
	Pos  syntax.Pos
	Msg  string
}

func (e *placedError) Error() string { return e.File + ":" + e.where() + ": " + e.Msg }

func (e *placedError) where() string {
	if e.Pos.Col == 0 {
		return strconv.Itoa(int(e.Pos.Line))
	}
	return e.Pos.String()
}

// stepErrorOf is err's report (nil for none), from the parts each kind
// of error keeps: a Python exception's place, a syntax error's, a
// placed one's; any other is its text alone.
func (r *Runner) stepErrorOf(in *eval.Interp, err error) *stepError {
	if err == nil {
		return nil
	}
	if file, line, inFunc, ok := in.ErrorLine(err); ok {
		if inFunc {
			return &stepError{file, line + "\n" + in.FormatError(err)}
		}
		return &stepError{file, line + "\n"}
	}
	if e, ok := err.(*syntax.Error); ok {
		return &stepError{e.Filename, e.Pos.String() + ": " + e.Kind + ": " + e.Msg + "\n"}
	}
	if e, ok := errors.AsType[*placedError](err); ok {
		return &stepError{e.File, e.where() + ": " + e.Msg + "\n"}
	}
	return &stepError{"", err.Error() + "\n"}
}

// tally folds repeated events (a loop's, one per iteration) into one
// each, in the order they first happened, with how many times: "freed
// old x (16 bytes on cuda:0) ×99999".
func tally(events []string) []string {
	count := map[string]int{}
	var order []string
	for _, e := range events {
		if count[e] == 0 {
			order = append(order, e)
		}
		count[e]++
	}
	if len(order) == len(events) {
		return events
	}
	out := make([]string, len(order))
	for i, e := range order {
		out[i] = e
		if n := count[e]; n > 1 {
			out[i] = fmt.Sprintf("%s ×%d", e, n)
		}
	}
	return out
}

// stmtSpan is where a statement is, its decorators included (the line
// CPython's recording of a step starts at).
func stmtSpan(s syntax.Stmt) (syntax.Pos, syntax.Pos) {
	st, end := s.Span()
	var decos []syntax.Expr
	switch d := s.(type) {
	case *syntax.FunctionDef:
		decos = d.DecoratorList
	case *syntax.ClassDef:
		decos = d.DecoratorList
	}
	if len(decos) > 0 {
		ds, _ := decos[0].Span()
		st = syntax.Pos{Line: ds.Line, Col: 1}
	}
	return st, end
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// noteRefusal labels the figures from here on estimated when err, the
// error that ended a statement (msg, as reported), is gpumemrepl's own
// refusal of what PyTorch runs or an internal error (a refusal.Error in
// its chain), rather than an error PyTorch or Python raises too (a
// user's raise, whatever its words).
func (r *Runner) noteRefusal(err error, msg string) {
	if _, ok := errors.AsType[*refusal.Error](err); ok {
		r.Session.EstimateRefused(firstLine(strings.TrimSpace(msg)))
	}
}
