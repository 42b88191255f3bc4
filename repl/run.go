package repl

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/plot"
)

// Runner runs lines of input against a session and reports each step.
type Runner struct {
	Session   *engine.Session
	Out       io.Writer
	Err       io.Writer
	Echo      bool // print each command before its report (scripts)
	JSON      bool // one JSON object per command instead of the report
	KeepGoing bool // go on after a failing line (scripts)
	// EachStatement reports after every simple statement a Python
	// script executes, inside loops and functions too.
	EachStatement bool
	File          string // script name for error positions
	prev          engine.Figures
	started       bool
	inBlock       bool         // inside a `with torch.no_grad():` block
	history       plot.History // device 0 after every step, for plot (plotcmd.go)
	// afterExec, when set, runs right after a command-form line's
	// command, before the step is measured (the prompt takes its names
	// back from the command form then).
	afterExec func()
}

// endBlock ends a `with` block: grad mode goes back to what it was.
func (r *Runner) endBlock() {
	r.Session.Exec(&engine.EndBlock{}) //nolint:errcheck // cannot fail
	r.inBlock = false
}

// blockEnds reports whether src, read inside a block, ends it: a line
// with a command that is not indented.
func blockEnds(src string) bool {
	t := strings.TrimSpace(src)
	return t != "" && !strings.HasPrefix(t, "#") && src[0] != ' ' && src[0] != '\t'
}

// errPos returns where an error happened, if it says.
func errPos(err error) (engine.Pos, bool) {
	var se *Error
	if errors.As(err, &se) {
		return se.Pos, true
	}
	var ee *engine.EvalError
	if errors.As(err, &ee) && ee.Pos.Line > 0 {
		return ee.Pos, true
	}
	return engine.Pos{}, false
}

// errMsg is the error's text without the position a syntax error carries.
func errMsg(err error) string {
	var se *Error
	if errors.As(err, &se) {
		return se.Msg
	}
	return err.Error()
}

// Line runs one line and reports it. It returns the line's error, after
// printing it; the session is unchanged by a failing line.
func (r *Runner) Line(src string, lineNo int) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v (please report this line)", p)
			r.printError(src, lineNo, err)
		}
	}()
	if !r.started {
		r.prev = r.Session.Measure()
		r.started = true
	}
	if t := strings.TrimSpace(src); t == "help" || strings.HasPrefix(t, "help ") {
		io.WriteString(r.Out, Help(strings.TrimSpace(strings.TrimPrefix(t, "help"))))
		return nil
	}
	if r.inBlock && blockEnds(src) {
		r.endBlock()
	}
	if t := strings.TrimSpace(src); isFileCommand(t, "plot") {
		path := strings.Trim(strings.TrimSpace(strings.TrimPrefix(t, "plot ")), `'"`)
		if err := r.plotTo(path); err != nil {
			err = &engine.EvalError{Pos: engine.Pos{Line: lineNo, Col: 1}, Err: err}
			r.printError(src, lineNo, err)
			return err
		}
		fmt.Fprintf(r.Out, "    wrote %s: %d steps\n", path, len(r.history))
		return nil
	}
	cmd, err := Parse(src, lineNo, r.Session.CurrentDevice())
	if err == nil && cmd == nil {
		return nil
	}
	var res engine.Result
	if err == nil {
		res, err = r.Session.Exec(cmd)
	}
	if f := r.afterExec; f != nil {
		r.afterExec = nil
		f()
		res.Events = r.Session.Events()
	}
	if g, ok := cmd.(*engine.GradMode); ok && err == nil && g.Block && g.Body == nil {
		r.inBlock = true
	}
	cur := r.Session.Measure()
	if err == nil {
		r.recordStep(fmt.Sprintf("%d: %s", lineNo, strings.TrimSpace(src)), cur)
	}
	if r.JSON {
		r.writeJSON(src, lineNo, cur, res, err)
		if err != nil {
			r.printError(src, lineNo, err)
		}
	} else {
		if r.Echo {
			fmt.Fprintf(r.Out, "%s %s\n", colorName.Sprintf("%3d >", lineNo), src)
		}
		if res.Output != "" {
			io.WriteString(r.Out, res.Output)
		}
		if _, isMap := cmd.(*engine.Map); isMap && err == nil {
			writeMap(r.Out, res.Segments, res.Expandable)
		}
		if err != nil {
			r.printError(src, lineNo, err)
		} else {
			writeReport(r.Out, r.prev, cur, res.Events)
		}
	}
	r.prev = cur
	return err
}

func (r *Runner) printError(src string, lineNo int, err error) {
	pos, ok := errPos(err)
	if r.File != "" {
		where := fmt.Sprintf("%s:%d", r.File, lineNo)
		if ok {
			where = fmt.Sprintf("%s:%d:%d", r.File, pos.Line, pos.Col)
		}
		fmt.Fprintf(r.Err, "%s: %s\n", where, errMsg(err))
		return
	}
	if ok {
		fmt.Fprintf(r.Err, "    %s\n    %s%s\n", src, strings.Repeat(" ", caretOffset(src, pos.Col)), colorErr.Sprint("^"))
	}
	fmt.Fprintf(r.Err, "%s %s\n", colorErr.Sprint("error:"), errMsg(err))
}

// caretOffset is the display column of rune column col (1-based).
func caretOffset(src string, col int) int {
	n := 0
	for i, r := range []rune(src) {
		if i >= col-1 {
			break
		}
		if r == '\t' {
			n += 4 - n%4
		} else {
			n++
		}
	}
	return n
}

type jsonDevice struct {
	Device     string  `json:"device"`
	Allocated  uint64  `json:"allocated_bytes"`
	Reserved   uint64  `json:"reserved_bytes"`
	MaxAlloc   uint64  `json:"max_allocated_bytes"`
	MaxReserve uint64  `json:"max_reserved_bytes"`
	DriverUsed *uint64 `json:"driver_used_bytes"`
	Context    *uint64 `json:"context_bytes"`
	Outside    *int64  `json:"outside_allocator_bytes"`
}

type jsonStep struct {
	Line       int          `json:"line"`
	EndLine    int          `json:"end_line,omitempty"`
	Source     string       `json:"source"`
	HostRSS    *uint64      `json:"host_rss_bytes"`
	Allocated  uint64       `json:"allocated_bytes"`
	Reserved   uint64       `json:"reserved_bytes"`
	MaxAlloc   uint64       `json:"max_allocated_bytes"`
	MaxReserve uint64       `json:"max_reserved_bytes"`
	DriverUsed *uint64      `json:"driver_used_bytes"`
	Context    *uint64      `json:"context_bytes"`
	Outside    *int64       `json:"outside_allocator_bytes"`
	Devices    []jsonDevice `json:"devices"`
	Events     []string     `json:"events,omitempty"`
	Output     string       `json:"output,omitempty"`
	Error      *string      `json:"error,omitempty"`
	ElapsedNs  int64        `json:"elapsed_ns"`
}

func (r *Runner) writeJSON(src string, lineNo int, f engine.Figures, res engine.Result, err error) {
	r.writeJSONEnd(src, lineNo, 0, f, res, err)
}

// writeJSONEnd writes one step as JSON; endLine is a Python statement's
// last line (0: one line).
func (r *Runner) writeJSONEnd(src string, lineNo, endLine int, f engine.Figures, res engine.Result, err error) {
	s := jsonStep{Line: lineNo, EndLine: endLine, Source: src, Events: res.Events, Output: res.Output, ElapsedNs: res.Elapsed.Nanoseconds()}
	if f.HostKnown {
		s.HostRSS = &f.HostRSS
	}
	for i, d := range f.Devices {
		jd := jsonDevice{Device: fmt.Sprintf("cuda:%d", i), Allocated: d.Allocated, Reserved: d.Reserved, MaxAlloc: d.MaxAllocated, MaxReserve: d.MaxReserved}
		if d.Inited && d.DriverKnown {
			used, ctx, outside := d.DriverUsed, d.Context, d.Outside
			jd.DriverUsed, jd.Context, jd.Outside = &used, &ctx, &outside
		}
		s.Devices = append(s.Devices, jd)
	}
	if len(s.Devices) > 0 {
		d := s.Devices[0]
		s.Allocated, s.Reserved, s.MaxAlloc, s.MaxReserve, s.DriverUsed, s.Context, s.Outside = d.Allocated, d.Reserved, d.MaxAlloc, d.MaxReserve, d.DriverUsed, d.Context, d.Outside
	}
	if err != nil {
		msg := errMsg(err)
		if pos, ok := errPos(err); ok {
			msg = fmt.Sprintf("%d:%d: %s", pos.Line, pos.Col, msg)
		}
		s.Error = &msg
	}
	b, _ := json.Marshal(s)
	r.Out.Write(append(b, '\n'))
}

// Script runs every line of in; the first failing line stops it (unless
// KeepGoing). It returns the exit status: 0, or 1 after an error.
func (r *Runner) Script(in io.Reader) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	status := 0
	for n := 1; sc.Scan(); n++ {
		if err := r.Line(sc.Text(), n); err != nil {
			status = 1
			if !r.KeepGoing {
				return status
			}
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(r.Err, "%s: %v\n", r.File, err)
		return 1
	}
	return status
}
