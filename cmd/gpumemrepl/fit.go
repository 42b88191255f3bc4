package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
	"github.com/gpumemrepl/gpumemrepl/repl"
)

// cmdFit runs one script on simulated GPUs and prints what it needs on
// each, and whether that is exact: gpumemrepl fit [flags] FILE [-- ARG...],
// or with --sweep NAME=LO..HI the largest value of the script's --NAME
// that fits.
func cmdFit(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fit", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	gpus := fs.String("gpus", "", "comma-separated presets (default: all)")
	conf := fs.String("alloc-conf", os.Getenv("PYTORCH_CUDA_ALLOC_CONF"), "PYTORCH_CUDA_ALLOC_CONF")
	devices := fs.Int("devices", 1, "simulated GPUs of each preset")
	asJSON := fs.Bool("json", false, "one JSON object per GPU")
	strict := fs.Bool("strict", false, "an op with no recorded rule is an error instead of an estimate")
	sweep := fs.String("sweep", "", "NAME=LO..HI: the largest value of the script's --NAME that fits")
	quiet := fs.Bool("quiet", false, "no progress line")
	peak := fs.Bool("peak", false, "each GPU's peak explained")
	var hostTotal optSize
	fs.Var(&hostTotal, "host-total", "the simulated machine's host memory")
	files, err := parseInterleaved(fs, args)
	switch {
	case err != nil:
	case len(files) == 0:
		err = errors.New("no script to fit")
	case len(files) > 1 && !repl.IsPython(files[0]):
		err = errors.New("one script to fit (a .py script takes arguments, after --)")
	case *peak && *sweep != "":
		err = errors.New("--peak and --sweep do not go together: fit FILE --peak -- --NAME VALUE explains one value")
	}
	var presets []engine.Preset
	if err == nil {
		presets, err = fitPresets(*gpus)
	}
	var sw sweepSpec
	if err == nil && *sweep != "" {
		sw, err = parseSweep(*sweep)
	}
	if err != nil {
		fmt.Fprintf(stderr, "gpumemrepl fit: %v (see gpumemrepl help)\n", err)
		return 2
	}
	src, err := fileio.Read(files[0], fileio.MaxScript, "script")
	if err != nil {
		fmt.Fprintf(stderr, "gpumemrepl: %v\n", err)
		return 1
	}
	prog := repl.Program{Src: src, File: files[0], Args: files[1:]}
	o := repl.FitOptions{Presets: presets, Devices: *devices, AllocConf: *conf, HostTotal: hostTotal.Get().(uint64), Strict: *strict, Peak: *peak}
	p := newProgress(stderr, *quiet)
	if p != nil {
		p.Begin("fit:")
		runs := 0
		o.OnRun = func(gpu string, v int64) {
			runs++
			if *sweep != "" {
				p.Show(fmt.Sprintf("run %d, %s with --%s %d", runs, gpu, sw.name, v))
			} else {
				p.Show(fmt.Sprintf("run %d of %d, %s", runs, len(presets), gpu))
			}
		}
	}
	if *sweep != "" {
		return runSweep(prog, o, sw, *asJSON, p, stdout, stderr)
	}
	fits, err := repl.FitScript(prog, o)
	p.Done()
	if err != nil {
		return fitFailed(stderr, err)
	}
	if *asJSON {
		writeFitJSON(stdout, fits)
	} else {
		writeFitTable(stdout, files[0], *conf, fits)
	}
	return 0
}

// fitFailed reports why fit stopped, and is fit's status then: a
// script's own error as the script's report (its first line the
// FILE:LINE:COL: Type: message line that editors and CI parse, which
// run failed after it), any other error on a line of fit's.
func fitFailed(stderr io.Writer, err error) int {
	var se *repl.ScriptError
	if errors.As(err, &se) {
		fmt.Fprintln(stderr, se)
	} else {
		fmt.Fprintf(stderr, "gpumemrepl fit: %v\n", err)
	}
	return 1
}

// fitPresets are the presets named in list (all, largest first, when
// list is empty).
func fitPresets(list string) ([]engine.Preset, error) {
	var names []string
	if list == "" {
		names = engine.PresetNames()
	} else {
		names = strings.Split(list, ",")
	}
	var out []engine.Preset
	for _, n := range names {
		p, ok := engine.Presets[strings.TrimSpace(n)]
		if !ok {
			return nil, fmt.Errorf("--gpus: unknown preset %q (presets: %s)", n, strings.Join(engine.PresetNames(), ", "))
		}
		out = append(out, p)
	}
	if list == "" {
		slices.SortStableFunc(out, func(a, b engine.Preset) int { return cmp.Compare(b.Total, a.Total) })
	}
	return out, nil
}

// writeFitTable prints a row per GPU (and device), whether it is exact,
// then each GPU's first out-of-memory error and what was estimated; the
// table fits 80 columns (the fits column names only the line, the
// paragraph under it the rest).
func writeFitTable(w io.Writer, file, conf string, fits []repl.Fit) {
	if conf == "" {
		conf = "unset"
	}
	fmt.Fprintf(w, "%s on simulated GPUs (PYTORCH_CUDA_ALLOC_CONF %s);\n", file, conf)
	fmt.Fprintln(w, "peaks over the whole run, and the reserved peak plus the CUDA context:")
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU\tmemory\tallocated\treserved\t+ context\texact\tfits")
	for _, f := range fits {
		for i, d := range f.Devices {
			name := f.GPU.Name
			if len(f.Devices) > 1 {
				name = fmt.Sprintf("%s cuda:%d", name, i)
			}
			verdict := "yes"
			if f.OOM != nil && f.OOM.Device == i {
				verdict = "no"
				if f.OOMLine > 0 {
					verdict += fmt.Sprintf(", line %d", f.OOMLine)
				}
			}
			exact := "yes"
			if !f.Tier.Exact() {
				exact = "no " + repl.EstimatedMark
			}
			withContext := allocator.FormatSize(d.WithContext)
			if !f.GPU.ContextMeasured {
				withContext += " " + repl.EstimatedMark
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", name, allocator.FormatSize(f.GPU.Total), allocator.FormatSize(d.PeakAllocated), allocator.FormatSize(d.PeakReserved), withContext, exact, verdict)
		}
	}
	tw.Flush()
	writeFitEstimates(w, fits)
	for _, f := range fits {
		if f.OOM == nil {
			continue
		}
		where := f.OOMAt
		if f.OOMSource != "" {
			where += ": " + f.OOMSource
		}
		fmt.Fprintf(w, "\n%s, first out of memory at %s\n  torch.OutOfMemoryError: %s\n", f.GPU.Name, where, f.OOM.Message)
	}
	for _, f := range fits {
		if f.Peak != nil {
			fmt.Fprintf(w, "\n%s: ", f.GPU.Name)
			repl.WriteBreakdown(w, *f.Peak)
		}
	}
	fmt.Fprintln(w, "\nThe peaks up to a GPU's first out-of-memory error are what ran before it.\n"+
		"+ context: the CUDA context measured with PyTorch 2.11 on the H200 after its\n"+
		"first kernel (it grows with the kernels loaded: 518 to 742 MiB there); "+repl.EstimatedMark+" marks\n"+
		"a preset whose context was not measured: the H200's is taken, and where its\n"+
		"memory runs out rests on it. Exact: every op followed a rule recorded with\n"+
		"PyTorch on the H200 or the H100 (both GH100). On the other presets a rule that\n"+
		"reads the card (the cuBLAS workspace, a reduction's blocks, CUB's and cuDNN's\n"+
		"scratch, the attention kernel, running out of memory) is an estimate.")
}

// writeFitEstimates says, under fit's table, how many statements of
// each estimated run followed a general rule and which was first; the
// GPUs whose runs estimated alike share one paragraph.
func writeFitEstimates(w io.Writer, fits []repl.Fit) {
	var texts []string
	gpus := map[string][]string{}
	for _, f := range fits {
		if f.Tier.Exact() {
			continue
		}
		text := repl.EstimatedText(f.Tier)
		if gpus[text] == nil {
			texts = append(texts, text)
		}
		gpus[text] = append(gpus[text], f.GPU.Name)
	}
	for _, text := range texts {
		fmt.Fprintf(w, "\n%s %s: %s\n", repl.EstimatedMark, strings.Join(gpus[text], ", "), text)
	}
}

// fitJSON is one GPU device's line of fit --json.
type fitJSON struct {
	GPU           string `json:"gpu"`
	Device        int    `json:"device"`
	TotalBytes    uint64 `json:"total_bytes"`
	PeakAllocated uint64 `json:"peak_allocated_bytes"`
	PeakReserved  uint64 `json:"peak_reserved_bytes"`
	WithContext   uint64 `json:"reserved_plus_context_bytes"`
	// ContextEstimated: the preset's CUDA context was not measured on
	// it (the H200's is taken).
	ContextEstimated bool    `json:"context_estimated"`
	Fits             bool    `json:"fits"`
	OOMAt            *string `json:"oom_at"`
	OOMSource        *string `json:"oom_source"`
	OOMMessage       *string `json:"oom_message"`
	// Exact is whether every figure followed recorded rules; otherwise
	// EstimatedStatements statements estimated, the first FirstEstimate.
	Exact               bool    `json:"exact"`
	EstimatedStatements int     `json:"estimated_statements"`
	FirstEstimate       *string `json:"first_estimate"`
	// Peak is cuda:0's peak explained (fit --peak), on its device 0 row.
	Peak *repl.Breakdown `json:"breakdown,omitempty"`
}

func writeFitJSON(w io.Writer, fits []repl.Fit) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, f := range fits {
		for i, d := range f.Devices {
			oomHere := f.OOM != nil && f.OOM.Device == i
			row := fitJSON{GPU: f.GPU.Name, Device: i, TotalBytes: f.GPU.Total, PeakAllocated: d.PeakAllocated, PeakReserved: d.PeakReserved, WithContext: d.WithContext, ContextEstimated: !f.GPU.ContextMeasured, Fits: !oomHere,
				Exact: f.Tier.Exact(), EstimatedStatements: f.Tier.Steps}
			if first := repl.FirstEstimate(f.Tier); first != "" {
				row.FirstEstimate = &first
			}
			if oomHere {
				row.OOMAt, row.OOMSource, row.OOMMessage = &f.OOMAt, &f.OOMSource, &f.OOM.Message
			}
			if i == 0 {
				row.Peak = f.Peak
			}
			enc.Encode(row)
		}
	}
}
