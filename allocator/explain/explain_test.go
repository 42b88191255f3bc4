package explain

import (
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/device/sim"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// ops makes a history from alloc ("a ID SIZE") and free ("f ID") words.
func ops(t *testing.T, words ...any) *trace.Trace {
	t.Helper()
	var out []trace.Op
	for i := 0; i < len(words); {
		switch words[i] {
		case "a":
			out = append(out, trace.Op{Op: "alloc", ID: words[i+1].(int), Size: words[i+2].(uint64)})
			i += 3
		case "f":
			out = append(out, trace.Op{Op: "free", ID: words[i+1].(int)})
			i += 2
		default:
			t.Fatalf("bad word %v", words[i])
		}
	}
	tr, err := trace.New("test", "", out)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

const mib = allocator.MiB

// limitOf is 1% of the H200, as scripts/oom_fragmentation.gpumem sets.
func limitOf(fraction float64) *uint64 {
	l := uint64(fraction * float64(sim.H200Total))
	return &l
}

// fragmentation is scripts/oom_fragmentation.gpumem's history: a and b
// carved from x's cached segment, a freed, a request larger than the
// free piece while b pins the segment.
func fragmentation(t *testing.T) Input {
	tr := ops(t, "a", 0, uint64(1200*mib), "f", 0, "a", 1, uint64(500*mib), "a", 2, uint64(600*mib), "f", 1, "a", 3, uint64(800*mib))
	return Input{Trace: tr, Options: trace.Options{LimitBytes: limitOf(0.01)}}
}

func TestFragmentationIsFixedByExpandableSegments(t *testing.T) {
	d, err := Explain(fragmentation(t))
	if err != nil {
		t.Fatal(err)
	}
	if d.Cause != Fragmentation {
		t.Errorf("cause %s, want fragmentation", d.Cause)
	}
	if d.At.Op != 5 || d.At.RequestedBytes != 800*mib {
		t.Errorf("at op %d asking %d, want op 5 asking 800 MiB", d.At.Op, d.At.RequestedBytes)
	}
	if d.At.LargestFreeBytes != 500*mib || d.At.CachedFreeBytes != 600*mib {
		t.Errorf("largest free %d, cached free %d; want 500 MiB and 600 MiB", d.At.LargestFreeBytes, d.At.CachedFreeBytes)
	}
	if len(d.Pinned) != 1 || d.Pinned[0].AllocBytes != 600*mib {
		t.Errorf("pinned %+v, want the one segment b holds", d.Pinned)
	}
	if d.Fix == nil || strings.Join(d.Fix.Change.Settings, ",") != "expandable_segments:True" || d.Fix.Change.EmptyCacheBefore != nil {
		t.Fatalf("fix %+v, want expandable_segments:True", d.Fix)
	}
	if d.Recorded.Avoids || d.Candidates[0].Avoids {
		t.Errorf("as recorded or with empty_cache() the history must still fail: %+v, %+v", d.Recorded, d.Candidates[0])
	}
	if d.Fix.PeakReserved > int64(*fragmentation(t).Options.LimitBytes) {
		t.Errorf("the fix reserves %d, past the limit", d.Fix.PeakReserved)
	}
	var b strings.Builder
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Cause: fragmentation", "Fix: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True avoids"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}
