package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/explain"
	"github.com/gpumemrepl/gpumemrepl/engine"
)

// explainJSON is the diagnosis that explain json printed at the prompt:
// the one line of the step's output that is a JSON object.
func explainJSON(t *testing.T, out string) explain.Diagnosis {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "{") {
			var d explain.Diagnosis
			if err := json.Unmarshal([]byte(line), &d); err != nil {
				t.Fatalf("%v: %s", err, line)
			}
			return d
		}
	}
	t.Fatalf("no JSON in\n%s", out)
	return explain.Diagnosis{}
}

// At the prompt after the fragmentation demo's OOM, explain names
// fragmentation, the segment b pins and b itself, and proves by replay
// that expandable segments avoid the error.
func TestExplainFragmentationDemo(t *testing.T) {
	t.Parallel()
	demo, err := os.ReadFile("../../scripts/oom_fragmentation.gpumem")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, _ := runStdin(t, string(demo)+"explain\nexplain json\n", "--device", "sim", "--keep-going")
	for _, want := range []string{
		"Cause: fragmentation: 600.00 MiB is reserved but unallocated",
		"the largest free block this request could use is 500.00 MiB",
		"600.00 MiB  b (<stdin>:9)",
		"Fix: PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True avoids the out-of-memory error",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s\nstderr %s", want, out, errOut)
		}
	}
	d := explainJSON(t, out)
	if d.Cause.String() != "fragmentation" || d.Fix == nil || d.Fix.Conf != "expandable_segments:True" || d.Fix.PeakReserved > int64(*d.At.LimitBytes) {
		t.Errorf("JSON: cause %s, fix %+v", d.Cause, d.Fix)
	}
	if d.Recorded.Avoids {
		t.Errorf("the session's own settings must fail again in the replay: %+v", d.Recorded)
	}
}

// Two 1.17 GiB tensors on a 2 GiB GPU: no setting helps; explain says by
// how much (the device less its CUDA context is all the process can
// hold), names the holder, and finds the next larger preset, saying what
// of the replay there is an estimate.
func TestExplainLiveTensorsExceedTheDevice(t *testing.T) {
	t.Parallel()
	const total = 2 << 30
	in := "a = zeros 300x1024x1024 cuda\nb = zeros 300x1024x1024 cuda\nexplain\nexplain json\n"
	out, _, _ := runStdin(t, in, "--device", "sim", "--keep-going", "--total-bytes", strconv.Itoa(total))
	d := explainJSON(t, out)
	capacity := uint64(total) - engine.Presets["h200"].ContextBytes
	if d.Cause.String() != "live_tensors" || !d.NoSettingAvoids || d.At.CapacityBytes != capacity {
		t.Fatalf("cause %s, no setting %v, capacity %d (want live_tensors, true, %d)", d.Cause, d.NoSettingAvoids, d.At.CapacityBytes, capacity)
	}
	if want := 2*300<<22 - capacity; d.DeficitBytes != want {
		t.Errorf("deficit %d, want %d", d.DeficitBytes, want)
	}
	if d.Fix == nil || d.Fix.Change.GPU == nil || d.Fix.Change.GPU.Name != "t4" {
		t.Errorf("fix %+v, want the next larger preset (t4)", d.Fix)
	}
	for _, want := range []string{"Cause: the live tensors exceed what the device can give", "1.17 GiB  a (<stdin>:1)", "No allocator setting avoids it: the live tensors exceed what the device can give by",
		"; estimated: its total is a published deviceQuery figure and its CUDA context the H200's, and the history's library workspaces and kernel scratch are those of the GPU it ran on, which the t4 may size otherwise (fit --gpus t4 runs the program there).\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
}

// recordedRun is scripts/record_explain.py's outcome of one run on the
// GPU machine.
type recordedRun struct {
	AllocConf   string  `json:"alloc_conf"`
	Fraction    float64 `json:"memory_fraction"`
	TotalMemory uint64  `json:"total_memory"`
	LimitBytes  uint64  `json:"limit_bytes"`
	Batches     []int   `json:"batches"`
	Steps       int     `json:"steps_completed"`
	FirstOOM    *struct {
		Allocation     int    `json:"allocation"`
		RequestedBytes uint64 `json:"requested_bytes"`
	} `json:"first_oom"`
}

func readRun(t *testing.T, name string) recordedRun {
	t.Helper()
	b, err := os.ReadFile("../../testdata/explain/" + name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var r recordedRun
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// replay --explain of the training run that ran out of memory on the
// H200 finds PyTorch's OOM (the same allocation, the same size) and
// proposes a setting; the same run under that setting, recorded on the
// H200 too, finished every step, and its history replays as recorded.
func TestReplayExplainRecordedTraining(t *testing.T) {
	t.Parallel()
	fail, fix := readRun(t, "fail"), readRun(t, "fix")
	limits := []string{"--limit-bytes", strconv.FormatUint(fail.LimitBytes, 10), "--total-bytes", strconv.FormatUint(fail.TotalMemory, 10)}
	out, errOut, code := run(t, append(append([]string{"replay", "--explain", "--json"}, limits...), "../../testdata/explain/fail.pickle.gz")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var d explain.Diagnosis
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if fail.FirstOOM == nil || d.At.Allocation != fail.FirstOOM.Allocation || d.At.RequestedBytes != fail.FirstOOM.RequestedBytes {
		t.Fatalf("explained allocation %d of %d bytes; PyTorch's OOM %+v", d.At.Allocation, d.At.RequestedBytes, fail.FirstOOM)
	}
	if d.Fix == nil || len(d.Fix.Change.Settings) == 0 || d.Fix.Conf != fix.AllocConf {
		t.Fatalf("fix %+v; the rerun was recorded under %q", d.Fix, fix.AllocConf)
	}
	if fix.FirstOOM != nil || fix.Steps != len(fix.Batches) || fix.LimitBytes != fail.LimitBytes {
		t.Errorf("the rerun under %s: OOM %+v, %d of %d steps, limit %d (the failing run's %d)", fix.AllocConf, fix.FirstOOM, fix.Steps, len(fix.Batches), fix.LimitBytes, fail.LimitBytes)
	}
	check := append(append([]string{"replay", "--check", "--recorded-limit-bytes", strconv.FormatUint(fix.LimitBytes, 10)}, limits...), "../../testdata/explain/fix.pickle.gz")
	if out, errOut, code := run(t, check...); code != 0 || !strings.HasPrefix(out, "ok   ") {
		t.Errorf("the rerun's history does not replay as recorded: exit %d\n%s%s", code, out, errOut)
	}
	unlimited, _, _ := run(t, "replay", "--explain", "../../testdata/explain/fail.pickle.gz")
	if want := fmt.Sprintf("Yet allocation %d raised one in the recording, which this replay does not", fail.FirstOOM.Allocation); !strings.Contains(unlimited, want) {
		t.Errorf("without its limit, replay --explain lacks %q:\n%s", want, unlimited)
	}
	text, _, _ := run(t, append(append([]string{"replay", "--explain"}, limits...), "../../testdata/explain/fail.pickle.gz")...)
	for _, want := range []string{"Cause: ", "Fix: PYTORCH_CUDA_ALLOC_CONF=" + fix.AllocConf + " avoids", "record_explain.py:",
		// the table fits 80 columns: a long change goes on under its row
		"  change                                     peak reserved  first OOM\n",
		"  empty_cache() before op 332                     4.28 GiB  op 336, 256.00 MiB\n    (record_explain.py:49 in workload)\n",
		"  max_split_size_mb:128                           4.31 GiB  none\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("replay --explain lacks %q:\n%s", want, text)
		}
	}
	table := text[strings.Index(text, "Replayed under each change"):strings.Index(text, "Fix: ")]
	for _, l := range strings.Split(table, "\n") {
		if len(l) > 80 {
			t.Errorf("the candidates' table has a line of %d columns: %q", len(l), l)
		}
	}
}

func TestReplayExplainRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--explain", "--check", goodTrace}, "--explain and --check do not go together"},
		{[]string{"replay", "--explain", "--alloc-conf", "expandable_segments:True", goodTrace}, "--explain and --alloc-conf do not go together"},
		{[]string{"replay", "--explain", goodTrace, "--compare", "default"}, "--explain and --compare do not go together"},
		{[]string{"replay", "--explain", "--device", "cuda", goodTrace}, "--explain and --device cuda do not go together"},
	} {
		wantUsageError(t, tc.args, tc.want)
	}
}

// explain names a leaf's gradient by the leaf, and a view by its base's
// block; asking changes nothing in the session: after del, the same
// memory is allocated as without the explain (none).
func TestExplainNamesGradientsAndKeepsMemory(t *testing.T) {
	t.Parallel()
	script := func(view, ask string) string {
		return "import torch\nw = torch.randn(256, 1024, 1024, device='cuda', requires_grad=True)\n" + view + "\n" +
			"(w * w).sum().backward()\nbig = torch.zeros(3000, 1024, 1024, device='cuda')\n" + ask + "\ndel w\nprint(torch.cuda.memory_allocated())\n"
	}
	flags := []string{"--device", "sim", "--keep-going", "--total-bytes", strconv.Itoa(8 << 30)}
	out, _, _ := runStdin(t, script("v = w[0]", "explain"), flags...)
	for _, want := range []string{"1024.00 MiB  v, w (<stdin>:2)\n", "1024.00 MiB  w.grad (<stdin>:4)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("explain lacks %q:\n%s", want, out)
		}
	}
	allocated := func(ask string) string {
		out, _, _ := runStdin(t, script("pass", ask), flags...)
		_, after, _ := strings.Cut(out, "print(torch.cuda.memory_allocated())\n")
		first, _, _ := strings.Cut(after, "\n")
		return first
	}
	if a, b := allocated("explain"), allocated("pass"); a != "0" || b != "0" {
		t.Errorf("after del w, %s bytes allocated with an explain before, %s without", a, b)
	}
}

// TestExplainUsesTheLimitAtTheOOM: a program that raises its fraction
// after running out of memory is explained under the limit it ran out
// under, not the one it set later.
func TestExplainUsesTheLimitAtTheOOM(t *testing.T) {
	t.Parallel()
	in := "import torch\ntorch.cuda.set_per_process_memory_fraction(0.01)\na = torch.zeros(1 << 28, device='cuda')\n" +
		"try:\n    b = torch.zeros(1 << 28, device='cuda')\nexcept torch.OutOfMemoryError:\n    pass\n" +
		"torch.cuda.set_per_process_memory_fraction(0.5)\nexplain\n"
	out, errOut, code := runStdin(t, in, "--device", "sim", "--no-color")
	if code != 0 || !strings.Contains(out, "Cause: the per-process memory fraction: the live tensors and the request (2.00 GiB) exceed the 1.40 GiB limit") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}

// A snapshot recorded with stacks gets, at its peak, its live memory by
// category as the stacks tell it (diff's rules): every live block in one,
// the optimizer's state and the parameters of the recorded training run
// among them; one without stacks gets none.
func TestReplayExplainByCategory(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, "replay", "--explain", "--json", "../../testdata/explain/fix.pickle.gz")
	var d explain.Diagnosis
	if err := json.Unmarshal([]byte(out), &d); code != 0 || err != nil {
		t.Fatalf("exit %d, %v: %s", code, err, errOut)
	}
	var sum uint64
	blocks, got := 0, map[string]bool{}
	for _, c := range d.Categories {
		sum += c.Bytes
		blocks += c.Blocks
		got[c.Label] = true
	}
	// requested bytes, each block rounded up to 512 in allocated
	if sum > d.At.AllocatedBytes || d.At.AllocatedBytes-sum >= 512*uint64(blocks) || !got["optimizer state"] || !got["parameters"] {
		t.Errorf("categories %+v hold %d bytes in %d blocks; %d allocated", d.Categories, sum, blocks, d.At.AllocatedBytes)
	}
	text, _, _ := run(t, "replay", "--explain", "../../testdata/explain/fix.pickle.gz")
	if !strings.Contains(text, "By category there (told from the stacks):\n    1.50 GiB  optimizer state\n") {
		t.Errorf("no categories in\n%s", text)
	}
	if text, _, _ = run(t, "replay", "--explain", "../../testdata/models/mlp_adamw.pickle"); strings.Contains(text, "By category") {
		t.Errorf("a snapshot without stacks has categories:\n%s", text)
	}
}
