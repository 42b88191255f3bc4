package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
	"github.com/gpumemrepl/gpumemrepl/repl"
	"github.com/gpumemrepl/gpumemrepl/repl/plot"
)

// checkSnapshot replays a snapshot and compares it with what the
// recording saw: each allocation that raised out-of-memory, the segments
// allocated and freed in order (sizes), and the final segments and
// blocks.
func checkSnapshot(w io.Writer, r *snapshot.Replay, o trace.Options) error {
	dev := o.Device
	if dev == nil {
		dev = r.NewPlayback(trace.NewDevice(r.Trace, o))
	}
	log := snapshot.NewSegmentLog(dev)
	o.Device = log
	t := r.Trace
	a, err := trace.Setup(t, o)
	if err != nil {
		return err
	}
	defer a.Close()
	var first string
	rp := newReplayer(t, a, o)
	err = rp.Run(func(i int, oom error) error {
		if (oom != nil) != t.Ops[i].OOM {
			first = fmt.Sprintf("op %d (alloc of %d bytes): recorded out-of-memory %v, replay %v", i, t.Ops[i].Size, t.Ops[i].OOM, oom != nil)
			return errMismatch
		}
		return nil
	})
	if err != nil && !errors.Is(err, errMismatch) {
		return err
	}
	if first == "" {
		first = firstSegmentMismatch(r.SegmentEvents, log.Events[min(r.Preloaded, len(log.Events)):])
	}
	if first == "" {
		if err := r.LeavePending(a, rp.Live); err != nil {
			return err
		}
		got, want := trace.Layout(a), r.Final
		if !r.WithRequested || r.Preloaded > 0 {
			// without requested sizes, or with blocks from before the
			// recording, whose requests it never saw
			got, want = snapshot.WithoutRequested(got), snapshot.WithoutRequested(want)
		}
		if m := trace.CompareLayout(len(t.Ops)-1, want, got); m != nil {
			first = "the final segments: " + m.String()
		}
	}
	note := r.Notes()
	if first != "" && o.LimitBytes == nil && r.Releases.Own+r.Releases.Unattributed > 0 {
		note += " (its allocator released segments on its own, at a limit a snapshot does not record: give it with --limit-bytes)"
	}
	if first != "" {
		fmt.Fprintf(w, "FAIL %s: %d ops, first mismatch at %s%s\n", t.Path, len(t.Ops), first, note)
		return errMismatch
	}
	fmt.Fprintf(w, "ok   %s: %d ops, %d segment events in order and the final %d segments match%s\n", t.Path, len(t.Ops), len(r.SegmentEvents), len(r.Final), note)
	return nil
}

// firstSegmentMismatch compares the recorded segment events with the
// replay's, up to the recorded ones (the replay's own end is not
// recorded).
func firstSegmentMismatch(want, got []snapshot.SegmentEvent) string {
	for i, e := range want {
		if i >= len(got) {
			return fmt.Sprintf("segment event %d: want %s, got none", i, e)
		}
		if got[i] != e {
			return fmt.Sprintf("segment event %d: want %s, got %s", i, e, got[i])
		}
	}
	if len(got) > len(want) {
		return fmt.Sprintf("segment event %d: want none, got %s", len(want), got[len(want)])
	}
	return ""
}

// configResult is one row of --compare.
type configResult struct {
	Config        string  `json:"config"`
	PeakReserved  int64   `json:"peak_reserved_bytes"`
	FinalReserved int64   `json:"final_reserved_bytes"`
	PeakAllocated int64   `json:"peak_allocated_bytes"`
	Fragmentation float64 `json:"fragmentation"` // 1 - peak active / peak reserved
	DeviceAllocs  int64   `json:"device_allocs"`
	Retries       int64   `json:"retries"`
	FirstOOMOp    *int    `json:"first_oom_op"`
	// FirstOOM is the first allocation that raised out-of-memory: its op,
	// its ordinal among the program's allocations, its requested size and
	// the message.
	FirstOOM *trace.OOM `json:"first_oom"`
	// PastRecordedOOM is the ordinal of the first allocation that raised
	// out-of-memory in the recording and succeeds here (see
	// trace.OOMWatch).
	PastRecordedOOM *int   `json:"past_recorded_oom,omitempty"`
	Error           string `json:"error,omitempty"`
}

// compareConfigs replays t under each config and prints one table (or
// one JSON object per config); notes says what the replay leaves out of
// a snapshot's history.
func compareConfigs(w io.Writer, t *trace.Trace, notes string, o trace.Options, confs []string, asJSON bool) error {
	var rows []configResult
	for _, c := range confs {
		conf := c
		if c == "default" {
			conf = ""
		}
		o.AllocConf = &conf
		row := configResult{Config: c}
		a, err := trace.Setup(t, o)
		if err != nil {
			row.Error = err.Error()
			rows = append(rows, row)
			continue
		}
		watch := trace.NewOOMWatch(t)
		err = newReplayer(t, a, o).Run(watch.Op)
		s := a.Stats()
		a.Close() //nolint:errcheck // the figures are taken
		if err != nil {
			return err
		}
		row.PeakReserved, row.FinalReserved = s.ReservedBytes[0].Peak, s.ReservedBytes[0].Current
		row.PeakAllocated = s.AllocatedBytes[0].Peak
		if row.PeakReserved > 0 {
			row.Fragmentation = 1 - float64(s.ActiveBytes[0].Peak)/float64(row.PeakReserved)
		}
		row.DeviceAllocs, row.Retries = s.NumDeviceAlloc, s.NumAllocRetries
		row.FirstOOM, row.PastRecordedOOM = watch.First, watch.PastRecorded
		if watch.First != nil {
			row.FirstOOMOp = &watch.First.Op
		}
		rows = append(rows, row)
	}
	if asJSON {
		for _, r := range rows {
			b, _ := json.Marshal(r)
			fmt.Fprintf(w, "%s\n", b)
		}
		return nil
	}
	fmt.Fprintf(w, "%s: %d ops%s\n", t.Path, len(t.Ops), notes)
	writeCompareTables(w, rows)
	for _, r := range rows {
		if r.PastRecordedOOM != nil {
			fmt.Fprintf(w, "%s: allocation %d raised out-of-memory in the recording and succeeds here; past it the replay runs what the program did after its own OOM\n", r.Config, *r.PastRecordedOOM)
		}
	}
	return nil
}

// writeCompareTables prints the configs' replays in two tables that fit
// 80 columns with configs of up to 32 characters
// (garbage_collection_threshold:0.6): the memory, then the driver's
// work and the first OOM.
func writeCompareTables(w io.Writer, rows []configResult) {
	width, sizes := len("config"), len("allocated")
	for _, r := range rows {
		width = max(width, len(r.Config))
		for _, n := range []int64{r.PeakReserved, r.FinalReserved, r.PeakAllocated} {
			sizes = max(sizes, len(allocator.FormatSize(uint64(n))))
		}
	}
	fmt.Fprintf(w, "%-*s  %*s  %*s  %*s  %9s\n", width, "", sizes, "peak", sizes, "final", sizes, "peak", "frag-")
	fmt.Fprintf(w, "%-*s  %*s  %*s  %*s  %9s\n", width, "config", sizes, "reserved", sizes, "reserved", sizes, "allocated", "mentation")
	for _, r := range rows {
		if r.Error != "" {
			fmt.Fprintf(w, "%-*s  %s\n", width, r.Config, r.Error)
			continue
		}
		fmt.Fprintf(w, "%-*s  %*s  %*s  %*s  %8.1f%%\n", width, r.Config, sizes, allocator.FormatSize(uint64(r.PeakReserved)),
			sizes, allocator.FormatSize(uint64(r.FinalReserved)), sizes, allocator.FormatSize(uint64(r.PeakAllocated)), 100*r.Fragmentation)
	}
	fmt.Fprintf(w, "\n%-*s  %13s  %7s  %s\n", width, "config", "device allocs", "retries", "first OOM")
	for _, r := range rows {
		if r.Error != "" {
			continue
		}
		oom := "-"
		if r.FirstOOM != nil {
			oom = fmt.Sprintf("op %d, %s", r.FirstOOM.Op, allocator.FormatSize(r.FirstOOM.RequestedBytes))
		}
		fmt.Fprintf(w, "%-*s  %13d  %7d  %s\n", width, r.Config, r.DeviceAllocs, r.Retries, oom)
	}
}

// exportSnapshot replays t and writes what happened as a PyTorch
// snapshot: the device trace (allocations, frees, segment events) and
// the segments at the end; from a snapshot (snap), with its stacks,
// times and every field the replay does not model.
func exportSnapshot(w output, t *trace.Trace, snap *snapshot.Replay, o trace.Options, path string) error {
	var file *snapshot.File
	if snap != nil {
		var err error
		if file, err = snap.Export(o); err != nil {
			return err
		}
	} else {
		events, segs, err := snapshot.Record(t, o)
		if err != nil {
			return err
		}
		file = &snapshot.File{Device: t.Device, Segments: segs, Events: events, AllocConf: o.Conf(t)}
	}
	if err := file.Save(path, w.stdout); err != nil {
		return err
	}
	fmt.Fprintf(w.noteFor(path), "%s: %d ops, %d events and %d segments written to %s\n", t.Path, len(t.Ops), len(file.Events), len(file.Segments), w.name(path))
	return nil
}

// snapshotProblems says what a snapshot file holds that is contradictory
// or unknown: under --check the first is the error, otherwise each is a
// warning.
func snapshotProblems(stderr io.Writer, path string, problems []snapshot.Problem, check bool) error {
	if len(problems) > 0 && check {
		more := ""
		if len(problems) > 1 {
			more = fmt.Sprintf(" (and %d more)", len(problems)-1)
		}
		return fmt.Errorf("%s%s", problems[0], more)
	}
	for _, p := range problems {
		fmt.Fprintf(stderr, "%s: warning: %s\n", path, p)
	}
	return nil
}

// plotReplay replays t and writes its HTML page: allocated and reserved
// after every op, each allocation over its ops (from a snapshot, with
// its stack, and what it was for as far as the stack tells), the
// segments at the end.
func plotReplay(w output, t *trace.Trace, snap *snapshot.Replay, o trace.Options, path string) error {
	a, err := trace.Setup(t, o)
	if err != nil {
		return err
	}
	defer a.Close()
	steps := make([]plot.Step, 0, len(t.Ops))
	err = newReplayer(t, a, o).Run(func(i int, oom error) error {
		op := t.Ops[i]
		label := fmt.Sprintf("op %d: %s", i, op.Op)
		if op.Op == "alloc" {
			label += fmt.Sprintf(" %d bytes", op.Size)
		}
		if oom != nil {
			label += " (out of memory)"
		}
		st := a.Stats()
		steps = append(steps, plot.Step{Label: label, Allocated: uint64(st.AllocatedBytes[0].Current), Reserved: uint64(st.ReservedBytes[0].Current), Mark: i + 1})
		return nil
	})
	if err != nil {
		return err
	}
	p := plot.Page{Title: "gpumemrepl replay " + t.Path, Steps: steps, Events: len(t.Ops), Segments: a.Snapshot(), SegmentsAt: "after the last op", Categories: repl.FrameCategories}
	p.Allocs = repl.ReplayAllocs(t, snap)
	if snap != nil {
		p.Note = "A snapshot says no category: each allocation's is told from its stack (made under torch/optim, or under autograd's backward), an estimate."
	}
	err = plot.Save(path, w.stdout, p)
	if err == nil {
		fmt.Fprintf(w.noteFor(path), "%s: %d ops plotted to %s\n", t.Path, len(t.Ops), w.name(path))
	}
	return err
}
