package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runHere runs one invocation in this process, as main would.
func runHere(args ...string) (stdout, stderr string, code int) {
	var out, errOut strings.Builder
	code = doMain(args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

// wantUsageError fails unless args exit 2 with one line on stderr that
// holds want.
func wantUsageError(t *testing.T, args []string, want string) {
	t.Helper()
	_, errOut, code := runHere(args...)
	if code != 2 || !strings.Contains(errOut, want) || strings.Count(errOut, "\n") != 1 {
		t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", args, code, errOut, want)
	}
}

// Every flag is honoured or refused: a combination that would drop a
// flag, a flag without the one it modifies and a bad number are each one
// line naming the flags, exit 2.
func TestReplayRefusesWhatItWouldDrop(t *testing.T) {
	t.Parallel()
	noExt := filepath.Join(t.TempDir(), "mytrace")
	if err := os.WriteFile(noExt, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--check", "--json"}, "--check and --json do not go together"},
		{[]string{"--check", "--summary"}, "--check and --summary do not go together"},
		{[]string{"--check", "--plot=p.html"}, "--check and --plot do not go together"},
		{[]string{"--check", "--no-empty-cache"}, "--check and --no-empty-cache do not go together: --no-empty-cache changes the ops"},
		{[]string{"--time", "--export", "e.pickle"}, "--time and --export do not go together"},
		{[]string{"--json", "--summary"}, "--json and --summary do not go together"},
		{[]string{"--json", "--export", "e.pickle"}, "--json and --export do not go together"},
		{[]string{"--compare", "default", "--summary"}, "--compare and --summary do not go together"},
		{[]string{"--compare=default", "--alloc-conf", "expandable_segments:True"}, "--compare and --alloc-conf do not go together"},
		{[]string{"--keys", "allocated"}, "--keys works with --check: give --check too"},
		{[]string{"--stats-only"}, "--stats-only works with --check"},
		{[]string{"--check", "--keys=a", "--stats-only"}, "--keys and --stats-only do not go together"},
		{[]string{"--preset", "t4", "--total-bytes", "1000"}, "--preset and --total-bytes do not go together"},
		{[]string{"--export", "e.pickle", goodTrace}, "--export writes one trace's replay: give one file, not 2"},
		{[]string{"--compare"}, "--compare takes one or more configs"},
		{[]string{"--compare", noExt}, `--compare "` + noExt + `": a file, not a config`},
		{[]string{"--limit-bytes=-1"}, `--limit-bytes "-1": want a byte count`},
		{[]string{"--limit-bytes", "9223372036854775808"}, `--limit-bytes "9223372036854775808": want a byte count (a whole number from 0 to 9223372036854775807)`},
		{[]string{"--total-bytes=0"}, "--total-bytes 0: want 1 to 9223372036854775807"},
		{[]string{"--recorded-limit-bytes", "1e9"}, `--recorded-limit-bytes "1e9": want a byte count`},
		{[]string{"--json=maybe"}, `--json "maybe": want true or false`},
		{[]string{"--frobnicate"}, "unknown flag --frobnicate"},
		{[]string{"--limit-bytes"}, "--limit-bytes needs a value"},
	} {
		wantUsageError(t, append([]string{"replay", goodTrace}, tc.args...), tc.want)
	}
}

// The session flags are checked the same way, by name.
func TestSessionNumbersAreChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--devices", "0"}, "--devices 0: want 1 to 120"},
		{[]string{"--devices=121"}, "--devices 121: want 1 to 120"},
		{[]string{"--devices", "two"}, `--devices "two": want a whole number`},
		{[]string{"--total-bytes", "0"}, "--total-bytes 0: want 1 to"},
		{[]string{"--context-bytes", "-5"}, `--context-bytes "-5": want a byte count`},
	} {
		wantUsageError(t, append([]string{"run"}, tc.args...), tc.want)
	}
}

// --export, --plot and --summary together each do their part, with every
// flag written as --flag=value.
func TestReplayExportPlotSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	export, page := filepath.Join(dir, "e.pickle"), filepath.Join(dir, "p.html")
	out, errOut, code := runHere("replay", "--export="+export, "--plot="+page, "--summary", "--quiet=true", goodTrace)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"written to " + export, "600 ops plotted to " + page, "600 ops, 22 OOMs;", "PyTorch CUDA memory summary, device ID 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
	for _, f := range []string{export, page} {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// --compare=CONF takes one config and may be repeated; --compare CONF...
// takes the words up to the next flag or trace file.
func TestCompareForms(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--compare=default", "--compare=expandable_segments:True", goodTrace},
		{"--compare", "default", "expandable_segments:True", goodTrace},
		{goodTrace, "--json=false", "--compare", "default", "expandable_segments:True"},
	} {
		out, errOut, code := runHere(append([]string{"replay"}, args...)...)
		rows := 0
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "default ") || strings.HasPrefix(l, "expandable_segments:True ") {
				rows++
			}
		}
		if code != 0 || rows != 4 { // a row in each of the two tables
			t.Errorf("%v: exit %d, %d config rows, want 4:\n%s%s", args, code, rows, out, errOut)
		}
	}
}
