package repl

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
	"github.com/gpumemrepl/gpumemrepl/torchpy"
)

// Fit is how a program ran on one simulated GPU: what it needed, and
// where it first ran out of memory.
type Fit struct {
	GPU     engine.Preset
	Devices []DeviceFit // one per simulated device of the run
	// OOM is the program's first out-of-memory error, caught or not;
	// nil when every allocation succeeded. OOMAt is the file:line
	// running then (the innermost frame of the program's own file),
	// OOMLine that line and OOMSource its text.
	OOM       *engine.OOMRecord
	OOMAt     string
	OOMLine   int
	OOMSource string
	// Tier says whether the run's figures are exact, or how many
	// statements estimated and which was first.
	Tier engine.Tier
	// Peak is cuda:0's whole-run peak explained, as run --peak prints
	// it, when FitOptions.Peak asked for it.
	Peak *Breakdown
}

// DeviceFit is one device's needs over the whole run: the highest
// allocated and reserved bytes (whatever the program reset), and the
// reserved peak plus the CUDA context: what the driver must give (0
// when the program never used the device).
type DeviceFit struct {
	PeakAllocated, PeakReserved, WithContext uint64
}

// ScriptError is an error other than running out of memory that ended
// a script run by RunScript: the script's own report, whose first line
// is the FILE:LINE:COL: Type: message line that editors and CI parse,
// whatever lines the message and its traceback take below it.
type ScriptError struct {
	Msg string
	// Run says which run failed ("on h200"), on a line after the
	// report; "" where there was one.
	Run string
}

func (e *ScriptError) Error() string {
	s := strings.TrimRight(e.Msg, "\n")
	if e.Run != "" {
		s += "\n(" + e.Run + ")"
	}
	return s
}

// RunScript runs a program (Python when its file ends in .py, else the
// command form) on a fresh session made with o, its output discarded,
// and returns the session after it (its module's objects gone, as at
// interpreter exit); atEnd, when set, sees the run (its Session) as
// the program left it, before that. A script that ends by running out
// of memory has run: its session's FirstOOM says where. Any other error
// that ends it is an error of its own (or the session's own error).
func RunScript(prog Program, o engine.Options, atEnd func(*Runner)) (*engine.Session, error) {
	s, err := engine.NewSession(o)
	if err != nil {
		return nil, err
	}
	var errs bytes.Buffer
	r := &Runner{Session: s, Out: io.Discard, Err: &errs, File: prog.File, Args: prog.Args}
	if atEnd != nil {
		r.AtEnd = func() { atEnd(r) }
	}
	var status int
	if IsPython(prog.File) {
		status = r.PyScript(prog.Src)
	} else {
		status = r.GpumemScript(bytes.NewReader(prog.Src))
	}
	endedByOOM := r.endedBy != nil && r.endedBy.IsSubclass(torchpy.OutOfMemoryErrorType)
	if status != 0 && (s.FirstOOM() == nil || !endedByOOM) {
		msg := errs.String()
		if msg == "" {
			msg = fmt.Sprintf("the program exited with status %d", status)
		}
		return nil, &ScriptError{Msg: msg}
	}
	return s, nil
}

// Program is a script to fit: its source, its file name, and the
// arguments it is run with (sys.argv[1:]).
type Program struct {
	Src  []byte
	File string
	Args []string
}

// FitOptions are the simulated GPUs a program is fitted on: devices of
// each preset, under allocConf, and the simulated host's memory
// (HostTotal; 0 for this machine's); Strict makes an estimate an error
// instead.
type FitOptions struct {
	Presets   []engine.Preset
	Devices   int
	AllocConf string
	HostTotal uint64
	Strict    bool
	// Peak asks for each run's peak explained (Fit.Peak).
	Peak bool
	// OnRun, when set, is told each run as it starts: the GPU, and the
	// value of a sweep's argument (0 outside a sweep).
	OnRun func(gpu string, value int64)
}

// FitScript runs a program (as RunScript does) on a fresh simulated
// session of each preset and says what it needed on each, and whether
// that is exact. An error
// other than running out of memory stops it: no Fit is made for a
// program that did not run.
func FitScript(prog Program, o FitOptions) ([]Fit, error) {
	var fits []Fit
	for _, p := range o.Presets {
		if o.OnRun != nil {
			o.OnRun(p.Name, 0)
		}
		f, err := fitOn(prog, o, p)
		if err != nil {
			return nil, err
		}
		fits = append(fits, f)
	}
	return fits, nil
}

// fitOn runs a program on one preset.
func fitOn(prog Program, o FitOptions, p engine.Preset) (Fit, error) {
	var peak *Breakdown
	var atEnd func(*Runner)
	if o.Peak {
		atEnd = func(r *Runner) {
			if b, ok, _ := r.peakBreakdown(0, false); ok {
				peak = &b
			}
		}
	}
	s, err := RunScript(prog, engine.Options{Preset: p, AllocConf: o.AllocConf, Devices: o.Devices, FakeHost: true, Backend: "sim", HostTotal: o.HostTotal, Strict: o.Strict, DriverAddresses: true}, atEnd)
	if se, ok := err.(*ScriptError); ok {
		se.Run = "gpumemrepl fit: the script failed on " + p.Name
		return Fit{}, se
	}
	if err != nil {
		return Fit{}, fmt.Errorf("on %s: %w", p.Name, err)
	}
	f := Fit{GPU: p, OOM: s.FirstOOM(), Tier: s.Tier(), Peak: peak}
	now := s.Measure()
	for i := range o.Devices {
		a, res := s.LifetimePeaks(i)
		d := DeviceFit{PeakAllocated: a, PeakReserved: res}
		if now.Devices[i].Inited {
			d.WithContext = res + now.Devices[i].Context
		}
		f.Devices = append(f.Devices, d)
	}
	if f.OOM != nil {
		lines := eval.SourceLines(prog.Src)
		for _, fr := range f.OOM.Frames {
			if fr.Filename == prog.File && fr.Line >= 1 && fr.Line <= len(lines) {
				f.OOMAt, f.OOMLine = fmt.Sprintf("%s:%d", prog.File, fr.Line), fr.Line
				f.OOMSource = strings.TrimSpace(lines[fr.Line-1])
				break
			}
		}
	}
	return f, nil
}

// Sweep is, on one GPU, the largest value of a script's argument with
// which it runs without running out of memory, and the value after it.
type Sweep struct {
	GPU engine.Preset
	// Best is the largest value that fits (0 and Fits false when none
	// of the range does), and At its run; Next is the value after it
	// (0 when Best is the range's end) and NextAt its run, which ran
	// out of memory.
	Best, Next int64
	Fits       bool
	At, NextAt Fit
	Runs       int // the simulated runs it took
}

// SweepScript finds, on each preset, the largest value of the script's
// argument --name in [lo, hi] with which it fits, by bisection over
// simulated runs (a value fits when the program runs without an
// out-of-memory error; more of the argument is taken to need no less
// memory). Each run passes --name VALUE after the program's own
// arguments.
func SweepScript(prog Program, o FitOptions, name string, lo, hi int64) ([]Sweep, error) {
	var out []Sweep
	for _, p := range o.Presets {
		sw := Sweep{GPU: p}
		try := func(v int64) (Fit, error) {
			sw.Runs++
			if o.OnRun != nil {
				o.OnRun(p.Name, v)
			}
			run := prog
			run.Args = append(append([]string(nil), prog.Args...), "--"+name, strconv.FormatInt(v, 10))
			f, err := fitOn(run, o, p)
			if se, ok := err.(*ScriptError); ok {
				se.Run += fmt.Sprintf(" with --%s %d", name, v)
				return f, se
			}
			if err != nil {
				return f, fmt.Errorf("--%s %d: %w", name, v, err)
			}
			return f, nil
		}
		f, err := try(lo)
		if err != nil {
			return nil, err
		}
		if f.OOM == nil {
			sw.Best, sw.Fits, sw.At = lo, true, f
			good, bad := lo, hi+1 // good fits; bad does not (hi+1: not tried)
			if hi > lo {
				if f, err = try(hi); err != nil {
					return nil, err
				}
				if f.OOM == nil {
					good, sw.At = hi, f
				} else {
					bad, sw.NextAt = hi, f
				}
			}
			for bad-good > 1 && bad <= hi {
				mid := good + (bad-good)/2
				if f, err = try(mid); err != nil {
					return nil, err
				}
				if f.OOM == nil {
					good, sw.At = mid, f
				} else {
					bad, sw.NextAt = mid, f
				}
			}
			sw.Best = good
			if bad <= hi {
				sw.Next = bad
			}
		} else {
			sw.Next, sw.NextAt = lo, f
		}
		out = append(out, sw)
	}
	return out, nil
}
