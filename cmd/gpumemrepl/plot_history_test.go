package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
	// Through a runner, this test binary started afresh: a child forked
	// from the test process itself reports the test process's peak RSS
	// (os/exec's vfork shares its memory until exec, and Linux keeps
	// that high-water mark across exec), which grows with the other tests.
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, binary, "run", "--fake-host", "--no-color", "--device", "sim", script)
	// a tight collector target: garbage, not the history, must not
	// decide the peak
	cmd.Env = append(os.Environ(), peakRSSRunner+"=1", "GOGC=25")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	var childKB, runnerKB int64
	if _, err := fmt.Sscan(stdout.String(), &childKB, &runnerKB); err != nil {
		t.Fatalf("the runner printed %q: %v", stdout.String(), err)
	}
	if runnerKB == 0 || childKB <= runnerKB {
		t.Fatalf("peak RSS %d KiB is the runner's (%d KiB), not the binary's own", childKB, runnerKB)
	}
	out, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	return string(out), childKB * 1024
}

// peakRSSRunner, set in the environment, makes this test binary a
// runner (runMeasured) instead of the tests.
const peakRSSRunner = "GPUMEMREPL_TEST_PEAK_RSS_RUNNER"

// runMeasured runs args[0] with the rest of args, its output discarded
// but for its stderr, then prints its peak RSS and the runner's own, in
// KiB; it returns the command's exit status.
func runMeasured(args []string) int {
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
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
	return 0
}

var (
	pointRx   = regexp.MustCompile(`<circle [^>]*><title>([^<]*)</title>`)
	bandRx    = regexp.MustCompile(`<polygon class="alloc"[^>]*><title>([^<]*)</title>`)
	summaryRx = regexp.MustCompile(`<p>([0-9]+) steps \(([0-9]+) points drawn, each the peak of ([0-9]+) steps\)\.</p>`)
)

// A script ten times longer plots in about the same memory (the history
// is at most 2000 points; it held every step before: 19 MB more for
// 100,000 steps than for 10,000 here), and the one step's peak survives
// the merging, in the chart and the timeline.
func TestPlotHistoryBounded(t *testing.T) {
	t.Parallel()
	const short, long = 10_000, 100_000
	_, rssShort := plotLongScript(t, short)
	page, rssLong := plotLongScript(t, long)
	if grew := rssLong - rssShort; grew > 6<<20 {
		t.Errorf("peak RSS %d bytes at %d steps, %d at %d: it grew by %d", rssShort, short, rssLong, long, grew)
	}
	m := summaryRx.FindStringSubmatch(page)
	if m == nil || m[1] != fmt.Sprint(long) {
		t.Fatalf("no summary of %d steps in the page (%q)", long, m)
	}
	points := pointRx.FindAllStringSubmatch(page, -1)
	if fmt.Sprint(len(points)) != m[2] || len(points) > 2000 || len(points) < 1000 {
		t.Errorf("%d points drawn, the page says %s: want 1000 to 2000", len(points), m[2])
	}
	var peaks []string
	for _, p := range points {
		if strings.Contains(p[1], "peak allocated 1024.00 MiB") {
			peaks = append(peaks, p[1])
		}
	}
	peakLine := fmt.Sprintf("%d: big = zeros 256x1024x1024 cuda", long*7/9)
	if len(peaks) != 1 || !strings.Contains(peaks[0], "most reserved at "+peakLine) {
		t.Errorf("points with the 1 GiB peak: %q, want one, at %q", peaks, peakLine)
	}
	bands := bandRx.FindAllStringSubmatch(page, -1)
	if len(bands) != 1 || !strings.Contains(bands[0][1], "1024.00 MiB\nmade in steps ") || !strings.Contains(bands[0][1], ", freed in steps ") {
		t.Errorf("timeline bands %q, want the 1 GiB one, made and freed in a merged point", bands)
	}
}
