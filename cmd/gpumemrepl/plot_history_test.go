package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// plotLongScript runs a script of n steps, all a tiny cpu tensor but one
// 1 GiB cuda tensor at step 7n/9, freed at the next, then plot; it
// returns the page and the process's peak RSS in bytes.
func plotLongScript(t *testing.T, n int) (string, int64) {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= n; i++ {
		switch i {
		case n * 7 / 9:
			b.WriteString("big = zeros 256x1024x1024 cuda\n")
		case n*7/9 + 1:
			b.WriteString("del big\n")
		default:
			b.WriteString("x = zeros 16 cpu\n")
		}
	}
	page := filepath.Join(dir, "long.html")
	fmt.Fprintf(&b, "plot %s\n", page)
	script := filepath.Join(dir, "long.gpumem")
	if err := os.WriteFile(script, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	// a tight collector target: garbage, not the history, must not
	// decide the peak
	errOut, code, rss := runPeakRSS(t, nil, []string{"GOGC=25"}, "run", "--fake-host", "--no-color", "--device", "sim", script)
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	out, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), rss
}

// runPeakRSS runs the binary with args (stdin its input, env added to
// the environment) and returns its stderr, its exit status and its peak
// RSS in bytes. It runs through a runner, this test binary started
// afresh: a child forked from the test process itself reports the test
// process's peak RSS (os/exec's vfork shares its memory until exec, and
// Linux keeps that high-water mark across exec), which grows with the
// other tests.
func runPeakRSS(t *testing.T, stdin io.Reader, env []string, args ...string) (string, int, int64) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, append([]string{binary}, args...)...)
	cmd.Env = append(append(os.Environ(), peakRSSRunner+"=1"), env...)
	var stdout, stderr strings.Builder
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, &stdout, &stderr
	cmd.Run() //nolint:errcheck // the exit status is the runner's answer
	var childKB, runnerKB int64
	if _, err := fmt.Sscan(stdout.String(), &childKB, &runnerKB); err != nil {
		t.Fatalf("the runner printed %q: %v; stderr %s", stdout.String(), err, stderr.String())
	}
	// (the runner is this test binary, chromedp and all, so the child's
	// figure may be the smaller: it is read from wait4, the child's own)
	if runnerKB == 0 || childKB < 8<<10 {
		t.Fatalf("peak RSS %d KiB (the runner's %d KiB): not a gpumemrepl run's", childKB, runnerKB)
	}
	return stderr.String(), cmd.ProcessState.ExitCode(), childKB * 1024
}

// peakRSSRunner, set in the environment, makes this test binary a
// runner (runMeasured) instead of the tests.
const peakRSSRunner = "GPUMEMREPL_TEST_PEAK_RSS_RUNNER"

// runMeasured runs args[0] with the rest of args, on the runner's stdin,
// its output discarded but for its stderr, then prints its peak RSS and the runner's own, in
// KiB; it returns the command's exit status.
func runMeasured(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stderr = os.Stdin, os.Stderr
	if err := cmd.Run(); cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, err)
		return 125
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var own int64
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			fmt.Sscan(rest, &own) //nolint:errcheck // left 0 if it does not parse: the test refuses a 0
		}
	}
	fmt.Println(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss, own)
	return cmd.ProcessState.ExitCode()
}

// pageData is the JSON a page draws.
func pageData(t *testing.T, page string) map[string]any {
	t.Helper()
	const open = `<script id="data" type="application/json">`
	i := strings.Index(page, open)
	j := strings.Index(page[i+len(open):], "</script>")
	if i < 0 || j < 0 {
		t.Fatal("no data in the page")
	}
	var d map[string]any
	if err := json.Unmarshal([]byte(page[i+len(open):i+len(open)+j]), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// A script ten times longer plots in about the same memory (the history
// is at most 2000 points; it held every step before: 19 MB more for
// 100,000 steps than for 10,000 here), and the one step's peak survives
// the merging, in the step list and the timeline.
func TestPlotHistoryBounded(t *testing.T) {
	t.Parallel()
	const short, long = 10_000, 100_000
	_, rssShort := plotLongScript(t, short)
	page, rssLong := plotLongScript(t, long)
	if grew := rssLong - rssShort; grew > 6<<20 {
		t.Errorf("peak RSS %d bytes at %d steps, %d at %d: it grew by %d", rssShort, short, rssLong, long, grew)
	}
	d := pageData(t, page)
	points := d["steps"].([]any)
	steps := 0
	var peaks []string
	for _, p := range points {
		pt := p.(map[string]any)
		steps += int(pt["count"].(float64))
		if pt["peak"].(float64) >= 1<<30 {
			peaks = append(peaks, pt["label"].(string))
		}
	}
	if steps != long || len(points) > 2000 || len(points) < 1000 {
		t.Errorf("%d points of %d steps in the page: want 1000 to 2000 points of %d", len(points), steps, long)
	}
	peakLine := fmt.Sprintf("%d: big = zeros 256x1024x1024 cuda", long*7/9)
	if len(peaks) != 1 || peaks[0] != peakLine {
		t.Errorf("points with the 1 GiB peak: %q, want one, %q", peaks, peakLine)
	}
	var big []any
	for _, b := range d["bands"].([]any) {
		if r := b.([]any); r[1].(float64) == 1<<30 {
			big = append(big, r)
		}
	}
	if len(big) != 1 || big[0].([]any)[3].(float64) < 0 {
		t.Errorf("1 GiB bands %v: want the one, freed", big)
	}
}
