// Tests of files written whole or not at all. The oracle is the file
// system (a rename over the old file), not a recording.
package fileio

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// failAfter writes n bytes of content, then fails as a full disk would.
func failAfter(n int) func(w io.Writer) error {
	return func(w io.Writer) error {
		if _, err := io.WriteString(w, strings.Repeat("x", n)); err != nil {
			return err
		}
		return errors.New("no space left on device")
	}
}

// onlyEntries fails unless dir holds exactly the names given: no
// temporary file is left behind.
func onlyEntries(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Errorf("directory holds %q, want %q", got, names)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeString(s string) func(w io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

func TestWriteCreatesAndReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "page.html")
	for _, content := range []string{"first version\n", "second, longer version\n", ""} {
		if err := Write(path, writeString(content)); err != nil {
			t.Fatal(err)
		}
		if got := readString(t, path); got != content {
			t.Errorf("file holds %q, want %q", got, content)
		}
	}
	onlyEntries(t, dir, "page.html")
}

// A write that fails partway leaves the old content, whole, and no
// temporary file; the writer's own error comes back.
func TestFailedWriteKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "old.pickle")
	old := strings.Repeat("valid snapshot ", 1000)
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	// past bufio's buffer, so bytes reach the temporary file before the error
	err := Write(path, failAfter(3*4096+17))
	if err == nil || err.Error() != "no space left on device" {
		t.Fatalf("error %v, want the writer's", err)
	}
	if readString(t, path) != old {
		t.Errorf("the old file changed")
	}
	onlyEntries(t, dir, "old.pickle")
}

// A failed write where there was no file leaves none.
func TestFailedWriteLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "new.html"), failAfter(10)); err == nil {
		t.Fatal("no error")
	}
	onlyEntries(t, dir)
}

// A symbolic link at the target is replaced by the new file; the file it
// pointed to keeps its content.
func TestSymlinkIsReplacedNotFollowed(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(dir, "victim.txt")
	if err := os.WriteFile(victim, []byte("precious\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "out.html")
	if err := os.Symlink(victim, link); err != nil {
		t.Fatal(err)
	}
	if err := Write(link, writeString("page\n")); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, victim); got != "precious\n" {
		t.Errorf("the link's target now holds %q", got)
	}
	fi, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() || readString(t, link) != "page\n" {
		t.Errorf("out.html is %v holding %q, want a regular file holding the page", fi.Mode(), readString(t, link))
	}
}

// The new file keeps the mode of the one it replaces.
func TestModeIsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snap.pickle")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, writeString("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want -rw-------", fi.Mode())
	}
}

func TestUnwritableTargets(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ path, want string }{
		{dir, dir + ": is a directory"},
		{filepath.Join(dir, "missing", "x.html"), filepath.Join(dir, "missing", "x.html") + ": no such file or directory"},
	} {
		err := Write(tc.path, writeString("x"))
		if err == nil || err.Error() != "write "+tc.want {
			t.Errorf("Write(%s): %v, want write %s", tc.path, err, tc.want)
		}
	}
	onlyEntries(t, dir)
}

// WritePath hands a writer that opens files by name the temporary path;
// a failure there keeps the old file too.
func TestWritePath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "snap.pickle")
	byName := func(content string, fail bool) func(string) error {
		return func(tmp string) error {
			if filepath.Dir(tmp) != dir || tmp == path {
				t.Errorf("temporary file %s, want another name in %s", tmp, dir)
			}
			if err := os.WriteFile(tmp, []byte(content), 0o666); err != nil || !fail {
				return err
			}
			return errors.New("encoding failed")
		}
	}
	if err := WritePath(path, byName("complete", false)); err != nil {
		t.Fatal(err)
	}
	if err := WritePath(path, byName("half", true)); err == nil {
		t.Fatal("no error")
	}
	tooLarge := func(tmp string) error { return &fs.PathError{Op: "write", Path: tmp, Err: syscall.EFBIG} }
	if err := WritePath(path, tooLarge); err == nil || err.Error() != "write "+path+": file too large" {
		t.Errorf("error %v, want one naming %s", err, path)
	}
	if got := readString(t, path); got != "complete" {
		t.Errorf("file holds %q, want the first, complete write", got)
	}
	onlyEntries(t, dir, "snap.pickle")
}
