package main

import (
	"strings"
	"testing"
)

// TestDriverAddresses: with --driver-addresses the simulated H200 takes
// the address space the CUDA driver takes for itself, and
// testdata/pyrules/ckpt_block.py, whose best fit breaks a tie between
// two free 6 MiB blocks by their addresses, matches its recording at
// every statement (--strict); without it the tool takes the other block
// and reserves 16 MiB more from line 35 on.
func TestDriverAddresses(t *testing.T) {
	const script = "../../testdata/pyrules/ckpt_block.py"
	want, _ := readRecording(t, recordingOf("pyrules/ckpt_block", script))
	if diffs, _ := diffSteps(want, runScriptOn(script, true, "h200", "--driver-addresses")); len(diffs) > 0 {
		t.Errorf("with --driver-addresses ckpt_block.py differs from PyTorch:\n%s", strings.Join(diffs, "\n"))
	}
	diffs, _ := diffSteps(want, runScriptOn(script, true, "h200"))
	if len(diffs) == 0 || !strings.HasPrefix(diffs[0], "line 35:") {
		t.Errorf("without --driver-addresses ckpt_block.py's first difference is %q, want line 35's", diffs)
	}
	// the flag describes a simulated device: it does not go with a real one
	if _, errOut, code := run(t, "run", "--device", "cuda", "--driver-addresses", script); code == 0 || !strings.Contains(errOut, "--driver-addresses describes a simulated device") {
		t.Errorf("--device cuda --driver-addresses: exit %d, %s", code, errOut)
	}
}
