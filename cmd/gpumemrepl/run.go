package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/chzyer/readline"
	"github.com/fatih/color"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
	"github.com/gpumemrepl/gpumemrepl/repl"
)

// sessionFlags are the flags of run and of the interactive REPL.
type sessionFlags struct {
	json, keepGoing, noColor, fakeHost bool
	eachStatement, strict, peak        bool
	asRecorded, driverAddresses        bool
	preset, allocConf, device, plot    string
	calibration                        string
	totalBytes, contextBytes           optUint
	hostBudget, hostTotal              optSize
	devices                            int
}

func (f *sessionFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.json, "json", false, "one JSON object per command")
	fs.BoolVar(&f.keepGoing, "keep-going", false, "go on after a failing line")
	fs.BoolVar(&f.eachStatement, "each-statement", false, "a Python script: a report after every statement executed, in loops and functions too")
	fs.StringVar(&f.plot, "plot", "", "at the end, write the session's HTML page (as plot FILE at the prompt)")
	fs.BoolVar(&f.peak, "peak", false, "at the end, cuda:0's whole-run peak explained: by category, source line and name, and the largest holders (with --json, one JSON object)")
	fs.BoolVar(&f.noColor, "no-color", false, "no color")
	fs.BoolVar(&f.fakeHost, "fake-host", false, "deterministic host memory (for golden tests)")
	fs.BoolVar(&f.asRecorded, "as-recorded", false, "a Python script as scripts/record_gc.py records it: import torch leaves the collector as in its recordings, and cuda:0's four figures are read after each top-level statement, which moves CPython's counts")
	fs.BoolVar(&f.strict, "strict", false, "refuse an op with no recorded rule instead of estimating its figures")
	fs.StringVar(&f.preset, "preset", "h200", "simulated GPU")
	fs.StringVar(&f.allocConf, "alloc-conf", os.Getenv("PYTORCH_CUDA_ALLOC_CONF"), "PYTORCH_CUDA_ALLOC_CONF")
	fs.StringVar(&f.device, "device", "auto", "auto, sim or cuda")
	fs.Var(&f.totalBytes, "total-bytes", "simulated device size in bytes")
	fs.Var(&f.contextBytes, "context-bytes", "simulated CUDA context size in bytes")
	fs.IntVar(&f.devices, "devices", 1, "number of simulated devices")
	fs.BoolVar(&f.driverAddresses, "driver-addresses", true, "the simulated device also takes the address space the CUDA driver takes for itself (=false: it does not)")
	fs.Var(&f.hostBudget, "host-budget", "real host memory for host tensors, past it counted")
	fs.Var(&f.hostTotal, "host-total", "the simulated machine's host memory")
	fs.StringVar(&f.calibration, "calibration", "", "calibration files (scripts/calibrate.py), ':'-separated")
}

// forceGeneralEnv names table ops ("all": every one the general rule
// covers) to run by the general rule instead of their recorded rules, so
// that the general rule's error is measured against the recordings.
const forceGeneralEnv = "GPUMEMREPL_FORCE_GENERAL"

// simOnly are the flags that describe a simulated device.
var simOnly = []string{"preset", "total-bytes", "context-bytes", "devices", "driver-addresses"}

// session makes the session the flags ask for. Under --device auto, a
// flag that describes a simulated device picks the simulated device; a
// fallback from auto is reported once on stderr.
func (f *sessionFlags) session(fs *flag.FlagSet, stderr io.Writer) (*engine.Session, error) {
	p, ok := engine.Presets[f.preset]
	if !ok {
		return nil, fmt.Errorf("unknown preset %q (presets: %s)", f.preset, strings.Join(engine.PresetNames(), ", "))
	}
	var simFlag string
	fs.Visit(func(fl *flag.Flag) {
		if slices.Contains(simOnly, fl.Name) && simFlag == "" {
			simFlag = fl.Name
		}
	})
	backend := f.device
	switch f.device {
	case "auto":
		if simFlag != "" {
			backend = "sim"
		}
	case "sim":
	case "cuda":
		if simFlag != "" {
			return nil, fmt.Errorf("--%s describes a simulated device; it does not go with --device cuda", simFlag)
		}
	default:
		return nil, fmt.Errorf("--device %s: want auto, sim or cuda", strconv.Quote(f.device))
	}
	o := engine.Options{Preset: p, AllocConf: f.allocConf, Devices: f.devices, FakeHost: f.fakeHost, Backend: backend, Strict: f.strict,
		DriverAddresses: f.driverAddresses, PlacementUnmodelled: !f.driverAddresses,
		HostBudget: f.hostBudget.Get().(uint64), HostTotal: f.hostTotal.Get().(uint64)}
	if f.totalBytes.v != nil {
		o.TotalBytes = *f.totalBytes.v
	}
	for _, c := range strings.Split(f.calibration, ":") {
		if c != "" {
			o.Calibration = append(o.Calibration, c)
		}
	}
	if f.contextBytes.v != nil {
		o.Preset.ContextBytes = *f.contextBytes.v
	}
	if v := os.Getenv(forceGeneralEnv); v != "" { // a measurement's switch, not a user's (scripts/honesty.sh)
		o.ForceGeneral = strings.Split(v, ",")
	}
	if f.noColor || os.Getenv("NO_COLOR") != "" {
		color.NoColor = true
	}
	s, err := engine.NewSession(o)
	if err == nil && s.Notice() != "" {
		fmt.Fprintf(stderr, "gpumemrepl: %s\n", s.Notice())
	}
	return s, err
}

// cmdRun runs a .gpumem script, or standard input when no file is given.
func cmdRun(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var sf sessionFlags
	sf.register(fs)
	files, err := parseInterleaved(fs, args)
	if err != nil {
		fmt.Fprintf(stderr, "gpumemrepl run: %v (see gpumemrepl help)\n", err)
		return 2
	}
	if len(files) > 1 && !repl.IsPython(files[0]) {
		fmt.Fprintln(stderr, "gpumemrepl run: one script at a time (a .py script takes arguments, after --)")
		return 2
	}
	if sf.asRecorded && (len(files) == 0 || !repl.IsPython(files[0])) {
		fmt.Fprintln(stderr, "gpumemrepl run: --as-recorded runs a Python script (FILE.py) as scripts/record_gc.py records it; it does not go with a .gpumem script or the prompt")
		return 2
	}
	s, err := sf.session(fs, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "gpumemrepl: %v\n", err)
		if errors.As(err, new(*engine.CalibrationFileError)) {
			return 1 // bad input, not bad usage
		}
		return 2
	}
	r := &repl.Runner{Session: s, Out: stdout, Err: stderr, JSON: sf.json, KeepGoing: sf.keepGoing, EachStatement: sf.eachStatement, Peak: sf.peak, PlotPath: sf.plot, File: "<stdin>", AsRecorded: sf.asRecorded}
	if f, ok := stdin.(*os.File); ok && len(files) == 0 && readline.IsTerminal(int(f.Fd())) {
		return r.Interactive()
	}
	var in io.Reader = &fileio.Limited{R: stdin, Path: "<stdin>", Limit: fileio.MaxScript, What: "script"}
	if len(files) > 0 {
		f, err := fileio.Open(files[0], fileio.MaxScript, "script")
		if err != nil {
			fmt.Fprintf(stderr, "gpumemrepl: %v\n", err)
			return 1
		}
		defer f.Close()
		in, r.File, r.Args = f, files[0], files[1:]
		r.Progress = repl.NewProgress(stderr, false)
		if repl.IsPython(r.File) {
			src, err := f.ReadAll()
			if err != nil {
				fmt.Fprintf(stderr, "gpumemrepl: %v\n", err)
				return 1
			}
			return r.PyScript(src)
		}
	}
	return r.GpumemScript(in)
}
