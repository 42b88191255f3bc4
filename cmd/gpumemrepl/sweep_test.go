package main

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// h200Batches are scripts/probe_sweep.py's runs of train_sweep.py in
// PyTorch on the H200: each batch, whether it fitted, and its peaks.
func h200Batches(t *testing.T) map[int64]struct {
	Fits                      bool
	MaxAllocated, MaxReserved uint64
} {
	t.Helper()
	f, err := os.Open("../../testdata/models/train_sweep_h200.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[int64]struct {
		Fits                      bool
		MaxAllocated, MaxReserved uint64
	}{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r struct {
			Batch        int64  `json:"batch"`
			Fits         bool   `json:"fits"`
			MaxAllocated uint64 `json:"max_allocated"`
			MaxReserved  uint64 `json:"max_reserved"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out[r.Batch] = struct {
			Fits                      bool
			MaxAllocated, MaxReserved uint64
		}{r.Fits, r.MaxAllocated, r.MaxReserved}
	}
	return out
}

// TestSweepFindsPyTorchsLargestBatch: fit --sweep over train_sweep.py's
// batch size gives, on the H200, the largest batch PyTorch 2.11 fitted
// on the H200 (164: 165 ran out of memory), with PyTorch's peaks at
// both; fit FILE -- ARGS passes the script its arguments.
func TestSweepFindsPyTorchsLargestBatch(t *testing.T) {
	t.Parallel()
	want := h200Batches(t)
	script := "../../testdata/models/train_sweep.py"
	out, errOut, code := run(t, "fit", "--json", "--gpus", "h200", script, "--sweep", "batch-size=128..256")
	var row struct {
		Best, Next       int64
		PeakAllocated    uint64 `json:"peak_allocated_bytes"`
		PeakReserved     uint64 `json:"peak_reserved_bytes"`
		NextPeakReserved uint64 `json:"next_peak_reserved_bytes"`
		NextOOMAt        string `json:"next_oom_at"`
		Runs             int
	}
	if err := json.Unmarshal([]byte(out), &row); code != 0 || err != nil {
		t.Fatalf("exit %d, %v\n%s%s", code, err, out, errOut)
	}
	best, next := want[row.Best], want[row.Next]
	if !best.Fits || next.Fits || row.Next != row.Best+1 {
		t.Fatalf("sweep: %d fits and %d does not; PyTorch on the H200: %v", row.Best, row.Next, want)
	}
	if row.PeakAllocated != best.MaxAllocated || row.PeakReserved != best.MaxReserved || row.NextPeakReserved != next.MaxReserved {
		t.Errorf("peaks %d, %d and %d at %d; PyTorch's %d, %d and %d", row.PeakAllocated, row.PeakReserved, row.NextPeakReserved, row.Best, best.MaxAllocated, best.MaxReserved, next.MaxReserved)
	}
	if row.NextOOMAt != script+":69" || row.Runs != 9 {
		t.Errorf("next out of memory at %q after %d runs", row.NextOOMAt, row.Runs)
	}
	for batch, verdict := range map[string]string{"164": "yes\n", "165": "no: out of memory at " + script + ":69\n"} {
		out, errOut, code := run(t, "fit", "--gpus", "h200", script, "--", "--batch-size", batch)
		if code != 0 || !strings.Contains(out, verdict) {
			t.Errorf("fit -- --batch-size %s: exit %d, want %q in\n%s%s", batch, code, verdict, out, errOut)
		}
	}
}

// TestSweepUsage: a sweep that cannot be read is bad usage, named.
func TestSweepUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ spec, want string }{
		{"batch-size", `--sweep "batch-size": want NAME=LO..HI (batch-size=1..1024)`},
		{"batch-size=8..1", `--sweep "batch-size=8..1": want 1 <= LO <= HI <= 1099511627776`},
		{"batch-size=0..4", `--sweep "batch-size=0..4": want 1 <= LO`},
		{"=1..4", `--sweep "=1..4": want NAME=LO..HI`},
	} {
		_, errOut, code := run(t, "fit", "../../testdata/models/train_sweep.py", "--sweep", tc.spec)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d, %s", tc.spec, code, errOut)
		}
	}
	if _, errOut, code := run(t, "fit", "a.gpumem", "b.gpumem"); code != 2 || !strings.Contains(errOut, "one script to fit (a .py script takes arguments, after --)") {
		t.Errorf("two scripts: exit %d, %s", code, errOut)
	}
}
