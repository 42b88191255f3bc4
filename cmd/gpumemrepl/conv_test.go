package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestConvNotRecordedThenLoaded: through the binary, a convolution the
// table does not hold runs estimated (≈, the estimate named); under
// --strict it stops the script at its position with exit 1 and the
// probe's line that records it; the same script runs exact once
// GPUMEMREPL_CONV_TABLE or --calibration names a recording of that
// configuration, whose workspace then shows in the peak.
func TestConvNotRecordedThenLoaded(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "conv.py")
	src := "import torch\nimport torch.nn.functional as F\nx = torch.randn(3, 5, 7, 9, device='cuda')\nw = torch.randn(4, 5, 3, 3, device='cuda')\ny = F.conv2d(x, w, padding=1)\nprint(torch.cuda.max_memory_allocated() - torch.cuda.memory_allocated())\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(binary, "run", "--fake-host", "--device", "sim", script)
	cmd.Env = append(os.Environ(), "GPUMEMREPL_CONV_TABLE=", "GPUMEMREPL_CALIBRATION=")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "  ≈ host") || !strings.Contains(string(out), "estimated: F.conv2d [3, 5, 7, 9] x [4, 5, 3, 3] stride [1, 1] float32: cuDNN's workspace of an unrecorded configuration, taken from the nearest recorded one,") {
		t.Fatalf("estimated: %v\n%s", err, out)
	}
	cmd = exec.Command(binary, "run", "--strict", "--fake-host", "--device", "sim", script)
	cmd.Env = append(os.Environ(), "GPUMEMREPL_CONV_TABLE=", "GPUMEMREPL_CALIBRATION=")
	out, err = cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1:\n%s", err, out)
	}
	want := script + ":5:5: NotImplementedError: F.conv2d of input [3, 5, 7, 9], weight [4, 5, 3, 3], stride [1, 1], padding [1, 1], dilation [1, 1], groups 1, bias False, float32, deterministic=False is not modelled by gpumemrepl"
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), "python3 scripts/probe_conv.py table conv.jsonl.gz --config '{") {
		t.Fatalf("output:\n%s\nwant %q and the probe's line", out, want)
	}
	rec := `{"x": [3, 5, 7, 9], "w": [4, 5, 3, 3], "stride": [1, 1], "padding": [1, 1], "dilation": [1, 1], "groups": 1, "bias": false, "dtype": "float32", "format": "contiguous", "deterministic": false, "x_bytes": 3780, "w_bytes": 720, "y_bytes": 3024, "fwd": {"events": [["alloc", 3024, 0], ["alloc", 1000000, 1], ["free_requested", 1000000, 1], ["free_completed", 1000000, 1]]}}` + "\n"
	table := filepath.Join(dir, "mine.jsonl")
	if err := os.WriteFile(table, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"run", "--strict"}, {"run", "--strict", "--calibration", table}} {
		cmd = exec.Command(binary, append(args, "--fake-host", "--device", "sim", script)...)
		cmd.Env = append(os.Environ(), "GPUMEMREPL_CALIBRATION=")
		if len(args) == 2 {
			cmd.Env = append(cmd.Env, "GPUMEMREPL_CONV_TABLE="+table)
		}
		out, err = cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "\n1000448\n") || strings.Contains(string(out), "≈") {
			t.Fatalf("%v with the table: %v\n%s\nwant the 1000448-byte workspace printed, exact", args, err, out)
		}
	}
}
