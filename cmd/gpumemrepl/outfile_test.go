package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/internal/fileio/fileiotest"
)

// Every output file (replay's --export and --plot, a script's snapshot
// save and plot) replaces its target whole: a symlink there is followed
// (the link stays, the file it names is replaced), and a write cut short
// by the file-size limit (ulimit -f, as a full disk would) fails with
// exit 1 and leaves the previous file as it was, with no temporary file
// beside it.
func TestOutputFilesAreReplacedWhole(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		files []string
		args  func(t *testing.T, dir string) []string
	}{
		{"export", []string{"out.pickle"}, func(_ *testing.T, dir string) []string {
			return []string{"replay", "--export", filepath.Join(dir, "out.pickle"), goodTrace}
		}},
		{"plot", []string{"out.html"}, func(_ *testing.T, dir string) []string {
			return []string{"replay", "--plot", filepath.Join(dir, "out.html"), goodTrace}
		}},
		{"script", []string{"snap.pickle", "page.html"}, func(t *testing.T, dir string) []string {
			script := filepath.Join(dir, "save.gpumem")
			src := strings.Repeat("a = zeros 10 cuda\nb = zeros 1000 cuda\ndel a\n", 4) + "snapshot save " + filepath.Join(dir, "snap.pickle") + "\nplot " + filepath.Join(dir, "page.html") + "\n"
			if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"run", "--device", "sim", "--fake-host", "--keep-going", script}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			for _, f := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, f+".target"), []byte("old\n"), 0o640); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(f+".target", filepath.Join(dir, f)); err != nil {
					t.Fatal(err)
				}
			}
			args := tc.args(t, dir)
			if _, errOut, code := run(t, args...); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			before := map[string][]byte{}
			for _, f := range tc.files {
				if to, err := os.Readlink(filepath.Join(dir, f)); err != nil || to != f+".target" {
					t.Errorf("%s: the link is gone (%q, %v)", f, to, err)
				}
				fi, err := os.Stat(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if !fi.Mode().IsRegular() || fi.Size() < 1024 || fi.Mode().Perm() != 0o640 {
					t.Fatalf("%s's target: %v of %d bytes, want -rw-r----- of over 1 KiB", f, fi.Mode(), fi.Size())
				}
				before[f], _ = os.ReadFile(filepath.Join(dir, f))
			}
			// bash ignores SIGXFSZ for the binary, so a write past the
			// limit fails with EFBIG instead of killing it
			cmd := exec.Command("bash", append([]string{"-c", `trap "" XFSZ; ulimit -f 1; exec "$0" "$@"`, binary}, args...)...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
				t.Fatalf("under a 1 KiB file-size limit: %v, want exit 1; stderr %s", err, stderr.String())
			}
			if !strings.Contains(strings.ToLower(stderr.String()), "file too large") {
				t.Errorf("stderr %s, want the write's error", stderr.String())
			}
			for _, f := range tc.files {
				if b, _ := os.ReadFile(filepath.Join(dir, f)); !bytes.Equal(b, before[f]) {
					t.Errorf("%s: the failed write changed the old file (%d bytes, were %d)", f, len(b), len(before[f]))
				}
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if n := e.Name(); n != "save.gpumem" && !slices.Contains(tc.files, n) && !slices.Contains(tc.files, strings.TrimSuffix(n, ".target")) {
					t.Errorf("%s left beside the output", n)
				}
			}
		})
	}
}

// Every output (replay's --export and --plot, a .gpumem script's
// snapshot save and plot, a Python script's _dump_snapshot), to every
// kind of path (character devices and a FIFO made in a temporary
// directory, links, a directory, a read-only file, a missing
// directory...): exit 0 only where every byte was written, exit 1 with
// the path and the system's reason elsewhere, and no existing path's
// type, mode, owner or device number changed (as root, where replacing
// /dev/null by a regular file was possible). replay runs once a path; a
// script writes every path that must take its bytes in one run, and
// every one that must not in another.
func TestOutputPathsOfEveryKind(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--export", "--plot"} {
		t.Run("replay "+flag, func(t *testing.T) {
			t.Parallel()
			cases, fifo := fileiotest.Paths(t)
			for _, tc := range cases {
				checkOutputs(t, cases, fifo, []fileiotest.Case{tc}, "replay", flag, tc.Path, goodTrace)
			}
		})
	}
	script := func(t *testing.T, name, src string) string {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	for _, cmd := range []string{"snapshot save", "plot"} {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			cases, fifo := fileiotest.Paths(t)
			for _, fails := range []bool{false, true} {
				some := casesWhere(cases, fails)
				src := "a = zeros 1000 cuda\n"
				for _, tc := range some {
					src += cmd + " " + tc.Path + "\n"
				}
				checkOutputs(t, cases, fifo, some, "run", "--device", "sim", "--fake-host", "--keep-going", script(t, "save.gpumem", src))
			}
		})
	}
	t.Run("_dump_snapshot", func(t *testing.T) {
		t.Parallel()
		cases, fifo := fileiotest.Paths(t)
		head := "import torch\ntorch.cuda.memory._record_memory_history()\nx = torch.zeros(1000, device='cuda')\n"
		src := head
		for _, tc := range casesWhere(cases, false) {
			src += "torch.cuda.memory._dump_snapshot(" + pyQuote(tc.Path) + ")\n"
		}
		checkOutputs(t, cases, fifo, casesWhere(cases, false), "run", "--device", "sim", "--fake-host", script(t, "ok.py", src))
		// each failure caught, to go on to the next; its text printed
		src = head
		for _, tc := range casesWhere(cases, true) {
			src += "try:\n    torch.cuda.memory._dump_snapshot(" + pyQuote(tc.Path) + ")\nexcept OSError as e:\n    print(type(e).__name__, e)\n"
		}
		out, errOut, code := run(t, "run", "--device", "sim", "--fake-host", script(t, "fails.py", src))
		for _, tc := range casesWhere(cases, true) {
			if !namesError(out, tc) {
				t.Errorf("%s: no OSError naming %s and %q (exit %d): %s%s", tc.Name, tc.Path, tc.Error, code, out, errOut)
			}
		}
		// and one not caught ends the script with exit 1
		one := casesWhere(cases, true)[:1]
		checkOutputs(t, cases, fifo, one, "run", "--device", "sim", "--fake-host", script(t, "fail.py", head+"torch.cuda.memory._dump_snapshot("+pyQuote(one[0].Path)+")\n"))
	})
}

// casesWhere are the cases that fail (or not), where the output holds
// something.
func casesWhere(cases []fileiotest.Case, fails bool) []fileiotest.Case {
	var some []fileiotest.Case
	for _, c := range cases {
		if c.Fails == fails {
			some = append(some, c)
		}
	}
	return some
}

// checkOutputs runs the binary with args, which write the paths of
// some: all of them fail, or none (a FIFO among them is read); exit 1
// with each error, or 0 with each written; no case's path changed.
func checkOutputs(t *testing.T, cases []fileiotest.Case, fifo *fileiotest.Reader, some []fileiotest.Case, args ...string) {
	t.Helper()
	before := map[string]string{}
	for _, c := range cases {
		before[c.Path] = fileiotest.State(c.Path)
	}
	out, errOut, code := run(t, args...)
	all := out + errOut
	fails := some[0].Fails
	switch {
	case fails && code != 1:
		t.Errorf("%s: exit %d, want 1: %s", some[0].Name, code, all)
	case !fails && code != 0:
		t.Errorf("%s: exit %d: %s", some[0].Name, code, all)
	}
	for _, tc := range some {
		switch {
		case tc.Fails:
			if !namesError(all, tc) {
				t.Errorf("%s: no error naming %s and %q: %s", tc.Name, tc.Path, tc.Error, all)
			}
		case tc.Name == "FIFO with a reader":
			if got := fifo.Drain(); len(got) < 100 {
				t.Errorf("the FIFO's reader read %d bytes", len(got))
			}
		case tc.Receives != "":
			if fi, err := os.Stat(tc.Receives); err != nil || fi.Size() < 100 {
				t.Errorf("%s: %s not written: %v", tc.Name, tc.Receives, err)
			}
		}
		if tc.Creates {
			os.Remove(tc.Receives) //nolint:errcheck // made by this run: absent again for the next
		}
	}
	for _, c := range cases {
		if now := fileiotest.State(c.Path); now != before[c.Path] {
			t.Errorf("%s was %s, now %s", c.Path, before[c.Path], now)
		}
	}
}

// replay's --export - and --plot - write standard output, the note of
// what was written going to stderr; a write to stdout that fails (a
// full device) is exit 1.
func TestReplayOutputToStdout(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, "replay", "--export", "-", goodTrace)
	if code != 0 || !strings.HasPrefix(out, "\x80\x04") || !strings.Contains(errOut, "written to standard output") {
		t.Errorf("--export -: exit %d, stdout %.20q, stderr %s", code, out, errOut)
	}
	out, errOut, code = run(t, "replay", "--plot", "-", goodTrace)
	if code != 0 || !strings.HasPrefix(out, "<!DOCTYPE html>") || !strings.Contains(errOut, "plotted to standard output") {
		t.Errorf("--plot -: exit %d, stdout %.20q, stderr %s", code, out, errOut)
	}
	if _, errOut, code = run(t, "replay", "--export", "-", "--plot", "-", goodTrace); code != 2 || !strings.Contains(errOut, "both write standard output") {
		t.Errorf("--export - --plot -: exit %d, %s", code, errOut)
	}
	cases, _ := fileiotest.Paths(t)
	for _, tc := range cases {
		if tc.Name != "character device (full)" {
			continue
		}
		full, err := os.OpenFile(tc.Path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer full.Close()
		cmd := exec.Command(binary, "replay", "--export", "-", goodTrace)
		var stderr strings.Builder
		cmd.Stdout, cmd.Stderr = full, &stderr
		if err := cmd.Run(); cmd.ProcessState.ExitCode() != 1 || !strings.Contains(stderr.String(), "no space left on device") {
			t.Errorf("--export - to a full device: %v, stderr %s", err, stderr.String())
		}
	}
}

// namesError reports whether out holds the case's error with its path,
// as the tool says it (PATH: reason) or as Python's OSError does
// ([Errno N] Reason: 'PATH').
func namesError(out string, tc fileiotest.Case) bool {
	out, path, reason := strings.ToLower(out), strings.ToLower(tc.Path), strings.ToLower(tc.Error)
	return strings.Contains(out, path+": "+reason) || strings.Contains(out, reason+": "+pyQuote(path))
}

// pyQuote is s as a Python string literal (the paths have no quote or
// backslash).
func pyQuote(s string) string { return "'" + s + "'" }
