package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRoundsCopiesMatchTheirExperiments holds each
// testdata/experiments/gc/rounds/NAME.py, the copy of a leak experiment
// that scripts/gc_free_lists_rounds.sh recorded with the free lists read,
// to what that script makes of NAME.py today (`import torch` becomes
// `import torch, sys`; a read before each indented print), so an
// experiment changed without its copy being recorded again fails here
// instead of leaving TestFreeLists to read a program that is no longer
// the one the tool runs.
func TestRoundsCopiesMatchTheirExperiments(t *testing.T) {
	const dir = "../../testdata/experiments/gc/"
	copies, err := filepath.Glob(dir + "rounds/*.py")
	if err != nil || len(copies) == 0 {
		t.Fatalf("no rounds/*.py under %s: %v", dir, err)
	}
	importTorch := regexp.MustCompile(`(?m)^import torch$`)
	indentedPrint := regexp.MustCompile(`(?m)^( +)print\(`)
	for _, c := range copies {
		name := filepath.Base(c)
		src, err := os.ReadFile(dir + name)
		if err != nil {
			t.Errorf("%s has no experiment beside it: %v", c, err)
			continue
		}
		want := importTorch.ReplaceAllString(string(src), "import torch, sys")
		want = indentedPrint.ReplaceAllString(want, "${1}sys._debugmallocstats()\n${1}print(")
		got, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("rounds/%s is not what scripts/gc_free_lists_rounds.sh makes of %s now: record it again (the script's README paragraph in testdata/experiments/gc/README.md says how) or restore %s", name, name, name)
		}
		if !strings.Contains(string(got), "sys._debugmallocstats()") {
			t.Errorf("rounds/%s reads no free list", name)
		}
	}
}

// TestStepsCopiesMatchTheirExperiments holds each
// testdata/experiments/gc/steps/NAME.py to what
// scripts/gc_free_lists_steps.py makes of NAME.py today (a read as each
// round starts and after each statement of its loops), for the same
// reason.
func TestStepsCopiesMatchTheirExperiments(t *testing.T) {
	const dir = "../../testdata/experiments/gc/"
	copies, err := filepath.Glob(dir + "steps/*.py")
	if err != nil || len(copies) == 0 {
		t.Fatalf("no steps/*.py under %s: %v", dir, err)
	}
	for _, c := range copies {
		name := filepath.Base(c)
		out := filepath.Join(t.TempDir(), name)
		if b, err := exec.Command("python3", "../../scripts/gc_free_lists_steps.py", dir+name, out).CombinedOutput(); err != nil {
			t.Fatalf("gc_free_lists_steps.py %s: %v\n%s", name, err, b)
		}
		want, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(c)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("steps/%s is not what scripts/gc_free_lists_steps.py makes of %s now: record it again or restore %s", name, name, name)
		}
	}
}
