// Package diff compares two allocator histories: two snapshots, two
// traces, or one history replayed under two configurations. Each side
// is replayed through the caching allocator and measured: peak and
// final allocated and reserved memory, segments, fragmentation, and its
// allocations grouped by size class and, where its history recorded
// stacks, by category and by stack frame, each group with the bytes it
// held at the peak.
package diff

import (
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// Source is one history to measure: a trace, and the snapshot it was
// prepared from (nil for an ops trace), whose events carry the stacks.
type Source struct {
	Name     string
	Trace    *trace.Trace
	Snapshot *snapshot.Replay
	// Categories, for a script run in the tool, is what each of its
	// allocations was for, in the order made: the tool's own categories
	// (parameters, gradients, ...), which it knows where a recording's
	// are told from its stacks; nil for a recording.
	Categories []string
	// Lines are a script's source lines, for a script run in the tool: a
	// frame of the script itself is named by its function and its line's
	// text, so that two versions of a script match where lines moved.
	Lines []string
}

// Run is one side of a diff: one history replayed under one
// configuration.
type Run struct {
	Name   string `json:"name"`
	Config string `json:"config"` // the PYTORCH_CUDA_ALLOC_CONF replayed under; "default" for PyTorch's
	Ops    int    `json:"ops"`
	// Notes says what of a snapshot's recording the replay leaves out
	// or changes (a history that began late, say); empty when nothing.
	Notes string `json:"notes,omitempty"`
	// Estimated, for a script's side, says how its figures rest on
	// estimates (the statements in which an op followed a general rule
	// instead of a recorded one, and the first); empty when they are
	// exact, as a recording's always are.
	Estimated string `json:"estimated,omitempty"`

	PeakAllocated  int64 `json:"peak_allocated_bytes"`
	FinalAllocated int64 `json:"final_allocated_bytes"`
	PeakReserved   int64 `json:"peak_reserved_bytes"`
	FinalReserved  int64 `json:"final_reserved_bytes"`
	// PeakSegments and FinalSegments are memory_stats()' segment
	// counts, which leave out expandable segments (as PyTorch's do);
	// SnapshotSegments counts the segments of memory_snapshot() at the
	// end, an expandable segment's mapped runs too.
	PeakSegments     int64 `json:"peak_segments"`
	FinalSegments    int64 `json:"final_segments"`
	SnapshotSegments int   `json:"snapshot_segments"`
	// Fragmentation is 1 - peak active / peak reserved: the share of
	// the most memory reserved that live blocks never covered.
	Fragmentation float64 `json:"fragmentation"`
	DeviceAllocs  int64   `json:"device_allocs"`
	OOMs          int     `json:"ooms"`

	// SizeClasses groups the allocations by requested size.
	SizeClasses []Group `json:"size_classes"`
	// Categories groups them by what they were for: for a script run
	// in the tool, the tool's own categories; for a recording, what its
	// stacks say (empty when it recorded no stacks, or when its stacks
	// say nothing of any).
	Categories []Group `json:"categories"`
	// Frames groups them by the innermost frame of the program's own
	// code (outside torch), the largest at the peak first; empty when
	// the history recorded no stacks.
	Frames []Group `json:"frames"`
}

// Group is some of a history's allocations: how many were made, the
// bytes they asked for in all, and the bytes of them live when the
// requested bytes peaked.
type Group struct {
	Name   string `json:"name"`
	Count  int    `json:"count"`
	Bytes  uint64 `json:"bytes"`
	AtPeak uint64 `json:"bytes_at_peak"`
}

// Measure replays s under o and measures it, keeping the top frames
// (all when top is 0).
func Measure(s Source, o trace.Options, top int) (Run, error) {
	t := s.Trace
	conf := o.Conf(t)
	if conf == "" {
		conf = "default"
	}
	r := Run{Name: s.Name, Config: conf, Ops: len(t.Ops), Notes: strings.TrimSuffix(strings.TrimPrefix(s.Snapshot.Notes(), " ("), ")")}
	if err := r.figures(t, o); err != nil {
		return Run{}, err
	}
	var events []snapshot.Event
	var err error
	if s.Snapshot != nil {
		events, _, err = s.Snapshot.Record(o)
	} else {
		events, _, err = snapshot.Record(t, o)
	}
	if err != nil {
		return Run{}, err
	}
	r.SizeClasses, r.Categories, r.Frames = group(events, top, s.Categories, s.Lines)
	return r, nil
}

// figures replays t under o and takes the run's memory_stats()
// figures.
func (r *Run) figures(t *trace.Trace, o trace.Options) error {
	a, err := trace.Setup(t, o)
	if err != nil {
		return err
	}
	defer a.Close()
	err = trace.NewReplayer(t, a).Run(func(_ int, oom error) error {
		if oom != nil {
			r.OOMs++
		}
		return nil
	})
	if err != nil {
		return err
	}
	s := a.Stats()
	r.PeakAllocated, r.FinalAllocated = s.AllocatedBytes[0].Peak, s.AllocatedBytes[0].Current
	r.PeakReserved, r.FinalReserved = s.ReservedBytes[0].Peak, s.ReservedBytes[0].Current
	r.PeakSegments, r.FinalSegments = s.Segment[0].Peak, s.Segment[0].Current
	if r.PeakReserved > 0 {
		r.Fragmentation = 1 - float64(s.ActiveBytes[0].Peak)/float64(r.PeakReserved)
	}
	r.DeviceAllocs = s.NumDeviceAlloc
	r.SnapshotSegments = len(a.Snapshot())
	return nil
}
