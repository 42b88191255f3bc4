package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every output file (replay's --export and --plot, a script's snapshot
// save and plot) replaces its target whole: a symlink there is replaced,
// not written through, and a write cut short by the file-size limit
// (ulimit -f, as a full disk would) fails with exit 1 and leaves the
// previous file as it was, with no temporary file beside it.
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
			victim := filepath.Join(dir, "victim")
			if err := os.WriteFile(victim, []byte("precious\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, f := range tc.files {
				if err := os.Symlink(victim, filepath.Join(dir, f)); err != nil {
					t.Fatal(err)
				}
			}
			args := tc.args(t, dir)
			if _, errOut, code := run(t, args...); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if b, _ := os.ReadFile(victim); string(b) != "precious\n" {
				t.Errorf("written through a symlink: its target holds %.40q", b)
			}
			before := map[string][]byte{}
			for _, f := range tc.files {
				fi, err := os.Lstat(filepath.Join(dir, f))
				if err != nil {
					t.Fatal(err)
				}
				if !fi.Mode().IsRegular() || fi.Size() < 1024 {
					t.Fatalf("%s: %v of %d bytes, want a regular file of over 1 KiB in place of the link", f, fi.Mode(), fi.Size())
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
			if !bytes.Contains(stderr.Bytes(), []byte(": file too large")) {
				t.Errorf("stderr %s, want the write's error", stderr.String())
			}
			for _, f := range tc.files {
				if b, _ := os.ReadFile(filepath.Join(dir, f)); !bytes.Equal(b, before[f]) {
					t.Errorf("%s: the failed write changed the old file (%d bytes, were %d)", f, len(b), len(before[f]))
				}
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if n := e.Name(); n != "victim" && n != "save.gpumem" && !slices.Contains(tc.files, n) {
					t.Errorf("%s left beside the output", n)
				}
			}
		})
	}
}
