// Tests through the built binary, as a user runs it. The oracles are
// PyTorch 2.11 on the H200 and CPython: the programs of testdata/pyrules
// and their recordings (TestPythonAsPasted: every program of
// testdata/python_passing.txt matches PyTorch's allocated and reserved
// bytes at every statement), the golden transcripts of testdata/golden,
// python/eval's CPython goldens (TestPythonSemantics), and the recorded
// traces and snapshots (replay --check).
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var binary string

// TestMain builds the gpumemrepl binary once, so the tests run it as a
// user does; GPUMEMREPL_BINARY names a binary built already (the GPU
// machine has no Go).
func TestMain(m *testing.M) {
	if os.Getenv(peakRSSRunner) != "" {
		os.Exit(runMeasured(os.Args[1:]))
	}
	if binary = os.Getenv("GPUMEMREPL_BINARY"); binary != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "gpumemrepl-test")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "gpumemrepl")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run runs the binary with args and no input.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return runStdin(t, "", args...)
}

const goodTrace = "../../testdata/traces/limit2g_s0.json.gz"

func TestReplayCheckPasses(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, "replay", "--check", goodTrace)
	if code != 0 || !strings.HasPrefix(out, "ok   ") || !strings.Contains(out, "600 ops") {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
}

func TestReplayCheckFailsOnOtherConfig(t *testing.T) {
	t.Parallel()
	// The trace was recorded under a 2 GiB limit: without it PyTorch's
	// recorded OOMs do not happen, and --check must say so.
	out, _, code := run(t, "replay", "--check", "--limit-bytes", "150109880320", goodTrace)
	if code != 1 || !strings.HasPrefix(out, "FAIL ") || !strings.Contains(out, "first mismatch at op") {
		t.Fatalf("exit %d, stdout %s", code, out)
	}
}

func TestReplayJSON(t *testing.T) {
	t.Parallel()
	out, _, code := run(t, "replay", "--json", goodTrace)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 600 {
		t.Fatalf("exit %d, %d lines", code, len(lines))
	}
	if !strings.HasPrefix(lines[0], `{"active.all.allocated":`) || !strings.Contains(lines[0], `"i":0}`) {
		t.Errorf("first row: %s", lines[0])
	}
	errs := strings.Count(out, `"error":"CUDA out of memory. Tried to allocate`)
	if errs == 0 {
		t.Errorf("no OOM rows in a trace that hit the 2 GiB limit")
	}
}

func TestReplayBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", "--alloc-conf", "max_split_size_mb:5", goodTrace}, "max_split_size_mb:5: CachingAllocator option max_split_size_mb too small, must be >= 20"},
		{[]string{"replay", "nope.json"}, "nope.json: open nope.json: no such file"},
		{[]string{"replay", "--limit-bytes", "lots", goodTrace}, `--limit-bytes "lots": want a byte count`},
		{[]string{"replay"}, "no trace file given"},
	} {
		_, errOut, code := run(t, tc.args...)
		if code == 0 || !strings.Contains(errOut, tc.want) || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
			t.Errorf("%v: exit %d, stderr %q, want one line with %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestHelp(t *testing.T) {
	t.Parallel()
	out, _, code := run(t, "help")
	if code != 0 || !strings.Contains(out, "replay [flags] TRACE") || !strings.Contains(out, "--check") {
		t.Errorf("help: exit %d, %s", code, out)
	}
}

func TestReplaySummary(t *testing.T) {
	t.Parallel()
	out, _, code := run(t, "replay", "--summary", goodTrace)
	if code != 0 || !strings.Contains(out, "|                  PyTorch CUDA memory summary, device ID 0                 |") ||
		!strings.Contains(out, "| Allocated memory      |") || strings.Count(out, "\n") != 48 {
		t.Errorf("exit %d, output:\n%s", code, out)
	}
}

// A host tensor larger than the machine's available memory is refused in
// PyTorch's words, never taken, and the session goes on.
func TestHostAllocationRefused(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(binary, "--keep-going")
	cmd.Stdin = strings.NewReader("a = zeros 100000x1024x1024 cpu\nb = zeros 10 cpu\nvars\n")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v", err)
	}
	if want := "<stdin>:1:5: RuntimeError: DefaultCPUAllocator: can't allocate memory: you tried to allocate 419430400000 bytes. Error code 12 (Cannot allocate memory)"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if out := stdout.String(); strings.Contains(out, "a        ") || !strings.Contains(out, "b        40 bytes float32 [10] on cpu") {
		t.Errorf("vars after the refusal:\n%s", out)
	}
}
