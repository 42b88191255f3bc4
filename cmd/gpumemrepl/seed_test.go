package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/golden")

type truthStep struct {
	Step         string  `json:"step"`
	RSS          int64   `json:"rss"`
	Allocated    uint64  `json:"allocated"`
	Reserved     uint64  `json:"reserved"`
	NVMLProcUsed *uint64 `json:"nvml_proc_used"`
}

type stepRow struct {
	Line       int     `json:"line"`
	Source     string  `json:"source"`
	HostRSS    *int64  `json:"host_rss_bytes"`
	Allocated  uint64  `json:"allocated_bytes"`
	Reserved   uint64  `json:"reserved_bytes"`
	DriverUsed *uint64 `json:"driver_used_bytes"`
	Context    *uint64 `json:"context_bytes"`
	Devices    []struct {
		Device     string  `json:"device"`
		Allocated  uint64  `json:"allocated_bytes"`
		Reserved   uint64  `json:"reserved_bytes"`
		DriverUsed *uint64 `json:"driver_used_bytes"`
		Context    *uint64 `json:"context_bytes"`
	} `json:"devices"`
	Events []string `json:"events"`
	Output string   `json:"output"`
	Error  *string  `json:"error"`
}

func readTruth(t *testing.T, path string) []truthStep {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []truthStep
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); strings.HasPrefix(line, "{") {
			var s truthStep
			if err := json.Unmarshal([]byte(line), &s); err != nil {
				t.Fatal(err)
			}
			steps = append(steps, s)
		}
	}
	return steps
}

// runJSON runs a script on device (sim or cuda) with --json.
func runJSON(t *testing.T, device string, args ...string) []stepRow {
	out, errOut, code := run(t, append([]string{"run", "--device", device, "--json"}, args...)...)
	if code != 0 && !(code == 1 && slices.Contains(args, "--keep-going")) {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	return rowsOf(t, out)
}

// rowsOf parses --json output.
func rowsOf(t *testing.T, out string) []stepRow { return jsonLines[stepRow](t, out) }

// jsonLines parses one JSON object per line.
func jsonLines[T any](t *testing.T, out string) []T {
	t.Helper()
	var rows []T
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var r T
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		rows = append(rows, r)
	}
	return rows
}

// TestSeed000 runs the first seed experiment, in both forms, on the
// simulated device and compares every step with what PyTorch 2.11
// reported on an H200, driver-used included.
func TestSeed000(t *testing.T) {
	t.Parallel()
	checkSeed000(t, "sim", func(t *testing.T, script string, rows []stepRow, want []truthStep) {
		for i, r := range rows {
			if w := want[i]; w.NVMLProcUsed != nil && (r.DriverUsed == nil || *r.DriverUsed != *w.NVMLProcUsed) {
				t.Errorf("%s: step %q: driver used %v, NVML said %d", script, w.Step, r.DriverUsed, *w.NVMLProcUsed)
			}
		}
	})
}

// checkSeed000 runs both forms of the first seed experiment on device and
// checks allocated, reserved and host RSS step by step against PyTorch's,
// then what checkDriver checks of driver-used.
func checkSeed000(t *testing.T, device string, checkDriver func(t *testing.T, script string, rows []stepRow, want []truthStep)) {
	truth := readTruth(t, "../../testdata/truth/seed000.jsonl")
	for _, tc := range []struct {
		script string
		skip   int // truth steps the script has no line for (import torch)
	}{{"../../scripts/seed000.gpumem", 1}, {"../../scripts/seed000_torch.gpumem", 0}} {
		t.Run(filepath.Base(tc.script), func(t *testing.T) {
			if device == "sim" {
				t.Parallel() // each run is its own process; on a GPU they would share it
			}
			rows := runJSON(t, device, tc.script)
			want := truth[tc.skip:]
			if len(rows) != len(want) {
				t.Fatalf("%s: %d steps, truth has %d", tc.script, len(rows), len(want))
			}
			for i, r := range rows {
				w := want[i]
				if r.Allocated != w.Allocated || r.Reserved != w.Reserved {
					t.Errorf("%s: step %q (%s): allocated %d reserved %d, PyTorch %d %d", tc.script, w.Step, r.Source, r.Allocated, r.Reserved, w.Allocated, w.Reserved)
				}
			}
			checkDriver(t, tc.script, rows, want)
			// Host RSS moves as in PyTorch: +1 GiB at b.to cpu and e on cpu,
			// -1 GiB at e.to cuda, -1 GiB when b goes.
			for i, r := range rows[1:] {
				got := *r.HostRSS - *rows[i].HostRSS
				wantD := want[i+1].RSS - want[i].RSS
				if big := wantD > 1<<29 || wantD < -(1<<29); big && abs(got-wantD) > abs(wantD)/10 {
					t.Errorf("%s: step %q: RSS changed by %d, PyTorch's by %d", tc.script, want[i+1].Step, got, wantD)
				}
			}
		})
	}
}

// TestRecordedSteps runs the second seed experiment (both forms) and the
// models recorded by scripts/record_models.py, and compares allocated and
// reserved at every step with what PyTorch 2.11 reported on an H200.
// Script lines the recording has no step for are named by their start.
func TestRecordedSteps(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		script, truth string
		skip          []string
	}{
		{"seed003.gpumem", "../../testdata/truth/seed003.jsonl", nil},
		{"seed003_torch.gpumem", "../../testdata/truth/seed003.jsonl", nil},
		{"mlp_adamw.gpumem", "../../testdata/models/mlp_adamw.jsonl", []string{"import"}},
		// the recording made up and down in one step, and named a step
		// after each loss was added
		{"total_loss_leak.gpumem", "../../testdata/models/block_grad.jsonl", []string{"import", "up =", "total_loss = 0", "loss = ("}},
	} {
		truth := readTruth(t, tc.truth)
		var rows []stepRow
		for _, r := range runJSON(t, "sim", "../../scripts/"+tc.script) {
			if !strings.HasPrefix(r.Source, "with ") || !strings.HasSuffix(r.Source, ":") {
				if !slices.ContainsFunc(tc.skip, func(p string) bool { return strings.HasPrefix(r.Source, p) }) {
					rows = append(rows, r)
				}
			}
		}
		if len(rows) != len(truth) {
			t.Errorf("%s: %d steps, the recording has %d", tc.script, len(rows), len(truth))
			continue
		}
		for i, r := range rows {
			if w := truth[i]; r.Allocated != w.Allocated || r.Reserved != w.Reserved || r.Error != nil {
				t.Errorf("%s: line %d %q (step %q): allocated %d reserved %d (error %v), PyTorch %d %d", tc.script, r.Line, r.Source, w.Step, r.Allocated, r.Reserved, r.Error, w.Allocated, w.Reserved)
			}
		}
	}
}

// scriptFlags are the flags a script needs beyond the defaults.
var scriptFlags = map[string][]string{"two_gpus": {"--devices", "2"}}

// TestGoldenTranscripts runs every script in scripts/ in the deterministic
// mode and compares its transcript byte for byte.
func TestGoldenTranscripts(t *testing.T) {
	t.Parallel()
	scripts, _ := filepath.Glob("../../scripts/*.gpumem")
	if len(scripts) < 2 {
		t.Fatalf("found %d scripts", len(scripts))
	}
	for _, s := range scripts {
		name := strings.TrimSuffix(filepath.Base(s), ".gpumem")
		t.Run(name, func(t *testing.T) {
			out, errOut, code := run(t, append([]string{"run", "--device", "sim", "--fake-host", "--no-color", "--keep-going"}, append(scriptFlags[name], s)...)...)
			got := out + "--- stderr ---\n" + errOut + "--- exit " + string(rune('0'+code)) + " ---\n"
			golden := filepath.Join("../../testdata/golden", name+".txt")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/gpumemrepl -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("transcript differs from %s (rerun with -update after a deliberate change):\n%s", golden, got)
			}
		})
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
