package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A script's standard output, when it is not a terminal, is written in
// batches (one write system call a step cost a million-line script
// much of its time), but a reader of the pipe still sees each step's
// report while a later step runs: here the script waits until the test
// has read line 2's report, which it would not get if the report
// waited for the end. (time.sleep passes no time in the model: the
// script waits by looking for the file, up to 3,000,000 times, seconds
// of CPU, where the report is due within a tenth of a second.)
func TestScriptOutputReachesAPipeWhileItRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flag := filepath.Join(dir, "seen")
	path := writeScript(t, "wait.py", `import os, torch
x = torch.zeros(4, device='cuda')
n = 0
while not os.path.exists(`+"'"+flag+"'"+`) and n < 3000000:
    n += 1
print('waited', 'long' if n == 3000000 else 'until seen')
`)
	cmd := exec.Command(binary, "run", "--device", "sim", path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	var rest strings.Builder
	for sc.Scan() {
		rest.WriteString(sc.Text() + "\n")
		if strings.Contains(sc.Text(), "x: 16 bytes float32 [4] on cuda:0") {
			if err := os.WriteFile(flag, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, rest.String())
	}
	if !strings.Contains(rest.String(), "waited until seen") {
		t.Errorf("line 2's report did not reach the pipe while the script ran:\n%s", rest.String())
	}
}

// With standard output and the error stream one pipe (2>&1), a failing
// line's error comes between the reports of the lines around it.
func TestScriptOutputAndErrorsKeepTheirOrder(t *testing.T) {
	t.Parallel()
	path := writeScript(t, "order.gpumem", "x = zeros 4 cuda\ny = undefined_name + 1\nz = zeros 8 cuda\n")
	out, err := exec.Command(binary, "run", "--keep-going", "--device", "sim", path).CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("%v, want exit 1:\n%s", err, out)
	}
	s := string(out)
	first, failed, third := strings.Index(s, "x: 16 bytes"), strings.Index(s, "NameError"), strings.Index(s, "3 > z = zeros 8 cuda")
	if first < 0 || failed < first || third < failed {
		t.Errorf("line 1's report, line 2's error and line 3 out of order:\n%s", s)
	}
}
