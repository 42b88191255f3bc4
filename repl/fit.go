package repl

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/engine"
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
}

// DeviceFit is one device's needs over the whole run: the highest
// allocated and reserved bytes (whatever the program reset), and the
// reserved peak plus the CUDA context: what the driver must give (0
// when the program never used the device).
type DeviceFit struct {
	PeakAllocated, PeakReserved, WithContext uint64
}

// FitError is an error other than out-of-memory that ended the program:
// its figures are not what the program needs, so none are given.
type FitError struct {
	GPU string
	Msg string // the script's own error line(s)
}

func (e *FitError) Error() string {
	return fmt.Sprintf("on %s: %s", e.GPU, strings.TrimRight(e.Msg, "\n"))
}

// FitScript runs a script (src, named file: Python when file ends in
// .py, else the command form) on a fresh simulated session of each
// preset, devices GPUs of it, under allocConf, its output discarded,
// and says what it needed on each. An error other than running out of
// memory is a *FitError (or the session's own error), and no Fit is
// made for it.
func FitScript(src []byte, file string, presets []engine.Preset, devices int, allocConf string) ([]Fit, error) {
	lines := strings.Split(string(src), "\n")
	var fits []Fit
	for _, p := range presets {
		s, err := engine.NewSession(engine.Options{Preset: p, AllocConf: allocConf, Devices: devices, FakeHost: true, Backend: "sim"})
		if err != nil {
			return nil, err
		}
		var errs bytes.Buffer
		r := &Runner{Session: s, Out: io.Discard, Err: &errs, File: file}
		var status int
		if IsPython(file) {
			status = r.PyScript(src)
		} else {
			status = r.GpumemScript(bytes.NewReader(src))
		}
		f := Fit{GPU: p, OOM: s.FirstOOM()}
		if status != 0 && (f.OOM == nil || !strings.Contains(errs.String(), "OutOfMemoryError")) {
			msg := errs.String()
			if msg == "" {
				msg = fmt.Sprintf("the program exited with status %d", status)
			}
			return nil, &FitError{GPU: p.Name, Msg: msg}
		}
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
