package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// runCalibrated runs script through the binary with the built-in conv
// table held out (GPUMEMREPL_FORCE_GENERAL=conv2d: every convolution
// estimated from the other recordings) and the args given, and lists the
// statements whose figures differ from the recording and those marked
// estimated.
func runCalibrated(t *testing.T, script, recording string, args ...string) (diffs, estimated []string) {
	t.Helper()
	want, _ := readRecording(t, recording)
	cmd := exec.Command(binary, append(append([]string{"run", "--json", "--fake-host", "--device", "sim", "--keep-going"}, args...), script)...)
	cmd.Env = append(os.Environ(), forceGeneralEnv+"=conv2d", "GPUMEMREPL_CALIBRATION=", "GPUMEMREPL_CONV_TABLE=")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	got := map[int]pythonStep{}
	for _, l := range strings.Split(string(out), "\n") {
		var s struct {
			pythonStep
			Exact *bool `json:"exact"`
		}
		if json.Unmarshal([]byte(l), &s) == nil && s.Line > 0 {
			got[s.Line] = s.pythonStep
			if s.Exact != nil && !*s.Exact {
				estimated = append(estimated, fmt.Sprint(s.Line))
			}
		}
	}
	for _, w := range want {
		g, ok := got[w.Line]
		if !ok || len(w.Devices) == 0 {
			continue
		}
		d := w.Devices[0]
		if g.Allocated != d.Allocated || g.Reserved != d.Reserved || g.MaxAlloc != d.MaxAllocated || g.MaxReserv != d.MaxReserved {
			diffs = append(diffs, fmt.Sprintf("line %d: %d %d %d %d, PyTorch %d %d %d %d", w.Line, g.Allocated, g.Reserved,
				g.MaxAlloc, g.MaxReserv, d.Allocated, d.Reserved, d.MaxAllocated, d.MaxReserved))
		}
	}
	return diffs, estimated
}

// TestCalibrationThroughTheBinary: train_cnn.py with its convolutions'
// recordings held out is estimated (rows exact: false) and off PyTorch's
// figures somewhere; with --calibration naming the calibration example
// (those recordings in the documented compact form, docs/calibration.md)
// every statement is exact again and matches PyTorch's allocated,
// reserved and peaks; a calibration file that does not read stops the
// run at the start, naming its file and line (run's flag, and fit's
// GPUMEMREPL_CALIBRATION); help calibration says how to make one.
func TestCalibrationThroughTheBinary(t *testing.T) {
	script, recording := "../../testdata/models/train_cnn.py", "../../testdata/models/train_cnn.jsonl"
	diffs, estimated := runCalibrated(t, script, recording)
	if len(estimated) == 0 || len(diffs) == 0 {
		t.Errorf("held out: %d statements estimated, %d differ from PyTorch; want some of each", len(estimated), len(diffs))
	}
	diffs, estimated = runCalibrated(t, script, recording, "--calibration", "../../testdata/conv/calibration_example.jsonl")
	if len(estimated) != 0 || len(diffs) != 0 {
		t.Errorf("calibrated: estimated at lines %v; differ: %v", estimated, diffs)
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"calibration\": \"x\"}\n{\"x\":[1,3,8,8],\"w\":[4,3,3,3],\"stride\":[1,1],\"padding\":[0,0],\"dilation\":[1,1],\"groups\":1,\"bias\":false,\"dtype\":\"float32\",\"format\":\"contiguous\",\"deterministic\":false,\"fwd\":\"y +64\",\"bwd\":{}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, "run", "--calibration", bad, "--fake-host", "--device", "sim", script)
	want := "calibration file " + bad + ": line 2: fwd: its temporary 1 (+64) is not freed"
	if code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d:\n%s\nwant exit 1 and %q", code, errOut, want)
	}
	cmd := exec.Command(binary, "fit", script)
	cmd.Env = append(os.Environ(), "GPUMEMREPL_CALIBRATION="+bad)
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), want) {
		t.Errorf("fit with GPUMEMREPL_CALIBRATION naming a bad file: %v\n%s\nwant an error and %q", err, out, want)
	}
	help, _, _ := runStdin(t, "help calibration\n")
	if !strings.Contains(help, "python3 scripts/calibrate.py FILE.py") || !strings.Contains(help, "docs/calibration.md") {
		t.Errorf("help calibration:\n%s", help)
	}
}

// TestCalibrationMakesResNet50Exact: the zoo's resnet50_train.py, whose
// convolutions at batch 12 the H200 never recorded (--strict refuses its
// first), run with the calibration file scripts/calibrate.py made of it
// on the GPU machine (testdata/models/zoo/resnet50_train.calibration.jsonl,
// its 23 configurations) matches PyTorch's recording at every statement
// under --strict, no statement estimated.
func TestCalibrationMakesResNet50Exact(t *testing.T) {
	script := "../../testdata/models/zoo/resnet50_train.py"
	want, _ := readRecording(t, "../../testdata/models/zoo/resnet50_train.jsonl")
	if diffs, _ := diffSteps(want, runScriptOn(script, true, "h200")); len(diffs) == 0 {
		t.Errorf("--strict without the calibration matches PyTorch; want its convolutions refused")
	}
	out, _, code := run(t, "run", "--json", "--fake-host", "--device", "sim", "--keep-going", "--strict", "--preset", "h200",
		"--calibration", "../../testdata/models/zoo/resnet50_train.calibration.jsonl", script)
	var steps []pythonStep
	for _, l := range strings.Split(out, "\n") {
		var s struct {
			pythonStep
			Exact *bool `json:"exact"`
		}
		if json.Unmarshal([]byte(l), &s) == nil && s.Line > 0 {
			steps = append(steps, s.pythonStep)
			if s.Exact != nil && !*s.Exact {
				t.Errorf("line %d: estimated", s.Line)
			}
		}
	}
	if diffs, _ := diffSteps(want, steps); code != 0 || len(diffs) != 0 {
		t.Errorf("calibrated: exit %d, differs from PyTorch at %v", code, diffs)
	}
}
