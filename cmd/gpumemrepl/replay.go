package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/device/cuda"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
	"github.com/gpumemrepl/gpumemrepl/engine"
)

func cmdReplay(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	check := fs.Bool("check", false, "compare with the recorded stats and layouts")
	statsOnly := fs.Bool("stats-only", false, "with --check: compare the stats, not the layouts")
	keys := fs.String("keys", "", "with --check: compare only the stats keys with these comma-separated prefixes")
	noEmptyCache := fs.Bool("no-empty-cache", false, "leave out the trace's empty_cache ops")
	asJSON := fs.Bool("json", false, "one JSON object per op")
	timeIt := fs.Bool("time", false, "time the replay")
	summary := fs.Bool("summary", false, "print memory_summary() after the replay")
	explainIt := fs.Bool("explain", false, "why the first OOM (or the peak), and the smallest change that avoids it")
	var conf optString
	var limit, total, recorded, traceLimit optUint
	fs.Var(&conf, "alloc-conf", "PYTORCH_CUDA_ALLOC_CONF")
	fs.Var(&limit, "limit-bytes", "per-process limit in bytes")
	fs.Var(&recorded, "recorded-limit-bytes", "the limit a snapshot was recorded under, to attribute its releases")
	fs.Var(&total, "total-bytes", "simulated device size in bytes")
	fs.Var(&traceLimit, "trace-limit-bytes", "the most JSON a trace may hold, inflated (default 1 GiB and 50 times its gzip)")
	dev := fs.String("device", "sim", "sim or cuda")
	export := fs.String("export", "", "write the replay as a PyTorch snapshot (.pickle)")
	plotPath := fs.String("plot", "", "write an HTML page of the replay")
	quiet := fs.Bool("quiet", false, "no progress bar")
	preset := fs.String("preset", "", "simulated GPU by name (its total memory)")
	usageErr := func(err error) int {
		fmt.Fprintf(stderr, "gpumemrepl replay: %v (see gpumemrepl help)\n", err)
		return 2
	}
	args, confs, err := splitCompare(args)
	if err != nil {
		return usageErr(err)
	}
	comparing := len(confs) > 0
	files, err := parseInterleaved(fs, args)
	if err == nil {
		err = refuseConflicts(fs, comparing, len(files))
	}
	if err == nil && *explainIt {
		err = refuseWithExplain(fs, comparing)
	}
	if err != nil {
		return usageErr(err)
	}
	opts := trace.Options{AllocConf: conf.v, LimitBytes: limit.v}
	if *preset != "" {
		p, ok := engine.Presets[*preset]
		if !ok {
			return usageErr(fmt.Errorf("--preset %q: want one of %s", *preset, strings.Join(engine.PresetNames(), ", ")))
		}
		opts.TotalBytes = p.Total
	}
	if total.v != nil {
		opts.TotalBytes = *total.v
	}
	switch *dev {
	case "sim":
	case "cuda":
		if opts.TotalBytes != 0 {
			return usageErr(errors.New("--total-bytes and --preset size the simulated device; they do not go with --device cuda"))
		}
		d, err := openCUDA()
		if err != nil {
			return usageErr(fmt.Errorf("--device cuda: %v", err))
		}
		opts.Device = d
	default:
		return usageErr(fmt.Errorf("--device %q: want sim or cuda", *dev))
	}
	cmp := trace.Compare{Layouts: !*statsOnly && *keys == ""}
	if *keys != "" {
		cmp.Keys = strings.Split(*keys, ",")
	}
	out := bufio.NewWriter(stdout)
	bar := newProgress(stderr, *quiet)
	status := 0
	for _, f := range files {
		histories, err := openReplay(f, traceLimit.v)
		if err == nil && len(histories) > 1 && (*export != "" || *plotPath != "") {
			err = fmt.Errorf("holds the histories of %d devices; --export and --plot take one", len(histories))
		}
		for k, h := range histories {
			if err != nil {
				break
			}
			t, snap := h.Trace, h.Replay
			if err = refuseForFormat(fs, snap != nil); err != nil {
				break
			}
			if snap == nil && t.NumProblems > 0 {
				if *check {
					err = t.Contradictions()
					break
				}
				t.WriteWarnings(stderr)
			}
			if k == 0 && snap != nil {
				if err = snapshotProblems(stderr, f, snap.Problems, *check); err != nil {
					break
				}
			}
			if recorded.v != nil {
				if err = snap.Resolve(trace.Options{LimitBytes: recorded.v, TotalBytes: opts.TotalBytes}); err != nil {
					break
				}
				t = snap.Trace
			}
			if *noEmptyCache {
				t.DropEmptyCache()
			}
			opts.Progress = replayHook(bar, t.Path)
			switch {
			case *explainIt:
				err = explainOne(out, t, snap, opts, recorded.v != nil, *asJSON)
			case comparing:
				err = compareConfigs(out, t, snap.Notes(), opts, confs, *asJSON)
			case *check && snap != nil:
				err = checkSnapshot(out, snap, opts)
			case *check:
				err = checkOne(out, t, opts, cmp)
			case *timeIt:
				err = timeOne(out, t, opts)
			case *asJSON:
				err = jsonOne(out, t, opts)
			default:
				err = replayOutputs(output{out, stderr}, t, snap, opts, *export, *plotPath, *summary)
			}
			bar.Done()
		}
		if err != nil {
			out.Flush()
			fmt.Fprintln(stderr, ofFile(f, err))
			status = max(status, exitStatus(err))
		}
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "gpumemrepl replay: %v\n", err)
		status = max(status, 1)
	}
	return status
}

// openReplay opens f as snapshot.Open does, reading a trace within
// --trace-limit-bytes when it is given.
func openReplay(f string, traceLimit *uint64) ([]snapshot.Opened, error) {
	if traceLimit != nil {
		t, err := trace.LoadWithin(f, trace.RaisedLimits(int64(*traceLimit)))
		if err == nil {
			return []snapshot.Opened{{Trace: t}}, nil
		}
		if !errors.Is(err, trace.ErrNoOps) && !errors.Is(err, trace.ErrNotJSON) {
			return nil, err
		}
	}
	return snapshot.Open(f)
}

// replayOutputs writes the files asked for (a snapshot, a page), each
// from its own replay, then prints the summary line when no file was
// asked for or with table, memory_summary()'s table too.
func replayOutputs(w output, t *trace.Trace, snap *snapshot.Replay, o trace.Options, export, plotPath string, table bool) error {
	if export != "" {
		if err := exportSnapshot(w, t, snap, o, export); err != nil {
			return err
		}
	}
	if plotPath != "" {
		if err := plotReplay(w, t, snap, o, plotPath); err != nil {
			return err
		}
	}
	if export == "" && plotPath == "" || table {
		return summaryOne(w.stdout, t, o, table)
	}
	return nil
}

// output is where replay's files go: "-" names stdout, and the line
// that says a file was written then goes to stderr.
type output struct{ stdout, stderr io.Writer }

// noteFor is where to say that path was written.
func (o output) noteFor(path string) io.Writer {
	if path == "-" {
		return o.stderr
	}
	return o.stdout
}

// name is path as the note names it.
func (o output) name(path string) string {
	if path == "-" {
		return "standard output"
	}
	return path
}

var errMismatch = errors.New("mismatch")

func checkOne(w io.Writer, t *trace.Trace, o trace.Options, c trace.Compare) error {
	a, err := trace.Setup(t, o)
	if err != nil {
		return err
	}
	defer a.Close()
	c.Progress = o.Progress
	res, err := trace.Check(t, a, c)
	if err != nil {
		return err
	}
	if res.First != nil {
		fmt.Fprintf(w, "FAIL %s: %d ops, first mismatch at %s\n", t.Path, res.Ops, res.First)
		return errMismatch
	}
	fmt.Fprintf(w, "ok   %s: %d ops, %d values match\n", t.Path, res.Ops, res.Compared)
	return nil
}

func jsonOne(w io.Writer, t *trace.Trace, o trace.Options) error {
	a, err := trace.Setup(t, o)
	if err != nil {
		return err
	}
	defer a.Close()
	var v [allocator.NumStatKeys]int64
	buf := make([]byte, 0, 8192)
	return newReplayer(t, a, o).Run(func(i int, oom error) error {
		st := a.Stats()
		st.Values(&v)
		buf = append(buf[:0], '{')
		for k, key := range allocator.StatKeys {
			buf = strconv.AppendQuote(buf, key)
			buf = append(buf, ':')
			buf = strconv.AppendInt(buf, v[k], 10)
			buf = append(buf, ',')
		}
		buf = append(buf, `"i":`...)
		buf = strconv.AppendInt(buf, int64(i), 10)
		if oom != nil {
			e, _ := json.Marshal(oom.Error())
			buf = append(buf, `,"error":`...)
			buf = append(buf, e...)
		}
		buf = append(buf, "}\n"...)
		_, err := w.Write(buf)
		return err
	})
}

func summaryOne(w io.Writer, t *trace.Trace, o trace.Options, table bool) error {
	a, err := trace.Setup(t, o)
	if err != nil {
		return err
	}
	defer a.Close()
	ooms := 0
	err = newReplayer(t, a, o).Run(func(_ int, oom error) error {
		if oom != nil {
			ooms++
		}
		return nil
	})
	if err != nil {
		return err
	}
	s := a.Stats()
	fmt.Fprintf(w, "%s: %d ops, %d OOMs; allocated %s (peak %s), reserved %s (peak %s), %d device allocs, %d retries\n",
		t.Path, len(t.Ops), ooms,
		allocator.FormatSize(uint64(s.AllocatedBytes[0].Current)), allocator.FormatSize(uint64(s.AllocatedBytes[0].Peak)),
		allocator.FormatSize(uint64(s.ReservedBytes[0].Current)), allocator.FormatSize(uint64(s.ReservedBytes[0].Peak)),
		s.NumDeviceAlloc, s.NumAllocRetries)
	if table {
		fmt.Fprint(w, s.Summary(0, false))
	}
	return nil
}

// timeOne replays t repeatedly on one allocator, the first run untimed:
// the cache is warm, as for PyTorch's own figures.
func timeOne(w io.Writer, t *trace.Trace, o trace.Options) error {
	a, err := trace.Setup(t, o)
	if err != nil {
		return err
	}
	defer a.Close()
	r := newReplayer(t, a, o)
	var runs []time.Duration
	deadline := time.Now().Add(2 * time.Second)
	for n := 0; n <= 5 || (n <= 50 && time.Now().Before(deadline)); n++ {
		start := time.Now()
		if err := r.Run(nil); err != nil {
			return err
		}
		if n > 0 {
			runs = append(runs, time.Since(start))
		}
		if err := r.Rewind(); err != nil {
			return err
		}
	}
	slices.Sort(runs)
	med := runs[len(runs)/2]
	fmt.Fprintf(w, "%s: %d ops, %.1f ns/op (median of %d runs)\n", t.Path, len(t.Ops), float64(med.Nanoseconds())/float64(len(t.Ops)), len(runs))
	return nil
}

// openCUDA opens GPU 0 through the CUDA driver.
func openCUDA() (*cuda.Device, error) {
	drv, err := cuda.Load()
	if err != nil {
		return nil, err
	}
	return drv.Open(0)
}

// newReplayer is a Replayer for t on a with the options' progress hook.
func newReplayer(t *trace.Trace, a *allocator.Allocator, o trace.Options) *trace.Replayer {
	r := trace.NewReplayer(t, a)
	r.Progress = o.Progress
	return r
}
