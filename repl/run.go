package repl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/fatih/color"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
	"github.com/gpumemrepl/gpumemrepl/repl/plot"
)

// Runner runs a session's input (a script, piped lines, the prompt)
// and reports each step.
type Runner struct {
	Session   *engine.Session
	Out       io.Writer
	Err       io.Writer
	JSON      bool // one JSON object per command instead of the report
	KeepGoing bool // go on after a failing line (scripts)
	// EachStatement reports after every simple statement a Python
	// script executes, inside loops and functions too.
	EachStatement bool
	File          string // script name for error positions
	// Args are a Python script's arguments: sys.argv is File, then Args.
	Args []string
	// AtEnd, when set, runs when a script has run its last step (or
	// stopped), before its module's objects go as at interpreter exit.
	AtEnd func()
	// AsRecorded runs a Python script as scripts/record_gc.py records
	// it: after each top-level statement the four device figures are
	// read with the collector disabled, which moves CPython's counts
	// (torchpy's RecorderReads), and import torch leaves the recordings'
	// counts.
	AsRecorded bool
	// gcCount, set while a Python script runs, is its collector's
	// counts (a --json row's gc); stepGC, when set, the counts as the
	// step's statement ended (before the recorder's reads).
	gcCount func() [3]int
	stepGC  *[3]int
	// Progress, when set, says on the terminal which step is running
	// once one runs over a second.
	Progress  *Progress
	prev      engine.Figures
	seen      reported     // what of this step is reported already (EachStatement)
	stepStart time.Time    // when the step began, for elapsed_ns
	started   bool         // the prompt has measured its first figures
	history   plot.History // device 0 after every step, for plot (plotcmd.go)
	// Peak, at a script's end, explains cuda:0's whole-run peak (peak.go);
	// runPeak is the peak so far and peakStep the step that reached it.
	Peak bool
	// PlotPath, when set, is where a script's page is written at its
	// end (run --plot).
	PlotPath string
	runPeak  uint64
	peakStep string
	// endedBy is the class of the exception the last failed step raised
	// (nil for an error that is not a Python exception).
	endedBy *eval.Class
	// isCmd and toPython remember what a line of text reads as (a
	// generated sweep repeats its lines): isBlockCommand's answer, and
	// command.Python's.
	isCmd    memo[bool]
	toPython memo[translation]
	// lineTrees are the trees of lines of Python run, by their text and
	// column (parseLine).
	lineTrees memo[*lineTree]
	stepOut   stepBuffer // a step's report as it is made (step)
}

// stepBuffer is a step's report before it is written, as wide as the
// output it goes to.
type stepBuffer struct {
	bytes.Buffer
	width int
}

// Width is the width the report must fit (widthOf).
func (b *stepBuffer) Width() int { return b.width }

// echo writes a line of the script as the report shows it: its number
// right-aligned in three columns and mark (> its first line, . one
// after, : a statement's) in colorName, then text.
func (b *stepBuffer) echo(line int, mark, text string) {
	if color.NoColor {
		var num [20]byte
		n := strconv.AppendInt(num[:0], int64(line), 10)
		for range 3 - len(n) {
			b.WriteByte(' ')
		}
		b.Write(n)
		b.WriteByte(' ')
		b.WriteString(mark)
	} else {
		b.WriteString(colorName.Sprintf("%3d %s", line, mark))
	}
	b.WriteByte(' ')
	b.WriteString(text)
	b.WriteByte('\n')
}

// translation is what command.Python makes of a line.
type translation struct {
	py  string
	ok  bool
	err error
}

// memo remembers a pure function's answers by text, forgetting them
// all past memoSize.
type memo[T any] map[string]T

const memoSize = 4096

// of is f(text), from memory when it was asked before.
func (m *memo[T]) of(text string, f func(string) T) T {
	if v, ok := (*m)[text]; ok {
		return v
	}
	v := f(text)
	m.put(text, v)
	return v
}

// put remembers v for text.
func (m *memo[T]) put(text string, v T) {
	if *m == nil || len(*m) >= memoSize {
		*m = memo[T]{}
	}
	(*m)[text] = v
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
	Line        int          `json:"line"`
	EndLine     int          `json:"end_line,omitempty"`
	Source      string       `json:"source"`
	HostRSS     *uint64      `json:"host_rss_bytes"`
	PinnedHost  uint64       `json:"pinned_host_bytes,omitempty"`
	HostCounted uint64       `json:"host_counted_bytes,omitempty"`
	Allocated   uint64       `json:"allocated_bytes"`
	Reserved    uint64       `json:"reserved_bytes"`
	MaxAlloc    uint64       `json:"max_allocated_bytes"`
	MaxReserve  uint64       `json:"max_reserved_bytes"`
	DriverUsed  *uint64      `json:"driver_used_bytes"`
	Context     *uint64      `json:"context_bytes"`
	Outside     *int64       `json:"outside_allocator_bytes"`
	Devices     []jsonDevice `json:"devices"`
	Events      []string     `json:"events,omitempty"`
	// Exact is false where the figures rest on an estimate (left out
	// where they are exact); Estimates are this step's own, and
	// FirstEstimate the session's first, which the figures rest on.
	Exact         *bool    `json:"exact,omitempty"`
	Estimates     []string `json:"estimates,omitempty"`
	FirstEstimate string   `json:"first_estimate,omitempty"`
	Output        string   `json:"output,omitempty"`
	Error         *string  `json:"error,omitempty"`
	// GC is a Python script's gc.get_count() after the statement.
	GC        *[3]int `json:"gc,omitempty"`
	ElapsedNs int64   `json:"elapsed_ns"`
}

// writeStepJSON writes one step as a JSON object: its first line and
// (for a Python statement of several) its last, its text, the figures
// after it and whether they are exact, its events, estimates and
// output, its error (its position in the file and message, nil for none)
// and how long it took since the step began.
func (r *Runner) writeStepJSON(lineNo, endLine int, src string, f engine.Figures, n stepNews, output string, failed *stepError) {
	s := jsonStep{Line: lineNo, EndLine: endLine, Source: src, Events: n.events, Estimates: n.estimates, Output: output, ElapsedNs: time.Since(r.stepStart).Nanoseconds()}
	switch {
	case r.stepGC != nil:
		s.GC = r.stepGC
	case r.gcCount != nil:
		c := r.gcCount()
		s.GC = &c
	}
	if f.Estimated {
		s.Exact = new(bool)
		s.FirstEstimate = FirstEstimate(r.Session.Tier())
	}
	if failed != nil {
		msg := failed.String()
		if failed.file == r.File { // the row is of this file: its error says where in it
			msg = failed.rest
		}
		msg = strings.TrimSuffix(msg, "\n")
		s.Error = &msg
	}
	if f.HostKnown {
		s.HostRSS = &f.HostRSS
	}
	s.PinnedHost = f.Pinned
	s.HostCounted = f.HostCounted
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
	b, _ := json.Marshal(s)
	r.Out.Write(append(b, '\n'))
}
