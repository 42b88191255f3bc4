package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The simulated machine's host memory is this machine's MemTotal (here
// a fake meminfo of 32 GiB) or --host-total: a host tensor that would
// take the live ones past it is refused in PyTorch's words, whatever
// the host budget; one within it is admitted, counted when past the
// budget.
func TestHostTotal(t *testing.T) {
	t.Parallel()
	meminfo := filepath.Join(t.TempDir(), "meminfo")
	if err := os.WriteFile(meminfo, []byte("MemTotal:       33554432 kB\nMemFree:        22020096 kB\nMemAvailable:   22020096 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flags     []string
		refused   string
		admitted  string
		forbidden string
	}{
		{nil, "<stdin>:2:5: RuntimeError: DefaultCPUAllocator: can't allocate memory: you tried to allocate 13958643712 bytes. Error code 12 (Cannot allocate memory)\n", "a: 20.00 GiB float32", "b: "},
		{[]string{"--host-total", "16G"}, "<stdin>:1:5: RuntimeError: DefaultCPUAllocator: can't allocate memory: you tried to allocate 21474836480 bytes.", "", "a: "},
		{[]string{"--host-total", "64GiB"}, "", "b: 13.00 GiB float32", ""},
	} {
		cmd := exec.Command(binary, append([]string{"--fake-host", "--no-color", "--keep-going", "--device", "sim"}, tc.flags...)...)
		cmd.Env = append(os.Environ(), "GPUMEMREPL_MEMINFO="+meminfo)
		cmd.Stdin = strings.NewReader("a = zeros 5x1024x1024x1024 cpu\nb = zeros 13x256x1024x1024 cpu\n")
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if tc.refused != "" && (code != 1 || !strings.Contains(stderr.String(), tc.refused)) || tc.refused == "" && code != 0 {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.flags, code, stderr.String(), tc.refused)
		}
		if !strings.Contains(stdout.String(), tc.admitted) || tc.forbidden != "" && strings.Contains(stdout.String(), tc.forbidden) {
			t.Errorf("%v: stdout %q; want %q and not %q", tc.flags, stdout.String(), tc.admitted, tc.forbidden)
		}
	}
}

// A script stopped by the simulated machine's host memory says, at its
// end, what was asked for past it and how to simulate a larger machine.
func TestHostTotalSaysHowToGoOn(t *testing.T) {
	t.Parallel()
	script := writeScript(t, "big.py", "import torch\na = torch.zeros(5, 1024, 1024, 1024)\nb = torch.zeros(13, 256, 1024, 1024)\n")
	out, errOut, code := run(t, "run", "--device", "sim", "--no-color", "--host-total", "24G", script)
	want := "host: 13.00 GiB more host memory, with 20.00 GiB of host tensors live, was past the simulated machine's 24.00 GiB (--host-total, by default this machine's memory); a larger one, --host-total 64G say, simulates a machine with more\n"
	if code != 1 || !strings.Contains(out, want) || !strings.Contains(errOut, "DefaultCPUAllocator: can't allocate memory: you tried to allocate 13958643712 bytes") {
		t.Errorf("exit %d, want %q in\n%s%s", code, want, out, errOut)
	}
	if out, _, code = run(t, "run", "--device", "sim", "--no-color", "--host-total", "64G", script); code != 0 || strings.Contains(out, "--host-total 64G say") {
		t.Errorf("with room: exit %d\n%s", code, out)
	}
}

// Host tensors past the host budget are counted, not allocated: RSS
// stays where it was, the step report and --json say how much is
// counted, and once that some are; the end of the run says the peak.
// Within the budget they are real memory again.
func TestHostBudget(t *testing.T) {
	t.Parallel()
	script := writeScript(t, "host.py", `import torch
a = torch.zeros(256, 1024, 1024)
del a
b = torch.zeros(16, 1024, 1024)
`)
	out, errOut, code := run(t, "run", "--device", "sim", "--no-color", "--host-budget", "512M", script)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		" (1024.00 MiB +1024.00 MiB counted)\n",
		"host: host tensors reached 1024.00 MiB in this step and hold 1024.00 MiB now; past the 512.00 MiB budget (--host-budget) they are counted, not allocated",
		"host: the program's host tensors peaked at 1024.00 MiB (what PyTorch would take of the machine's memory); past the 512.00 MiB budget (--host-budget) they were counted, not allocated\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	out, _, code = run(t, "run", "--device", "sim", "--json", "--host-budget", "512M", script)
	var rss, counted []uint64
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var row struct {
			RSS     uint64 `json:"host_rss_bytes"`
			Counted uint64 `json:"host_counted_bytes"`
		}
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		rss, counted = append(rss, row.RSS), append(counted, row.Counted)
	}
	if code != 0 || len(rss) != 4 || counted[1] != 1<<30 || counted[2] != 0 || counted[3] != 0 {
		t.Fatalf("exit %d, counted %v", code, counted)
	}
	if rss[1]-rss[0] > 64<<20 || rss[3]-rss[2] < 60<<20 {
		t.Errorf("RSS %v: the counted 1 GiB must not be resident, the 64 MiB within the budget must", rss)
	}
}
