package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// On a machine with 32 GiB and 21 GiB available (a fake meminfo), a
// 20 GiB cpu tensor is refused in PyTorch's words, since it would leave
// less than the 5% margin, and a 19 GiB one is admitted.
func TestHostTensorNeedsMargin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	meminfo := filepath.Join(dir, "meminfo")
	if err := os.WriteFile(meminfo, []byte("MemTotal:       33554432 kB\nMemFree:        22020096 kB\nMemAvailable:   22020096 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "--fake-host", "--no-color", "--keep-going", "--device", "sim")
	cmd.Env = append(os.Environ(), "GPUMEMREPL_MEMINFO="+meminfo)
	cmd.Stdin = strings.NewReader("a = zeros 5x1024x1024x1024 cpu\nb = zeros 19x256x1024x1024 cpu\n")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if want := "<stdin>:1:5: RuntimeError: DefaultCPUAllocator: can't allocate memory: you tried to allocate 21474836480 bytes. Error code 12 (Cannot allocate memory)\n"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if want := "b: 19.00 GiB float32 [19, 256, 1024, 1024] on cpu"; !strings.Contains(stdout.String(), want) || strings.Contains(stdout.String(), "a: ") {
		t.Errorf("stdout %q, want b admitted and a not", stdout.String())
	}
}
