package main

import (
	"strings"
	"testing"
)

// The command line's habits: --version, --help anywhere, gpumemrepl FILE
// as python FILE, and exit status 2 for a usage error.
func TestCommandLineHabits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args       []string
		code       int
		out, err   string
		oneErrLine bool
	}{
		{[]string{"--version"}, 0, "modelling PyTorch " + pytorchVersion + "'s CUDA caching allocator\n", "", false},
		{[]string{"replay", goodTrace, "--help"}, 0, "Exit status: 0 ok; 1 an error in the input", "", false},
		{[]string{"run", "-h"}, 0, "--recorded-limit-bytes N", "", false},
		{[]string{"run"}, 2, "", "gpumemrepl run: no script given", true},
		{[]string{"run", "--json", "--device=sim"}, 2, "", "gpumemrepl run: no script given", true},
		{[]string{"repaly", goodTrace}, 2, "", `gpumemrepl: "repaly" is neither a command (run, replay, fit, diff, help) nor a file`, true},
		{[]string{"--device=sim", "--total-bytes", "1", "nothere.gpumem"}, 2, "", "gpumemrepl: a simulated GPU of 1 bytes has no room beside its 639631360-byte CUDA context", true},
		{[]string{"help", "fit"}, 0, "fit flags (each GPU runs the script afresh", "", false},
		// a command of the prompt: its usage alone; no such topic: an error
		{[]string{"help", "peak"}, 0, "peak [now] [DEVICE] [json]\n  what the device held", "", false},
		{[]string{"help", "nonsense"}, 2, "", `gpumemrepl help: no topic "nonsense": the commands are run, replay, fit, diff, help; gpumemrepl help lists the prompt's too`, true},
		{[]string{"--device=sim", "nothere.gpumem"}, 1, "", "open nothere.gpumem: no such file or directory", true},
		// a flag after "--" is a file name, not a request for help
		{[]string{"run", "--device=sim", "--", "--help"}, 1, "", "open --help: no such file or directory", true},
	} {
		out, errOut, code := runHere(tc.args...)
		if code != tc.code || !strings.Contains(out, tc.out) || !strings.Contains(errOut, tc.err) || tc.oneErrLine && strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d (want %d)\nstdout %.200q (want %q)\nstderr %q (want %q)", tc.args, code, tc.code, out, tc.out, errOut, tc.err)
		}
	}
}

// gpumemrepl FILE runs FILE: the same transcript as gpumemrepl run FILE.
func TestFileRunsAsRun(t *testing.T) {
	t.Parallel()
	flags := []string{"--device", "sim", "--fake-host", "--no-color"}
	script := "../../scripts/seed000.gpumem"
	out, errOut, code := run(t, append(flags, script)...)
	want, _, _ := run(t, append(append([]string{"run"}, flags...), script)...)
	if code != 0 || out != want || !strings.Contains(out, "> c = zeros 256x1024x1024 cuda") {
		t.Errorf("gpumemrepl FILE: exit %d, %s\nstdout:\n%s\nwant:\n%s", code, errOut, out, want)
	}
}

// help NAME gives that command's usage and flags, not the others'.
func TestHelpPerCommand(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{"run": "REPL and run flags:", "replay": "replay flags", "fit": "fit flags", "diff": "diff flags"} {
		out, _, code := run(t, "help", name)
		if code != 0 || !strings.Contains(out, "  gpumemrepl "+name) && name != "run" || !strings.Contains(out, want) {
			t.Errorf("help %s: exit %d:\n%s", name, code, out)
		}
		for other, section := range map[string]string{"run": "REPL and run flags:", "replay": "replay flags", "fit": "fit flags", "diff": "diff flags"} {
			if other != name && strings.Contains(out, section) {
				t.Errorf("help %s has %q", name, section)
			}
		}
	}
	if out, _, _ := run(t, "help", "run"); !strings.Contains(out, "--peak") || !strings.Contains(out, "--plot FILE.html") {
		t.Errorf("help run has no --peak or --plot:\n%s", out)
	}
	// a command of the prompt gets its own help, not the whole usage
	for _, name := range []string{"plot", "peak", "explain", "map"} {
		if out, _, code := run(t, "help", name); code != 0 || !strings.HasPrefix(out, name+" ") || strings.Contains(out, "Usage:") {
			t.Errorf("help %s: exit %d:\n%s", name, code, out)
		}
	}
}
