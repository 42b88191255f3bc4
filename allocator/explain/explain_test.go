// Tests of an OOM explained with a fix. No recording is the oracle here:
// the histories are built by hand (some as scripts/oom_*.gpumem make
// them) and replayed by the allocator, whose own oracle is the recorded
// traces (see package allocator's tests); the tests check the cause
// found and that the fix proposed, replayed, fits.
package explain

import (
	"encoding/json"
	"slices"
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
	if c := d.Candidates[0]; c.Change.EmptyCacheBefore == nil || *c.Change.EmptyCacheBefore != 5 || c.FirstOOM == nil || c.FirstOOM.Op != 5 {
		t.Errorf("empty_cache() goes just after the last free, before op 5, and the OOM keeps its op: %+v", c)
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

// twoBlocks is a history of two 600 MiB blocks, both kept.
func twoBlocks(t *testing.T) *trace.Trace {
	return ops(t, "a", 0, uint64(600*mib), "a", 1, uint64(600*mib))
}

// On a 1 GiB device the two blocks cannot both live: no setting helps,
// by 1200 MiB less what the device holds; a larger GPU does, and the
// fix says what of its replay is an estimate.
func TestLiveTensorsExceedTheDevice(t *testing.T) {
	in := Input{Trace: twoBlocks(t), Options: trace.Options{TotalBytes: 1024 * mib}}
	d, err := Explain(in)
	if err != nil {
		t.Fatal(err)
	}
	if d.Cause != LiveTensors || !d.NoSettingAvoids || d.Fix != nil {
		t.Fatalf("cause %s, no setting avoids %v, fix %+v; want live tensors, no fix", d.Cause, d.NoSettingAvoids, d.Fix)
	}
	if d.DeficitBytes != 1200*mib-1024*mib {
		t.Errorf("deficit %d, want %d", d.DeficitBytes, 1200*mib-1024*mib)
	}
	if len(d.Holders) != 1 || d.Holders[0].Label != "op 0" || d.Holders[0].Bytes != 600*mib {
		t.Errorf("holders %+v, want op 0's 600 MiB", d.Holders)
	}
	in.GPUs = []GPU{{"small", 512 * mib, ""}, {"big", 4096 * mib, "its total a published figure"}, {"bigger", 8192 * mib, ""}}
	if d, err = Explain(in); err != nil {
		t.Fatal(err)
	}
	if d.Fix == nil || d.Fix.Change.GPU == nil || d.Fix.Change.GPU.Name != "big" || !d.NoSettingAvoids {
		t.Errorf("fix %+v; want the next larger GPU, big, and still no setting", d.Fix)
	}
	var b strings.Builder
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"No allocator setting avoids it: the live tensors exceed what the device can give by 176.00 MiB.",
		"Fix: a big (4.00 GiB) with the same settings avoids", "; estimated: its total a published figure.\n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}

// Under a 1 GiB limit on a 4 GiB device it is the fraction that refuses.
func TestFractionRefuses(t *testing.T) {
	limit := uint64(1024 * mib)
	d, err := Explain(Input{Trace: twoBlocks(t), Options: trace.Options{TotalBytes: 4096 * mib, LimitBytes: &limit}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Cause != Fraction || d.DeficitBytes != 1200*mib-limit || !d.NoSettingAvoids {
		t.Errorf("cause %s, deficit %d, no setting %v; want fraction, %d, true", d.Cause, d.DeficitBytes, d.NoSettingAvoids, 1200*mib-limit)
	}
}

// Memory cached for stream 1 in a segment a live block pins cannot serve
// stream 0.
func TestOtherStream(t *testing.T) {
	tr, err := trace.New("streams", "", []trace.Op{
		{Op: "alloc", ID: 0, Size: 800 * mib, Stream: 1}, {Op: "free", ID: 0, Stream: 1},
		{Op: "alloc", ID: 1, Size: 100 * mib, Stream: 1}, {Op: "alloc", ID: 2, Size: 500 * mib},
	})
	if err != nil {
		t.Fatal(err)
	}
	limit := uint64(1024 * mib)
	d, err := Explain(Input{Trace: tr, Options: trace.Options{TotalBytes: 4096 * mib, LimitBytes: &limit}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Cause != OtherStream || d.At.OtherStreamFreeBytes != 700*mib || d.At.StreamFreeBytes != 0 {
		t.Errorf("cause %s, other streams' free %d, this stream's %d; want other_stream, 700 MiB, 0", d.Cause, d.At.OtherStreamFreeBytes, d.At.StreamFreeBytes)
	}
}

// A history that never runs out of memory is explained at its peak, and
// has no fix to give.
func TestNoOOMIsExplainedAtThePeak(t *testing.T) {
	tr := ops(t, "a", 0, uint64(100*mib), "a", 1, uint64(300*mib), "f", 1, "a", 2, uint64(50*mib))
	d, err := Explain(Input{Trace: tr})
	if err != nil {
		t.Fatal(err)
	}
	if d.Cause != NoOOM || d.Fix != nil || d.At.Op != 1 || d.At.ReservedBytes != 400*mib {
		t.Errorf("cause %s, fix %+v, at op %d with %d reserved; want none at op 1 with 400 MiB", d.Cause, d.Fix, d.At.Op, d.At.ReservedBytes)
	}
	if len(d.Holders) != 2 || d.Holders[0].Label != "op 1" {
		t.Errorf("holders %+v, want op 1's then op 0's", d.Holders)
	}
	// No candidate peaks lower: expandable segments reach the same 400
	// MiB, a max_split_size_mb more.
	if d.Lowest != nil {
		t.Errorf("lowest %+v, want none lower than as recorded", d.Lowest)
	}
}

// Without an error, the candidate that peaks lowest is named: here
// empty_cache() gives the freed 300 MiB segment back before the 350 MiB
// request takes a new one.
func TestNoOOMNamesTheLowestPeak(t *testing.T) {
	tr := ops(t, "a", 0, uint64(300*mib), "a", 1, uint64(100*mib), "f", 0, "a", 2, uint64(350*mib))
	d, err := Explain(Input{Trace: tr})
	if err != nil {
		t.Fatal(err)
	}
	if d.Cause != NoOOM || d.Lowest == nil || d.Lowest.Change.EmptyCacheBefore == nil || d.Lowest.PeakReserved >= d.Recorded.PeakReserved {
		t.Fatalf("lowest %+v, as recorded peaks at %d", d.Lowest, d.Recorded.PeakReserved)
	}
	for _, c := range d.Candidates {
		if c.Error == "" && c.PeakReserved < d.Lowest.PeakReserved {
			t.Errorf("%s peaks at %d, below the lowest named (%s, %d)", c.Change, c.PeakReserved, d.Lowest.Change, d.Lowest.PeakReserved)
		}
	}
	var b strings.Builder
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Lowest peak: ") {
		t.Errorf("text names no lowest peak:\n%s", b.String())
	}
}

// The candidates come in the documented order; a setting the history has
// is not tried again.
func TestCandidateOrder(t *testing.T) {
	in := fragmentation(t)
	d, err := Explain(in)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range d.Candidates {
		got = append(got, c.Change.String())
	}
	want := []string{"empty_cache() before op 5", "expandable_segments:True",
		"max_split_size_mb:1024", "max_split_size_mb:512", "max_split_size_mb:256", "max_split_size_mb:128", "max_split_size_mb:64", "max_split_size_mb:32",
		"garbage_collection_threshold:0.9", "garbage_collection_threshold:0.8", "garbage_collection_threshold:0.7", "garbage_collection_threshold:0.6",
		"empty_cache() before op 5 + expandable_segments:True", "expandable_segments:True + garbage_collection_threshold:0.8"}
	if !slices.Equal(got, want) {
		t.Errorf("candidates\n%q\nwant\n%q", got, want)
	}
	conf := "expandable_segments:True"
	in.Options.AllocConf = &conf
	if d, err = Explain(in); err != nil {
		t.Fatal(err)
	}
	for _, c := range d.Candidates {
		if slices.Contains(c.Change.Settings, conf) {
			t.Errorf("%s tried again under %s", c.Change, conf)
		}
	}
	if d.Cause != NoOOM {
		t.Errorf("under expandable segments the history has no OOM, explain says %s", d.Cause)
	}
}

// The JSON names the cause and holds the fix's config.
func TestJSON(t *testing.T) {
	d, err := Explain(fragmentation(t))
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"cause":"fragmentation"`) {
		t.Errorf("JSON names no cause: %s", b)
	}
	var back Diagnosis
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Cause != Fragmentation || back.Fix == nil || back.Fix.Conf != "expandable_segments:True" || !back.Fix.Avoids {
		t.Errorf("JSON read back: cause %s, fix %+v", back.Cause, back.Fix)
	}
	if err := back.Cause.UnmarshalText([]byte("windy")); err == nil {
		t.Error("an unknown cause is read")
	}
}

func TestEmptyHistory(t *testing.T) {
	if _, err := Explain(Input{}); err != ErrNoOps {
		t.Errorf("got %v, want ErrNoOps", err)
	}
}

func TestInterrupted(t *testing.T) {
	in := fragmentation(t)
	in.Interrupted = func() bool { return true }
	if _, err := Explain(in); err != ErrInterrupted {
		t.Errorf("got %v, want ErrInterrupted", err)
	}
}
