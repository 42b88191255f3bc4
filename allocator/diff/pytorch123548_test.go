package diff

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// cycleRow is one cycle of scripts/record_diff.py's pytorch#123548
// loop, as PyTorch reported it.
type cycleRow struct {
	Label         string `json:"label"`
	Allocated     int64  `json:"allocated"`
	Reserved      int64  `json:"reserved"`
	PeakAllocated int64  `json:"peak_allocated"`
	PeakReserved  int64  `json:"peak_reserved"`
	Retries       int64  `json:"num_alloc_retries"`
}

// pytorch#123548: under max_split_size_mb:128,expandable_segments:True
// PyTorch's reserved memory grows by about 138 MiB a cycle while the
// live set grows by 2 MiB. The recording's history, replayed under
// that config and under each option alone and the default, gives
// PyTorch's own allocated and reserved memory (and their peaks) after
// every one of the 101 cycles of each real run.
func TestPytorch123548EveryCycle(t *testing.T) {
	histories, err := snapshot.Open("../../testdata/diff/pytorch123548.pickle.gz")
	if err != nil {
		t.Fatal(err)
	}
	tr := histories[0].Trace
	// a 64 MiB block, then per cycle A, B and the 2 MiB block, and the
	// frees of A and B
	const cycles = 101
	if len(tr.Ops) != 1+5*cycles {
		t.Fatalf("%d ops; want %d", len(tr.Ops), 1+5*cycles)
	}
	for _, run := range []string{"pytorch123548", "pytorch123548_expandable", "pytorch123548_ms128", "pytorch123548_default"} {
		var rec struct {
			AllocConf string     `json:"alloc_conf"`
			Cycles    []cycleRow `json:"cycles"`
		}
		b, err := os.ReadFile("../../testdata/diff/" + run + ".json")
		if err == nil {
			err = json.Unmarshal(b, &rec)
		}
		if err != nil || len(rec.Cycles) != cycles {
			t.Fatalf("%s: %v, %d cycles", run, err, len(rec.Cycles))
		}
		a, err := trace.Setup(tr, trace.Options{AllocConf: &rec.AllocConf})
		if err != nil {
			t.Fatal(err)
		}
		matched := 0
		err = trace.NewReplayer(tr, a).Run(func(i int, _ error) error {
			if i == 0 || i%5 != 0 {
				return nil
			}
			want, s := rec.Cycles[i/5-1], a.Stats()
			got := cycleRow{want.Label, s.AllocatedBytes[0].Current, s.ReservedBytes[0].Current, s.AllocatedBytes[0].Peak, s.ReservedBytes[0].Peak, s.NumAllocRetries}
			if got != want {
				t.Errorf("%s (%s), after op %d: %+v, want PyTorch's %+v", run, rec.AllocConf, i, got, want)
			} else {
				matched++
			}
			return nil
		})
		a.Close() //nolint:errcheck // a simulated device
		if err != nil || matched != cycles {
			t.Errorf("%s: %v; %d of %d cycles match", run, err, matched, cycles)
		}
		last := rec.Cycles[cycles-1].Reserved
		if grows := run == "pytorch123548"; grows != (last > 10_000<<20) {
			t.Errorf("%s: PyTorch's reserved after the last cycle is %d MiB: the growth is the two options' together", run, last>>20)
		}
	}
}
