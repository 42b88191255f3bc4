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
	for batch, verdict := range map[string]string{"164": "yes\n", "165": "no, line 69\n"} {
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

// TestSweepTable: the sweep's table, as printed, fits 80 columns: the
// largest value and the next with their peaks in the rows, where each
// next value ran out of memory under it; a range whose top fits says
// that bisection did not run every value below it.
func TestSweepTable(t *testing.T) {
	t.Parallel()
	path := writeProgram(t, "gib.py", "import argparse\nimport torch\np = argparse.ArgumentParser()\np.add_argument('--gib', type=int, default=1)\na = p.parse_args()\nx = torch.empty(a.gib << 28, device='cuda')\n")
	out, errOut, code := run(t, "fit", path, "--sweep", "gib=1..1000", "--gpus", "h200,t4")
	for _, want := range []string{
		"GPU   memory      fits  allocated   reserved    fails  reserved  runs\n",
		"h200  139.80 GiB  139   139.00 GiB  139.00 GiB  140    0 bytes   12\n",
		"t4    14.57 GiB   13    13.00 GiB   13.00 GiB   14     0 bytes   12\n",
		"\nh200, 140: out of memory at " + path + ":6\nt4, 14: out of memory at " + path + ":6\n",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 80 && !strings.Contains(l, path) {
			t.Errorf("a line of %d columns: %q", len(l), l)
		}
	}
	out, errOut, code = run(t, "fit", path, "--sweep", "gib=1..2", "--gpus", "h200")
	if want := "h200, 2: the top of the range fits (not every value below it was run)\n"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d, want %q in\n%s%s", code, want, out, errOut)
	}
}
