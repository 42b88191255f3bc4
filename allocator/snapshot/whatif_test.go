package snapshot

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/device/sim"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// whatIfDir holds scripts/record_whatif.py's runs on the GPU machine:
// two programs under six configs and three limits, each a snapshot and
// the real outcome.
const whatIfDir = "../../testdata/whatif"

// outcome is what PyTorch really did in one run.
type outcome struct {
	Name           string  `json:"-"`
	Program        string  `json:"program"`
	AllocConf      string  `json:"alloc_conf"`
	MemoryFraction float64 `json:"memory_fraction"`
	TotalMemory    uint64  `json:"total_memory"`
	FirstOOM       *struct {
		Allocation     int    `json:"allocation"`
		RequestedBytes uint64 `json:"requested_bytes"`
		Message        string `json:"message"`
	} `json:"first_oom"`
	replay *Replay
}

// lastAllocation is the ordinal of the run's last allocation: the OOM
// that ended it, or -1 for a run that did not end in one.
func (o *outcome) lastAllocation() int {
	if o.FirstOOM == nil {
		return -1
	}
	return o.FirstOOM.Allocation
}

// options replay a history on the run's device under its config and limit.
func (o *outcome) options() trace.Options {
	conf, limit := o.AllocConf, uint64(o.MemoryFraction*float64(o.TotalMemory))
	return trace.Options{AllocConf: &conf, LimitBytes: &limit, TotalBytes: o.TotalMemory}
}

// loadOutcomes reads the recordings; with resolve, the releases the
// event order leaves open are decided at each run's own limit.
func loadOutcomes(t *testing.T, resolve bool) []*outcome {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(whatIfDir, "*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no recordings in %s: %v", whatIfDir, err)
	}
	var out []*outcome
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		o := &outcome{Name: strings.TrimSuffix(filepath.Base(p), ".json")}
		if err := json.Unmarshal(b, o); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		s, err := Load(strings.TrimSuffix(p, ".json") + ".pickle.gz")
		if err != nil {
			t.Fatal(err)
		}
		if o.replay, err = s.Prepare(o.Name); err != nil {
			t.Fatal(err)
		}
		if resolve {
			if err := o.replay.Resolve(o.options()); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, o)
	}
	return out
}

// whatIf replays a history under o's config and limit, on a device of
// its size (the simulated one, its own addresses), and watches it.
func whatIf(t *testing.T, r *Replay, o *outcome) *trace.OOMWatch {
	t.Helper()
	a, err := trace.Setup(r.Trace, o.options())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	w := trace.NewOOMWatch(r.Trace)
	if err := trace.NewReplayer(r.Trace, a).Run(w.Op); err != nil {
		t.Fatal(err)
	}
	return w
}

// Each history, replayed under its own config and limit with none of its
// allocator's own releases, makes every recorded segment allocation and
// release itself, in order, and fails where PyTorch failed: the releases
// left out were the allocator's, and those replayed the program's.
func TestWhatIfOwnHistory(t *testing.T) {
	for _, o := range loadOutcomes(t, true) {
		r := o.replay
		log := NewSegmentLog(r.NewPlayback(sim.New(o.TotalMemory)))
		opts := o.options()
		opts.Device = log
		a, err := trace.Setup(r.Trace, opts)
		if err != nil {
			t.Fatal(err)
		}
		w := trace.NewOOMWatch(r.Trace)
		if err := trace.NewReplayer(r.Trace, a).Run(w.Op); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(log.Events, r.SegmentEvents) {
			t.Errorf("%s: %d segment events, recorded %d; first difference at %d", o.Name, len(log.Events), len(r.SegmentEvents), firstDifference(log.Events, r.SegmentEvents))
		}
		a.Close() //nolint:errcheck // a simulated device
		if got := w.First; (got == nil) != (o.FirstOOM == nil) || got != nil && got.Allocation != o.FirstOOM.Allocation {
			t.Errorf("%s: first OOM %+v, PyTorch's %+v", o.Name, got, o.FirstOOM)
		}
		if o.Program == "train" && r.Releases.User > 0 {
			t.Errorf("%s: %d releases taken for empty_cache calls the program never made", o.Name, r.Releases.User)
		}
	}
}

func firstDifference(a, b []SegmentEvent) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// The what-if replay of any run's history under any other run's config
// and limit (the same program) predicts that run's first OOM (the same
// allocation, size and message) or its absence. A history ends at its
// own first OOM, as the program did: where the other run got further,
// the replay cannot see past the end, and must say where it left the
// recording (the allocation that failed there succeeds). PyTorch records
// a failed allocation with its rounded size: under roundup_power2_divisions
// that is more than the program asked for, and the same request under
// another rounding is not known; there only the ordinal is compared.
func TestWhatIfPredictsOtherConfigs(t *testing.T) {
	runs := loadOutcomes(t, true)
	checkPairs(t, runs)
	// From the event order alone: the program without empty_cache calls,
	// where every open release is the allocator's, as the replay takes it.
	var train []*outcome
	for _, o := range loadOutcomes(t, false) {
		if o.Program == "train" {
			train = append(train, o)
		}
	}
	checkPairs(t, train)
}

// checkPairs checks the what-if of every run's history under every other
// run of the same program.
func checkPairs(t *testing.T, runs []*outcome) {
	t.Helper()
	exact, beyond, unknownSize := 0, 0, 0
	for _, a := range runs {
		end := a.lastAllocation()
		lost := end >= 0 && roundUp(a.FirstOOM.RequestedBytes, 512) != a.replay.Trace.Ops[failedOp(a.replay.Trace)].Size
		for _, b := range runs {
			if a.Program != b.Program {
				continue
			}
			w := whatIf(t, a.replay, b)
			got, want := w.First, b.FirstOOM
			switch {
			case end >= 0 && (want == nil || want.Allocation > end):
				if lost && got != nil && got.Allocation == end {
					unknownSize++ // the bigger recorded size failed where the real request passed
					continue
				}
				beyond++
				if got != nil || w.PastRecorded == nil || *w.PastRecorded != end {
					t.Errorf("%s's history under %s: first OOM %+v, past the recording at %v; the history ends at allocation %d, which %s passed", a.Name, b.Name, got, w.PastRecorded, end, b.Name)
				}
			case got == nil && want == nil:
				exact++
			case got == nil || want == nil || got.Allocation != want.Allocation:
				t.Errorf("%s's history under %s: first OOM %+v, PyTorch's %+v", a.Name, b.Name, got, want)
			case want.Allocation == end && lost:
				unknownSize++
			case got.RequestedBytes != want.RequestedBytes && (want.Allocation != end || got.RequestedBytes != roundUp(want.RequestedBytes, 512)):
				t.Errorf("%s's history under %s: first OOM asks for %d bytes, PyTorch's for %d", a.Name, b.Name, got.RequestedBytes, want.RequestedBytes)
			case trace.NormalizeOOM(got.Message) != trace.NormalizeOOM(want.Message):
				t.Errorf("%s's history under %s: message\n%s\nPyTorch's\n%s", a.Name, b.Name, got.Message, want.Message)
			default:
				exact++
			}
		}
	}
	t.Logf("%d runs: %d pairs predicted exactly; %d where the history ends before the other run's first OOM; %d at a failed allocation whose request the recording rounded", len(runs), exact, beyond, unknownSize)
	if exact == 0 {
		t.Error("no pair could be compared")
	}
}

// failedOp is the index of the trace's last op, the allocation that
// failed and ended the program.
func failedOp(t *trace.Trace) int {
	for i := len(t.Ops) - 1; i >= 0; i-- {
		if t.Ops[i].OOM {
			return i
		}
	}
	return 0
}
