package main

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// runStdin runs the binary with args and stdin, returning stdout, stderr
// and the exit status.
func runStdin(t *testing.T, stdin string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return stdout.String(), stderr.String(), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return stdout.String(), stderr.String(), 0
}

// noGPU skips a test that is about a machine without a GPU.
func noGPU(t *testing.T) {
	if _, _, code := runStdin(t, "gpus\n", "--device", "cuda"); code == 0 {
		t.Skip("this machine has a GPU")
	}
}

func TestDeviceFlag(t *testing.T) {
	t.Parallel()
	noGPU(t)
	for _, tc := range []struct {
		args       []string
		code       int
		stdout     string // a substring of stdout
		stderr     string // a substring of stderr; "" for none at all
		stderrOnce bool
	}{
		{[]string{"--device", "auto", "--no-color"}, 0, "cuda:0  simulated h200, 139.80 GiB", "no usable CUDA GPU: libcuda.so.1", true},
		{[]string{"--device", "cuda"}, 2, "", "gpumemrepl: no usable CUDA GPU: libcuda.so.1", true},
		{[]string{"--preset", "t4"}, 0, "cuda:0  simulated t4, 14.57 GiB (15642329088 bytes)", "", false},
		{[]string{"--device", "sim", "--context-bytes", "2097152"}, 0, "2.00 MiB CUDA context", "", false},
		{[]string{"--device", "cuda", "--preset", "t4"}, 2, "", "--preset describes a simulated device; it does not go with --device cuda", true},
		{[]string{"--device", "tpu"}, 2, "", `--device "tpu": want auto, sim or cuda`, true},
		{[]string{"--preset", "k80"}, 2, "", `unknown preset "k80" (presets: a100-40gb, a100-80gb, h100, h200, rtx4090, t4)`, true},
	} {
		out, errOut, code := runStdin(t, "gpus\n", tc.args...)
		if code != tc.code || !strings.Contains(out, tc.stdout) {
			t.Errorf("%v: exit %d, stdout %q", tc.args, code, out)
		}
		if tc.stderr == "" && errOut != "" || !strings.Contains(errOut, tc.stderr) || tc.stderrOnce && strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: stderr %q, want %q once", tc.args, errOut, tc.stderr)
		}
	}
}

func TestReplayDeviceCUDAWithoutGPU(t *testing.T) {
	t.Parallel()
	noGPU(t)
	_, errOut, code := run(t, "replay", "--device", "cuda", goodTrace)
	if code != 2 || !strings.Contains(errOut, "gpumemrepl replay: --device cuda: libcuda.so.1") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

func TestReplayNoEmptyCache(t *testing.T) {
	t.Parallel()
	out, _, code := run(t, "replay", "--no-empty-cache", "../../testdata/perf_trace.json.gz")
	// 200,000 ops less the 2,068 empty_cache ones; the cache then only grows.
	if code != 0 || !strings.Contains(out, ": 197932 ops, 0 OOMs;") || !strings.Contains(out, " 48 device allocs") {
		t.Errorf("exit %d: %s", code, out)
	}
	if _, errOut, code := run(t, "replay", "--no-empty-cache", "--check", goodTrace); code != 2 || !strings.Contains(errOut, "--check has nothing recorded to compare with") {
		t.Errorf("--no-empty-cache --check: exit %d, %q", code, errOut)
	}
}

func TestReplayCheckKeys(t *testing.T) {
	t.Parallel()
	// Under the wrong limit the trace's OOMs do not happen: --keys still
	// compares the error texts, and a key prefix narrows the rest.
	out, _, code := run(t, "replay", "--check", "--keys", "allocated_bytes.all", goodTrace)
	if code != 0 || !strings.Contains(out, "ok   ") {
		t.Errorf("--keys allocated_bytes.all: exit %d: %s", code, out)
	}
	full, _, _ := run(t, "replay", "--check", goodTrace)
	if n, m := valuesMatched(t, out), valuesMatched(t, full); n >= m || n == 0 {
		t.Errorf("--keys compared %d values, the full check %d", n, m)
	}
	out, _, code = run(t, "replay", "--check", "--keys", "reserved_bytes", "--limit-bytes", "150109880320", goodTrace)
	if code != 1 || !strings.Contains(out, "first mismatch at op") {
		t.Errorf("--keys under the wrong limit: exit %d: %s", code, out)
	}
}

var valuesLine = regexp.MustCompile(`(\d+) values match`)

// valuesMatched reads the count of --check's ok line.
func valuesMatched(t *testing.T, out string) int {
	m := valuesLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no values count in %q", out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// A cpu tensor from empty is not written, so RSS does not rise; zeros
// writes every page.
func TestHostEmptyIsNotTouched(t *testing.T) {
	t.Parallel()
	out, _, code := runStdin(t, "a = empty 256x1024x1024 cpu\nb = zeros 256x1024x1024 cpu\n", "--json", "--device", "sim")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var rss []int64
	for _, r := range rowsOf(t, out) {
		if r.HostRSS == nil {
			t.Fatalf("line %d: no host RSS", r.Line)
		}
		rss = append(rss, *r.HostRSS)
	}
	if len(rss) != 2 {
		t.Fatalf("rows %v", rss)
	}
	if rss[0] > 256<<20 || rss[1]-rss[0] < 900<<20 {
		t.Errorf("RSS after empty %d, after zeros %d: empty must not touch its pages, zeros must", rss[0], rss[1])
	}
}

// replay --preset sizes the simulated device: the OOM message names the
// preset's total.
func TestReplayPreset(t *testing.T) {
	t.Parallel()
	out, _, code := run(t, "replay", "--json", "--preset", "t4", "--alloc-conf", "", "../../testdata/traces/limit512m_s0.json.gz")
	if code != 0 || !strings.Contains(out, "GPU 0 has a total capacity of 14.57 GiB") {
		t.Errorf("exit %d; no OOM naming the T4's 14.57 GiB in %.300s", code, out)
	}
	if _, errOut, code := run(t, "replay", "--preset", "k80", goodTrace); code != 2 || !strings.Contains(errOut, `--preset "k80": want one of a100-40gb`) {
		t.Errorf("unknown preset: exit %d, %q", code, errOut)
	}
}
