package torchpy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl"
)

// TestStreamRules runs the stream rule scripts (streams_pools: pools per
// stream, set_stream, priorities, a cuBLAS workspace per stream;
// streams_record: record_stream's pending frees, completed at a malloc
// after a synchronize of the device, the stream or a later event, and
// waited for by empty_cache; streams_copy: non_blocking copies on a side
// stream; streams_grad: library workspaces per stream, backward of a
// forward run on a side stream) and checks every allocator event, in order, and every print
// against PyTorch's recordings.
func TestStreamRules(t *testing.T) {
	checkRules(t, "streams_pools", "streams_record", "streams_copy", "streams_ctx", "streams_empty", "streams_backward", "streams_empty_order")
	t.Run("streams_backward_sums", checkBackwardSums)
	t.Run("streams_grad", func(t *testing.T) {
		// Its last statement leaves tensors alive; the recording ends
		// before the interpreter's exit frees them, the tool's history
		// goes on with those frees.
		s, printed := runRule(t, "streams_grad")
		path := filepath.Join("..", "testdata", "pyrules", "streams_grad.jsonl")
		checkPrinted(t, printed, path)
		want, lines := recordedEvents(t, path)
		var got []event
		for _, e := range s.History(0) {
			if counted[e.Action] {
				got = append(got, event{e.Action, e.Size})
			}
		}
		if len(got) < len(want) {
			t.Fatalf("%d events, PyTorch's %d", len(got), len(want))
		}
		for i, w := range want {
			if got[i] != w {
				t.Fatalf("event %d (line %d): %s %d, PyTorch's %s %d", i, lines[i], got[i].action, got[i].size, w.action, w.size)
			}
		}
		for _, e := range got[len(want):] {
			if e.action != "free_completed" {
				t.Errorf("after the script: %s %d, want only the frees of what it left alive", e.action, e.size)
			}
		}
	})
}

// runSource runs a Python script on simulated H200s and returns what
// it printed.
func runSource(t *testing.T, devices int, src string) string {
	t.Helper()
	s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h200"], Backend: "sim", FakeHost: true, Devices: devices})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := &repl.Runner{Session: s, Out: &out, Err: io.Discard, File: "streams.py", KeepGoing: true, JSON: true}
	r.PyScript([]byte(src))
	var printed strings.Builder
	for _, l := range bytes.Split(out.Bytes(), []byte("\n")) {
		var row struct {
			Output string  `json:"output"`
			Error  *string `json:"error"`
		}
		if json.Unmarshal(l, &row) == nil {
			printed.WriteString(row.Output)
			if row.Error != nil {
				printed.WriteString("error: " + *row.Error + "\n")
			}
		}
	}
	return printed.String()
}

// TestStreamAPI checks what Streams and Events print and raise against
// PyTorch 2.11's answers on the H200 (testdata/pyrules/streams_probe.txt),
// and that the questions whose answer is the GPU's timing say so.
func TestStreamAPI(t *testing.T) {
	cases := []struct{ src, want string }{
		{"import torch\nprint(torch.cuda.default_stream(), torch.cuda.Stream.__name__)",
			"<torch.cuda.Stream device=cuda:0 cuda_stream=0x0> Stream\n"},
		{"import torch\nss = [torch.cuda.Stream() for _ in range(33)]\nprint(ss[0] == ss[32], ss[0] == ss[1], len(set(ss)))",
			"True False 32\n"},
		{"import torch\nprint([torch.cuda.Stream(priority=p).priority for p in (-1, -2, -5, 0, 1, 3)], torch.cuda.Stream.priority_range())",
			"[-1, -2, -3, 0, 0, 0] (0, -3)\n"},
		{"import torch\ntry:\n    torch.cuda.current_stream(1)\nexcept RuntimeError as e:\n    print(e)",
			"Device index value 1 is out of index range [0, 1)\n"},
		{"import torch\ntry:\n    torch.cuda.Stream(device='cpu')\nexcept ValueError as e:\n    print(e)",
			"Expected a cuda device, but got: cpu\n"},
		{"import torch\ntry:\n    torch.cuda.Stream(priority='a')\nexcept TypeError as e:\n    print(e)",
			"'str' object cannot be interpreted as an integer\n"},
		{"import torch\ntry:\n    torch.cuda.stream(3).__enter__()\nexcept AttributeError as e:\n    print(e)",
			"'int' object has no attribute 'device'\n"},
		{"import torch\ne = torch.cuda.Event()\nprint(e, e.query(), e.cuda_event, e.synchronize(), e.wait())",
			"<torch.cuda.Event uninitialized> True 0 None None\n"},
		{"import torch\na, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)\ntry:\n    a.elapsed_time(b)\nexcept ValueError as e:\n    print(e)\nc = torch.cuda.Event()\nc.record()\ntry:\n    c.elapsed_time(c)\nexcept ValueError as e:\n    print(e)",
			"Both events must be recorded before calculating elapsed time.\nBoth events must be created with argument 'enable_timing=True'.\n"},
		{"import torch\ntry:\n    torch.ones(1, device='cuda').record_stream(3)\nexcept RuntimeError as e:\n    print(e)",
			"unknown parameter type\n"},
		{"import torch\ns = torch.cuda.Stream()\nprint(s.query(), s.synchronize(), s.wait_stream(torch.cuda.current_stream()), type(s.record_event()).__name__, torch.cuda.synchronize())",
			"True None None Event None\n"},
		// Work the program has not waited for: the answer is the GPU's.
		{"import torch\ns = torch.cuda.Stream()\nwith torch.cuda.stream(s):\n    x = torch.ones(4, device='cuda')\n    e = s.record_event()\ntry:\n    s.query()\nexcept NotImplementedError as err:\n    print(err)\ntry:\n    e.query()\nexcept NotImplementedError as err:\n    print(err)\ne.synchronize()\nprint(e.query(), s.query())",
			"Stream.query() of a stream whose work the program has not waited for depends on GPU timing, which is not modelled by gpumemrepl (it runs no kernels); synchronize first\n" +
				"Event.query() of an event the program has not waited for depends on GPU timing, which is not modelled by gpumemrepl (it runs no kernels); synchronize first\nTrue True\n"},
		{"import torch\ns = torch.cuda.Stream()\ntry:\n    torch.cuda.ExternalStream(s.cuda_stream)\nexcept NotImplementedError as e:\n    print(e)",
			"torch.cuda.ExternalStream is not modelled by gpumemrepl: it wraps a CUDA stream made outside PyTorch, whose handle and work the tool does not have\n"},
		{"import torch\ntry:\n    torch.ones(1).record_stream(torch.cuda.current_stream())\nexcept NotImplementedError as e:\n    print(e)",
			"Could not run 'aten::record_stream' with arguments from the 'CPU' backend.\n"},
	}
	for _, c := range cases {
		if got := runSource(t, 1, c.src); got != c.want {
			t.Errorf("%s\nprinted %q\nwant    %q", c.src, got, c.want)
		}
	}
}

// TestEventBeforeFree: an Event recorded on the side stream before a
// record_stream tensor's free, once synchronized, lets the next malloc
// reuse the block (no work was queued on the stream between them; 4 of 4
// on the H200 behind a 0.5 s kernel: streams_probe.txt's "reuse after an
// event recorded before the free").
func TestEventBeforeFree(t *testing.T) {
	src := `import torch
s = torch.cuda.Stream()
x = torch.ones(8 * 2**20, device='cuda')
e = torch.cuda.Event()
with torch.cuda.stream(s):
    torch.cuda._sleep(1_000_000_000)
    y = x * 2
    e.record()
x.record_stream(s)
del x
r = torch.cuda.memory_reserved()
z = torch.empty(8 * 2**20, device='cuda')
print(torch.cuda.memory_reserved() - r)
del z
e.synchronize()
r = torch.cuda.memory_reserved()
z = torch.empty(8 * 2**20, device='cuda')
print(torch.cuda.memory_reserved() - r)
`
	if got, want := runSource(t, 1, src), "33554432\n0\n"; got != want {
		t.Errorf("reserved grew by %q, want %q (new segment while pending, reuse after the event)", got, want)
	}
}

// TestStreamOfAnotherDevice: torch.cuda.stream(s) of a stream of cuda:1
// makes cuda:1 the current device inside, so allocations go to s there,
// and restores both devices' streams and the device after (PyTorch's
// StreamContext and set_stream).
func TestStreamOfAnotherDevice(t *testing.T) {
	src := `import torch
s1 = torch.cuda.Stream(device=1)
with torch.cuda.stream(s1):
    print(torch.cuda.current_device(), torch.cuda.current_stream() == s1)
    x = torch.empty(1024, device='cuda')
print(torch.cuda.current_device(), x.device, torch.cuda.current_stream(1).cuda_stream)
print([(seg['device'], seg['stream'] == s1.cuda_stream) for seg in torch.cuda.memory_snapshot()])
try:
    torch.cuda.Stream().wait_stream(s1)
except NotImplementedError as e:
    print(e)
`
	want := "1 True\n0 cuda:1 0\n[(1, True)]\nwait_stream across devices is not modelled by gpumemrepl\n"
	if got := runSource(t, 2, src); got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// TestBackwardStreamsAcrossDevices: a graph on two devices that uses a
// side stream is refused (which stream a gradient crossing devices is
// summed on is not recorded); on the default streams it runs, once the
// graph that made w's AccumulateGrad on the side stream is gone.
func TestBackwardStreamsAcrossDevices(t *testing.T) {
	src := `import torch
s = torch.cuda.Stream()
w = torch.ones(4, 4, device='cuda', requires_grad=True)
with torch.cuda.stream(s):
    y = w * 2
z = y.to('cuda:1').sum()
try:
    z.backward()
except NotImplementedError as e:
    print(e)
print(w.grad)
del y, z
z = (w * 2).to('cuda:1').sum()
z.backward()
print(w.grad.shape)
`
	want := "backward through a graph on several devices that uses streams other than the default is not modelled by gpumemrepl\nNone\ntorch.Size([4, 4])\n"
	if got := runSource(t, 2, src); got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// TestStreamHandleOrder: the tool's cuda_stream numbers of the pooled
// streams sort as the driver's handles did in scripts/probe_streams.py's
// run on the H200 (34 streams of priority 0, then priorities -1, -2,
// -5, 0, 1, 3), which the caching allocator orders its pools by; their
// stream_ids are PyTorch's.
func TestStreamHandleOrder(t *testing.T) {
	probe, err := os.ReadFile(filepath.Join("..", "testdata", "pyrules", "streams_probe.txt"))
	if err != nil {
		t.Fatal(err)
	}
	field := func(prefix string) string {
		for _, l := range strings.Split(string(probe), "\n") {
			if strings.HasPrefix(l, prefix) {
				return strings.TrimPrefix(l, prefix)
			}
		}
		t.Fatalf("no %q in the probe", prefix)
		return ""
	}
	var pool, ids, prio [][]int64
	for _, f := range []struct {
		into *[][]int64
		text string
	}{{&pool, field("pool handles minus first ")}, {&ids, field("pool stream_ids ")}, {&prio, strings.SplitN(field("priorities "), "] ", 2)[1]}} {
		if err := json.Unmarshal([]byte("["+f.text+"]"), f.into); err != nil {
			t.Fatal(err)
		}
	}
	recorded := append(pool[0], prio[0]...)
	src := `import torch
ss = [torch.cuda.Stream() for _ in range(34)] + [torch.cuda.Stream(priority=p) for p in (-1, -2, -5, 0, 1, 3)]
print([s.cuda_stream for s in ss])
print([s.stream_id for s in ss[:34]])
`
	var got [][]int64
	for _, l := range strings.Split(strings.TrimSpace(runSource(t, 1, src)), "\n") {
		var row []int64
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		got = append(got, row)
	}
	if fmt.Sprint(got[1]) != fmt.Sprint(ids[0]) {
		t.Errorf("stream_ids %v, PyTorch's %v", got[1], ids[0])
	}
	for i := range recorded {
		for j := range recorded {
			if (recorded[i] < recorded[j]) != (got[0][i] < got[0][j]) {
				t.Fatalf("streams %d and %d: handles %d and %d, the driver's differ by %d", i, j, got[0][i], got[0][j], recorded[j]-recorded[i])
			}
		}
	}
}

// TestAccumulateGradStreamWarning: the backward whose weight was used on
// two streams (streams_backward.py line 86: its AccumulateGrad, made on
// the side stream, takes a gradient made on the default one) warns once
// what PyTorch warned (streams_backward.stderr, where PyTorch places it
// in torch/autograd/graph.py; the tool at the backward call).
func TestAccumulateGradStreamWarning(t *testing.T) {
	got, want := scriptStderr(t, filepath.Join("..", "testdata", "pyrules", "streams_backward.py"))
	message := func(s string) string {
		_, m, _ := strings.Cut(strings.SplitN(s, "\n", 2)[0], "UserWarning: ")
		return m
	}
	if !strings.Contains(got, "streams_backward.py:86: UserWarning: ") || strings.Count(got, "UserWarning") != 1 {
		t.Fatalf("stderr %q, want one UserWarning at line 86", got)
	}
	if message(got) == "" || message(got) != message(want) {
		t.Errorf("warned %q, PyTorch %q", message(got), message(want))
	}
}

// TestAccumulateGradStreamWarningOff: after
// torch.autograd.graph.set_warn_on_accumulate_grad_stream_mismatch(False)
// the backward of streams_warn_off.py line 18 does not warn; after True,
// line 29's does, once, as PyTorch did (streams_warn_off.stderr).
func TestAccumulateGradStreamWarningOff(t *testing.T) {
	got, want := scriptStderr(t, filepath.Join("..", "testdata", "pyrules", "streams_warn_off.py"))
	if strings.Count(want, "UserWarning") != 1 {
		t.Fatalf("the recording warned %d times, want 1", strings.Count(want, "UserWarning"))
	}
	if strings.Count(got, "UserWarning") != 1 || !strings.Contains(got, "streams_warn_off.py:29: UserWarning: ") {
		t.Errorf("stderr %q, want one UserWarning at line 29", got)
	}
}

// TestStreamContextOfAnotherDevice: with s1: for a stream of cuda:1
// makes cuda:1 the current device inside and restores cuda:0 and both
// devices' streams after (torch.Stream.__enter__ and __exit__), and
// entering it again inside is a level that changes nothing.
func TestStreamContextOfAnotherDevice(t *testing.T) {
	src := `import torch
s1 = torch.cuda.Stream(device=1)
with s1:
    with s1:
        x = torch.empty(1024, device='cuda')
    print(torch.cuda.current_device(), torch.cuda.current_stream() == s1)
print(torch.cuda.current_device(), x.device, torch.cuda.current_stream(1).cuda_stream, torch.cuda.current_stream(0).cuda_stream)
`
	want := "1 True\n0 cuda:1 0 0\n"
	if got := runSource(t, 2, src); got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// checkBackwardSums checks streams_backward_sums.py: every allocation,
// segment and free in PyTorch's order, and what each statement printed.
// Two frees of gradients record_stream'ed to the side stream (lines 33
// and 60) completed in PyTorch at the next allocation of the same
// backward, the GPU being done with the streams' work by then even
// behind the 0.5 s sleeps; the tool completes them at the next
// allocation after the synchronize. So the free_completed events are
// checked as a whole (each size as often), and lines 34 and 61, which
// print the active bytes just after, their allocated and reserved bytes.
func checkBackwardSums(t *testing.T) {
	s, printed := runRule(t, "streams_backward_sums")
	path := filepath.Join("..", "testdata", "pyrules", "streams_backward_sums.jsonl")
	want, lines := recordedEvents(t, path)
	completed := map[int64]int{}
	var got []event
	for _, e := range s.History(0) {
		switch {
		case e.Action == "free_completed":
			completed[int64(e.Size)]++
		case counted[e.Action]:
			got = append(got, event{e.Action, e.Size})
		}
	}
	i := 0
	for j, w := range want {
		if w.action == "free_completed" {
			completed[int64(w.size)]--
			continue
		}
		if i >= len(got) {
			t.Fatalf("%d events, PyTorch's %v next (line %d)", len(got), w, lines[j])
		}
		if got[i] != w {
			t.Fatalf("event %d (line %d): %v, PyTorch's %v", i, lines[j], got[i], w)
		}
		i++
	}
	for size, n := range completed {
		if n < 0 {
			t.Errorf("%d fewer frees of %d bytes completed than PyTorch's", -n, size)
		}
	}
	for line, out := range recordedOutput(t, path) {
		g := printed[line]
		if line == 34 || line == 61 {
			g, out = afterFirst(g), afterFirst(out)
		}
		if g != out {
			t.Errorf("line %d printed %q, PyTorch %q", line, g, out)
		}
	}
}

// afterFirst is a printed tuple without its first number.
func afterFirst(s string) string {
	_, rest, _ := strings.Cut(s, ",")
	return rest
}
