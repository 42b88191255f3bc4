package repl

import (
	"bytes"
	"fmt"
	"io"
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
	// running then (the innermost frame of the program's own file) and
	// OOMSource that line's text.
	OOM       *engine.OOMRecord
	OOMAt     string
	OOMSource string
	// Tier says whether the run's figures are exact, or how many
	// statements estimated and which was first.
	Tier engine.Tier
}

// DeviceFit is one device's needs over the whole run: the highest
// allocated and reserved bytes (whatever the program reset), and the
// reserved peak plus the CUDA context: what the driver must give (0
// when the program never used the device).
type DeviceFit struct {
	PeakAllocated, PeakReserved, WithContext uint64
}

// scriptError is an error other than running out of memory that ended
// a script run by RunScript.
type scriptError struct {
	Msg string // the script's own error line(s)
}

func (e *scriptError) Error() string { return strings.TrimRight(e.Msg, "\n") }

// RunScript runs a script (src, named file: Python when file ends in
// .py, else the command form) on a fresh session made with o, its output
// discarded, and returns the session after it (its module's objects
// gone, as at interpreter exit); atEnd, when set, sees the session as
// the program left it, before that. A script that ends by running out
// of memory has run: its session's FirstOOM says where. Any other error
// that ends it is an error of its own (or the session's own error).
func RunScript(src []byte, file string, o engine.Options, atEnd func(*engine.Session)) (*engine.Session, error) {
	s, err := engine.NewSession(o)
	if err != nil {
		return nil, err
	}
	var errs bytes.Buffer
	r := &Runner{Session: s, Out: io.Discard, Err: &errs, File: file}
	if atEnd != nil {
		r.AtEnd = func() { atEnd(s) }
	}
	var status int
	if IsPython(file) {
		status = r.PyScript(src)
	} else {
		status = r.GpumemScript(bytes.NewReader(src))
	}
	endedByOOM := r.endedBy != nil && r.endedBy.IsSubclass(torchpy.OutOfMemoryErrorType)
	if status != 0 && (s.FirstOOM() == nil || !endedByOOM) {
		msg := errs.String()
		if msg == "" {
			msg = fmt.Sprintf("the program exited with status %d", status)
		}
		return nil, &scriptError{Msg: msg}
	}
	return s, nil
}

// FitScript runs a script (as RunScript does) on a fresh simulated
// session of each preset, devices GPUs of it, under allocConf, and says
// what it needed on each, and whether that is exact (strict: an estimate
// is an error). An error other than running out of memory stops it: no
// Fit is made for a program that did not run.
func FitScript(src []byte, file string, presets []engine.Preset, devices int, allocConf string, strict bool) ([]Fit, error) {
	lines := eval.SourceLines(src)
	var fits []Fit
	for _, p := range presets {
		s, err := RunScript(src, file, engine.Options{Preset: p, AllocConf: allocConf, Devices: devices, FakeHost: true, Backend: "sim", Strict: strict}, nil)
		if err != nil {
			return nil, fmt.Errorf("on %s: %w", p.Name, err)
		}
		f := Fit{GPU: p, OOM: s.FirstOOM(), Tier: s.Tier()}
		now := s.Measure()
		for i := range devices {
			a, res := s.LifetimePeaks(i)
			d := DeviceFit{PeakAllocated: a, PeakReserved: res}
			if now.Devices[i].Inited {
				d.WithContext = res + now.Devices[i].Context
			}
			f.Devices = append(f.Devices, d)
		}
		if f.OOM != nil {
			for _, fr := range f.OOM.Frames {
				if fr.Filename == file && fr.Line >= 1 && fr.Line <= len(lines) {
					f.OOMAt = fmt.Sprintf("%s:%d", file, fr.Line)
					f.OOMSource = strings.TrimSpace(lines[fr.Line-1])
					break
				}
			}
		}
		fits = append(fits, f)
	}
	return fits, nil
}
