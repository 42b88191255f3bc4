package explain

import "github.com/gpumemrepl/gpumemrepl/allocator/trace"

// Result is what a whole replay of the history under one change did.
type Result struct {
	Change Change `json:"change"`
	// Conf is the PYTORCH_CUDA_ALLOC_CONF it ran under; TotalBytes the
	// device's size (0: the history's own).
	Conf       string `json:"alloc_conf"`
	TotalBytes uint64 `json:"total_bytes,omitempty"`
	// Avoids reports whether no allocation ran out of memory.
	Avoids bool `json:"avoids_oom"`
	// FirstOOM is the first allocation that did (its op as in the
	// history as recorded).
	FirstOOM *trace.OOM `json:"first_oom"`
	// PastRecordedOOM is the ordinal of an allocation that raised
	// out-of-memory in the recording and succeeds here: past it the
	// replay runs what the program did after its own error (see
	// trace.OOMWatch).
	PastRecordedOOM *int  `json:"past_recorded_oom,omitempty"`
	PeakReserved    int64 `json:"peak_reserved_bytes"`
	PeakAllocated   int64 `json:"peak_allocated_bytes"`
	// Error is the allocator's refusal of the settings, when it refused.
	Error string `json:"error,omitempty"`
}

func result(c Change, conf string, r run) Result {
	return Result{Change: c, Conf: conf, Avoids: r.first == nil, FirstOOM: r.first, PastRecordedOOM: r.pastRecorded,
		PeakReserved: r.peakReserved, PeakAllocated: r.peakAllocated}
}

// Diagnosis is why a history ran out of memory (or where it peaked)
// and what each candidate change does.
type Diagnosis struct {
	Cause Cause `json:"cause"`
	// Conf is the history's own PYTORCH_CUDA_ALLOC_CONF.
	Conf string `json:"alloc_conf"`
	At   Point  `json:"at"`
	// DeficitBytes is, for LiveTensors and Fraction, by how much the
	// live blocks and the request exceed what the process could hold.
	DeficitBytes uint64 `json:"deficit_bytes,omitempty"`
	// AllocsAfter counts the history's allocations after the op
	// explained: none, and a fix is proven only up to the failing
	// allocation.
	AllocsAfter int `json:"allocations_after"`
	// Holders are the largest holders of live blocks at the point.
	Holders []Holder `json:"holders"`
	// Categories are the live blocks at the point by what they are for,
	// largest first, where the history tells (Input.Category); their
	// bytes add up to the live blocks'.
	Categories []Holder `json:"categories,omitempty"`
	// Pinned are the segments whose live blocks keep free memory from
	// the driver there.
	Pinned []Pinned `json:"pinned_segments"`
	// Recorded is the history replayed under its own settings.
	Recorded   Result   `json:"as_recorded"`
	Candidates []Result `json:"candidates"`
	// Fix is the first candidate (the smallest change) that avoids the
	// error; nil when none does or there was no error.
	Fix *Result `json:"fix"`
	// Lowest is, for a history without an out-of-memory error, the
	// candidate with the lowest peak reserved, when it is lower than the
	// history's own; nil otherwise.
	Lowest *Result `json:"lowest_peak,omitempty"`
	// NoSettingAvoids reports an error that no allocator setting and no
	// empty_cache() call avoids (only a larger GPU may).
	NoSettingAvoids bool `json:"no_setting_avoids"`
}

// choose picks the fix: the first candidate that avoids the error; for
// a history without one, the candidate that peaks lowest.
func (d *Diagnosis) choose() {
	if d.Cause == NoOOM {
		for i := range d.Candidates {
			c := &d.Candidates[i]
			if c.Error == "" && c.Avoids && c.PeakReserved < d.Recorded.PeakReserved && (d.Lowest == nil || c.PeakReserved < d.Lowest.PeakReserved) {
				d.Lowest = c
			}
		}
		return
	}
	d.NoSettingAvoids = true
	for i := range d.Candidates {
		c := &d.Candidates[i]
		if !c.Avoids {
			continue
		}
		if d.Fix == nil {
			d.Fix = c
		}
		if c.Change.GPU == nil {
			d.NoSettingAvoids = false
		}
	}
}
