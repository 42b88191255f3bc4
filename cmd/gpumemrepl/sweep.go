package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/repl"
)

// sweepSpec is fit --sweep NAME=LO..HI.
type sweepSpec struct {
	name   string
	lo, hi int64
}

// maxSweep bounds a sweep's values: more than any batch or sequence a
// GPU holds, and far from overflow.
const maxSweep = 1 << 40

func parseSweep(s string) (sweepSpec, error) {
	name, rng, ok := strings.Cut(s, "=")
	los, his, ok2 := strings.Cut(rng, "..")
	name = strings.TrimPrefix(name, "--")
	lo, err1 := strconv.ParseInt(los, 10, 64)
	hi, err2 := strconv.ParseInt(his, 10, 64)
	switch {
	case !ok || !ok2 || name == "" || strings.ContainsAny(name, " =") || err1 != nil || err2 != nil:
		return sweepSpec{}, fmt.Errorf("--sweep %s: want NAME=LO..HI (batch-size=1..1024)", strconv.Quote(s))
	case lo < 1 || hi < lo || hi > maxSweep:
		return sweepSpec{}, fmt.Errorf("--sweep %s: want 1 <= LO <= HI <= %d", strconv.Quote(s), int64(maxSweep))
	}
	return sweepSpec{name, lo, hi}, nil
}

// runSweep runs fit --sweep and prints its table (or JSON).
func runSweep(prog repl.Program, o repl.FitOptions, sw sweepSpec, asJSON bool, p *repl.Progress, stdout, stderr io.Writer) int {
	res, err := repl.SweepScript(prog, o, sw.name, sw.lo, sw.hi)
	p.Done()
	if err != nil {
		return fitFailed(stderr, err)
	}
	if asJSON {
		writeSweepJSON(stdout, sw, res)
	} else {
		writeSweepTable(stdout, prog, sw, res)
	}
	return 0
}

// writeSweepTable prints a row per GPU in 80 columns: the largest value
// that fits, the peaks there, and the next value with its reserved peak
// until it ran out of memory; where each next value ran out follows.
func writeSweepTable(w io.Writer, prog repl.Program, sw sweepSpec, res []repl.Sweep) {
	args := ""
	if len(prog.Args) > 0 {
		args = " " + strings.Join(prog.Args, " ")
	}
	fmt.Fprintf(w, "%s%s: the largest --%s in %d..%d\n", prog.File, args, sw.name, sw.lo, sw.hi)
	fmt.Fprintln(w, "that fits each simulated GPU, by bisection, with its peaks over the whole run")
	fmt.Fprintln(w, "(device 0), and the next value, which fails, with its reserved peak until then:")
	tw := tabwriter.NewWriter(w, 2, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "GPU\tmemory\tfits\tallocated\treserved\tfails\treserved\truns")
	var ran []string
	for _, r := range res {
		best, alloc, reserved := "none", "", ""
		if r.Fits {
			best = strconv.FormatInt(r.Best, 10)
			alloc, reserved = allocator.FormatSize(r.At.Devices[0].PeakAllocated), allocator.FormatSize(r.At.Devices[0].PeakReserved)
		}
		next, nextReserved := "-", ""
		if r.Next != 0 {
			next, nextReserved = strconv.FormatInt(r.Next, 10), allocator.FormatSize(r.NextAt.Devices[0].PeakReserved)
			ran = append(ran, fmt.Sprintf("%s, %d: out of memory at %s", r.GPU.Name, r.Next, r.NextAt.OOMAt))
		} else if r.Fits {
			ran = append(ran, fmt.Sprintf("%s, %d: the top of the range fits (not every value below it was run)", r.GPU.Name, sw.hi))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\n", r.GPU.Name, allocator.FormatSize(r.GPU.Total), best, alloc, reserved, next, nextReserved, r.Runs)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, l := range ran {
		fmt.Fprintln(w, l)
	}
}

// sweepJSON is one GPU's line of fit --sweep --json.
type sweepJSON struct {
	GPU              string  `json:"gpu"`
	TotalBytes       uint64  `json:"total_bytes"`
	Argument         string  `json:"argument"`
	Best             *int64  `json:"best"`
	PeakAllocated    *uint64 `json:"peak_allocated_bytes"`
	PeakReserved     *uint64 `json:"peak_reserved_bytes"`
	Next             *int64  `json:"next"`
	NextPeakReserved *uint64 `json:"next_peak_reserved_bytes"`
	NextOOMAt        *string `json:"next_oom_at"`
	NextOOMMessage   *string `json:"next_oom_message"`
	Runs             int     `json:"runs"`
}

func writeSweepJSON(w io.Writer, sw sweepSpec, res []repl.Sweep) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, r := range res {
		row := sweepJSON{GPU: r.GPU.Name, TotalBytes: r.GPU.Total, Argument: sw.name, Runs: r.Runs}
		if r.Fits {
			d := r.At.Devices[0]
			row.Best, row.PeakAllocated, row.PeakReserved = &r.Best, &d.PeakAllocated, &d.PeakReserved
		}
		if r.Next != 0 {
			d := r.NextAt.Devices[0]
			row.Next, row.NextPeakReserved, row.NextOOMAt, row.NextOOMMessage = &r.Next, &d.PeakReserved, &r.NextAt.OOMAt, &r.NextAt.OOM.Message
		}
		enc.Encode(row)
	}
}
