package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// The snapshots of real training runs replay with every segment event in
// order and the final segments as recorded; two_streams.pickle (recorded
// by scripts/record_models.py) only because each stream has its own
// pools.
func TestReplaySnapshotCheck(t *testing.T) {
	t.Parallel()
	files := []string{"../../testdata/truth/workloads/gpt_train.pickle", "../../testdata/truth/workloads/cnn_train.pickle",
		"../../testdata/truth/workloads/gpt_train.json", "../../testdata/models/mlp_adamw.pickle", "../../testdata/models/two_streams.pickle",
		"../../testdata/models/expandable_streams.pickle"}
	out, errOut, code := run(t, append([]string{"replay", "--check"}, files...)...)
	if code != 0 || strings.Count(out, "ok   ") != len(files) || !strings.Contains(out, "gpt_train.pickle: 2204 ops, 43 segment events in order and the final 43 segments match") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	// Each device's history replays on its own allocator: mlp_adamw's
	// and two_streams' recordings put in one file as cuda:0 and cuda:1,
	// and mlp_adamw's alone as cuda:1 (what a second rank's process
	// dumps).
	out, errOut, code = run(t, "replay", "--check", "../../testdata/models/two_devices.pickle", "../../testdata/models/rank1.pickle")
	for _, want := range []string{"two_devices.pickle cuda:0: 136 ops, 6 segment events", "two_devices.pickle cuda:1: 605 ops, 58 segment events", "rank1.pickle cuda:1: 136 ops, 6 segment events"} {
		if code != 0 || !strings.Contains(out, "ok   ../../testdata/models/"+want) {
			t.Errorf("exit %d, want %q:\n%s%s", code, want, out, errOut)
		}
	}
	// Under another config the recorded segments do not happen: --check says so.
	out, _, code = run(t, "replay", "--check", "--alloc-conf", "expandable_segments:True", files[1])
	if code != 1 || !strings.Contains(out, "FAIL ") || !strings.Contains(out, "segment event 0: want segment_alloc") {
		t.Errorf("under another config: exit %d, %s", code, out)
	}
}

func TestReplaySnapshotRefusesCode(t *testing.T) {
	t.Parallel()
	_, errOut, code := run(t, "replay", "../../allocator/snapshot/testdata/class.pickle")
	if code != 1 || !strings.Contains(errOut, "refused: the pickle names posix.system") || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestReplayCompare(t *testing.T) {
	t.Parallel()
	snap := "../../testdata/truth/workloads/cnn_train.pickle"
	out, errOut, code := run(t, "replay", snap, "--compare", "default", "expandable_segments:True", "max_split_size_mb:nope")
	// two tables in 80 columns: the memory, then device allocations,
	// retries and the first OOM; a config that cannot be read is said
	// in its row of the first
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 10 || !strings.HasPrefix(lines[2], "config ") || !strings.HasPrefix(lines[3], "default ") ||
		!strings.HasPrefix(lines[4], "expandable_segments:True ") || !strings.Contains(lines[5], "max_split_size_mb") ||
		!strings.HasPrefix(lines[7], "config ") || !strings.Contains(lines[7], "device allocs  retries  first OOM") ||
		!strings.HasPrefix(lines[8], "default ") || !strings.HasPrefix(lines[9], "expandable_segments:True ") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for i, l := range lines {
		if len(l) > 80 && i != 5 {
			t.Errorf("a line of %d columns: %q", len(l), l)
		}
	}
	out, _, code = run(t, "replay", "--json", snap, "--compare", "default", "expandable_segments:True", "--limit-bytes", "1000000000")
	rows := jsonLines[configResult](t, out)
	if code != 0 || len(rows) != 2 || rows[0].PeakReserved <= 0 || rows[0].Fragmentation < 0 || rows[0].Fragmentation >= 1 || rows[0].FirstOOM == nil {
		t.Errorf("exit %d, rows %+v", code, rows)
	}
	if _, errOut, code := run(t, "replay", snap, "--compare"); code != 2 || !strings.Contains(errOut, "--compare takes one or more configs") {
		t.Errorf("--compare alone: exit %d, %q", code, errOut)
	}
}

// --export writes the replay as a snapshot that reads back and checks.
func TestReplayExport(t *testing.T) {
	t.Parallel()
	out := t.TempDir() + "/cnn.pickle"
	stdout, errOut, code := run(t, "replay", "--export", out, "../../testdata/truth/workloads/cnn_train.pickle")
	if code != 0 || !strings.Contains(stdout, "428 ops, 639 events and 18 segments written to") {
		t.Fatalf("exit %d: %s%s", code, stdout, errOut)
	}
	stdout, _, code = run(t, "replay", "--check", out)
	if code != 0 || !strings.Contains(stdout, "ok   ") {
		t.Errorf("the export does not check: exit %d: %s", code, stdout)
	}
	// Each event keeps its stream, an expandable history its maps and
	// unmaps, a cuda:1 history its device: the exports check, as whole
	// histories.
	for _, name := range []string{"two_streams", "expandable_streams", "rank1"} {
		out = t.TempDir() + "/" + name + ".pickle"
		if stdout, errOut, code := run(t, "replay", "--export", out, "../../testdata/models/"+name+".pickle"); code != 0 {
			t.Fatalf("exit %d: %s%s", code, stdout, errOut)
		}
		if stdout, _, code = run(t, "replay", "--check", out); code != 0 || !strings.Contains(stdout, "ok   ") || strings.Contains(stdout, "began late") {
			t.Errorf("the export of %s does not check: exit %d: %s", name, code, stdout)
		}
	}
	// rank1.pickle is cuda:1's history: its export is too, trace and segments.
	if stdout, _, _ := run(t, "replay", "--check", out); !strings.Contains(stdout, "rank1.pickle cuda:1: 136 ops") {
		t.Errorf("the export of a cuda:1 history: %s", stdout)
	}
	if _, errOut, code := run(t, "replay", "--export", out, "../../testdata/models/two_devices.pickle"); code != 1 || !strings.Contains(errOut, "holds the histories of 2 devices; --export and --plot take one") {
		t.Errorf("--export of two devices' histories: exit %d, %q", code, errOut)
	}
	if _, errOut, code := run(t, "replay", "--export", out, "--check", goodTrace); code != 2 || !strings.Contains(errOut, "--check and --export do not go together") {
		t.Errorf("--export --check: exit %d, %q", code, errOut)
	}
}

// load puts each device's history on the session's device of that index,
// and a file of one device's history on cuda:0 when the session lacks it.
func TestSessionLoadDevices(t *testing.T) {
	t.Parallel()
	out, errOut, code := runStdin(t, "load ../../testdata/models/two_devices.pickle\nmemory_allocated 1\n", "--device", "sim", "--devices", "2", "--fake-host", "--no-color")
	if code != 0 || !strings.Contains(out, "trace: loaded from ../../testdata/models/two_devices.pickle: 741 ops replayed") || !strings.Contains(out, "cuda:1 allocated 566.97 MiB") {
		t.Errorf("two devices: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = runStdin(t, "load ../../testdata/models/two_devices.pickle\n", "--device", "sim", "--fake-host")
	if code != 1 || !strings.Contains(errOut, "holds cuda:1's history and this session has 1 device(s)") {
		t.Errorf("two devices on one: exit %d, %s", code, errOut)
	}
	out, errOut, code = runStdin(t, "load ../../testdata/models/rank1.pickle\n", "--device", "sim", "--fake-host", "--no-color")
	if code != 0 || !strings.Contains(out, "cuda:1's history, replayed on cuda:0") || !strings.Contains(out, "cuda:0 allocated 89.15 MiB") {
		t.Errorf("rank 1 on one device: exit %d\n%s%s", code, out, errOut)
	}
}

// A session's snapshot, after loading a real run's, is that run's state
// plus the session's own steps, and it checks as a snapshot.
func TestSessionLoadAndSave(t *testing.T) {
	t.Parallel()
	out := t.TempDir() + "/session.pickle"
	script := "a = zeros 1000 cuda\nload ../../testdata/truth/workloads/gpt_train.pickle as gpt\nsnapshot save " + out + "\ndel gpt\nload ../../testdata/truth/workloads/cnn_train.pickle until 100\nvars\n"
	stdout, errOut, code := runStdin(t, script, "--device", "sim", "--fake-host", "--no-color")
	if code != 0 || !strings.Contains(stdout, "gpt: loaded from ../../testdata/truth/workloads/gpt_train.pickle: 2204 ops replayed, 166 blocks still held") ||
		!strings.Contains(stdout, "freed the 166 blocks loaded") || !strings.Contains(stdout, "trace    loaded from ../../testdata/truth/workloads/cnn_train.pickle: 100 ops replayed") {
		t.Fatalf("exit %d\n%s%s", code, stdout, errOut)
	}
	check, _, code := run(t, "replay", "--check", out)
	if code != 0 || !strings.Contains(check, ": 2205 ops, 43 segment events in order and the final 43 segments match") {
		t.Errorf("the session's snapshot: exit %d: %s", code, check)
	}
	if _, errOut, code := runStdin(t, "load nope.pickle\n", "--device", "sim"); code != 1 || !strings.Contains(errOut, "<stdin>:1:1: RuntimeError: open nope.pickle: no such file") {
		t.Errorf("load of a missing file: exit %d, %q", code, errOut)
	}
}

// A history that starts late (here: the first K events of a real run cut
// off, as a wrapped ring buffer does) replays from the state the
// allocator held when it began, and ends with the recorded segments;
// wrapped_streams.pickle is one PyTorch wrapped itself. Of expandable
// segments the start state cannot be rebuilt, and the line says so.
func TestReplayLateHistory(t *testing.T) {
	t.Parallel()
	out, _, code := run(t, "replay", "--check", "../../testdata/models/wrapped_streams.pickle")
	if code != 0 || !strings.Contains(out, "the replay starts from the 14 segments and 10 live blocks the allocator held then") {
		t.Errorf("a wrapped history: exit %d: %s", code, out)
	}
	for _, path := range []string{"../../testdata/truth/workloads/gpt_train.pickle", "../../testdata/truth/workloads/cnn_train.pickle", "../../testdata/models/two_streams.pickle", "../../testdata/models/expandable_streams.pickle"} {
		full, err := snapshot.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		expandable := strings.Contains(path, "expandable")
		for k := 1; k < len(full.Events); k += len(full.Events)/16 + 1 {
			s, _ := snapshot.Load(path)
			s.Events = s.Events[k:]
			r, err := s.Prepare(fmt.Sprintf("%s from event %d", path, k))
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			err = checkSnapshot(&out, r, trace.Options{})
			switch {
			case expandable && !strings.Contains(out.String(), "its expandable segments had mapped then cannot be rebuilt"):
				t.Errorf("expandable, late: %s", out.String())
			case !expandable && (err != nil || !strings.Contains(out.String(), "the recording began late")):
				t.Errorf("%v: %s", err, out.String())
			}
		}
	}
}

// The what-if of a history PyTorch recorded under max_split_size_mb:64 at
// a 1 GiB limit predicts where the same program under the default config
// really ran out of memory (testdata/whatif, scripts/record_whatif.py):
// the allocator's own releases are not replayed as empty_cache. The line
// says which releases it could not attribute, and the recorded limit
// decides them.
func TestReplayCompareWhatIf(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../testdata/whatif/train_default_1g.json")
	if err != nil {
		t.Fatal(err)
	}
	var real struct {
		LimitBytes  uint64    `json:"limit_bytes"`
		TotalMemory uint64    `json:"total_memory"`
		FirstOOM    trace.OOM `json:"first_oom"`
	}
	if err := json.Unmarshal(b, &real); err != nil {
		t.Fatal(err)
	}
	limit, total := fmt.Sprint(real.LimitBytes+1), fmt.Sprint(real.TotalMemory) // the 1 GiB asked for; PyTorch's fraction lost a byte
	history := "../../testdata/whatif/train_ms64_1g.pickle.gz"
	out, errOut, code := run(t, "replay", "--json", history, "--compare", "default", "--limit-bytes", limit, "--total-bytes", total)
	rows := jsonLines[configResult](t, out)
	if code != 0 || len(rows) != 1 || rows[0].FirstOOM == nil {
		t.Fatalf("exit %d: %s%s", code, out, errOut)
	}
	got := rows[0].FirstOOM
	if got.Allocation != real.FirstOOM.Allocation || got.RequestedBytes != real.FirstOOM.RequestedBytes || trace.NormalizeOOM(got.Message) != trace.NormalizeOOM(real.FirstOOM.Message) {
		t.Errorf("first OOM %+v, PyTorch's %+v", got, real.FirstOOM)
	}
	out, _, _ = run(t, "replay", history, "--compare", "default", "--limit-bytes", limit, "--total-bytes", total)
	if !strings.Contains(out, "could not be attributed") || !strings.Contains(out, "treated as the allocator's") {
		t.Errorf("the open releases are not named: %s", out)
	}
	out, _, _ = run(t, "replay", history, "--compare", "default", "--limit-bytes", limit, "--total-bytes", total, "--recorded-limit-bytes", limit)
	if strings.Contains(out, "could not be attributed") || !strings.Contains(out, "decided by replaying the history at its recorded limit") {
		t.Errorf("with the recorded limit: %s", out)
	}
}

// A snapshot is told by its content, whatever its name; what follows its
// STOP is an error under --check (one line naming the file and the
// pickle offset) and a warning otherwise.
func TestReplaySniffsAndWarns(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../testdata/models/mlp_adamw.pickle")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pt, bad := dir+"/snap.pt", dir+"/bad.pickle"
	if os.WriteFile(pt, b, 0o644) != nil || os.WriteFile(bad, append(b, "xx"...), 0o644) != nil {
		t.Fatal("cannot write")
	}
	if out, errOut, code := run(t, "replay", "--check", pt); code != 0 || !strings.Contains(out, "ok   "+pt+": 136 ops") {
		t.Errorf("snap.pt: exit %d: %s%s", code, out, errOut)
	}
	want := fmt.Sprintf("%s: pickle offset %d: 2 bytes follow the pickle's STOP\n", bad, len(b))
	if out, errOut, code := run(t, "replay", "--check", bad); code != 1 || errOut != want {
		t.Errorf("--check: exit %d: %s%q, want %q", code, out, errOut, want)
	}
	if out, errOut, code := run(t, "replay", bad); code != 0 || !strings.Contains(errOut, bad+": warning: pickle offset") || !strings.Contains(out, "136 ops") {
		t.Errorf("without --check: exit %d: %s%s", code, out, errOut)
	}
}
