// Tests of files written whole or not at all. The oracle is the file
// system (a rename over the old file), not a recording.
package fileio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/internal/fileio/fileiotest"
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
		if err := Write(path, nil, writeString(content)); err != nil {
			t.Fatal(err)
		}
		if got := readString(t, path); got != content {
			t.Errorf("file holds %q, want %q", got, content)
		}
	}
	onlyEntries(t, dir, "page.html")
}

// A write that fails partway leaves the old content, whole, and no
// temporary file; the writer's own error comes back, naming the path.
func TestFailedWriteKeepsOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "old.pickle")
	old := strings.Repeat("valid snapshot ", 1000)
	if err := os.WriteFile(path, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	// past the buffer, so bytes reach the temporary file before the error
	err := Write(path, nil, failAfter(3*64<<10+17))
	if err == nil || err.Error() != "write "+path+": no space left on device" {
		t.Fatalf("error %v, want the writer's, naming the path", err)
	}
	if readString(t, path) != old {
		t.Errorf("the old file changed")
	}
	onlyEntries(t, dir, "old.pickle")
}

// A failed write where there was no file leaves none.
func TestFailedWriteLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	if err := Write(filepath.Join(dir, "new.html"), nil, failAfter(10)); err == nil {
		t.Fatal("no error")
	}
	onlyEntries(t, dir)
}

// The new file keeps the mode of the one it replaces.
func TestModeIsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snap.pickle")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(path, nil, writeString("new")); err != nil {
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

// Every kind of path: what the writer must do there, and that no
// existing path changes its type, mode, owner or device number. Device
// nodes and the FIFO are made in a temporary directory.
func TestPathsOfEveryKind(t *testing.T) {
	cases, fifo := fileiotest.Paths(t)
	const content = "the content written\n"
	for _, tc := range cases {
		t.Run(tc.Name, func(t *testing.T) {
			before := states(cases)
			err := Write(tc.Path, nil, writeString(content))
			checkWrite(t, tc, err, fifo)
			if tc.Receives != "" && err == nil && tc.Receives != fifoPath(cases) {
				if got := readString(t, tc.Receives); got != content {
					t.Errorf("%s holds %q, want %q", tc.Receives, got, content)
				}
			}
			unchanged(t, before, states(cases), tc)
		})
	}
}

// checkWrite checks Write's error against the case, and what the FIFO's
// reader got.
func checkWrite(t *testing.T, tc fileiotest.Case, err error, fifo *fileiotest.Reader) {
	t.Helper()
	if tc.Fails {
		if want := "write " + tc.Path + ": " + tc.Error; err == nil || err.Error() != want {
			t.Errorf("error %v, want %s", err, want)
		}
	} else if err != nil {
		t.Errorf("error %v", err)
	}
	if tc.Name == "FIFO with a reader" {
		if got := string(fifo.Drain()); got != "the content written\n" {
			t.Errorf("the FIFO's reader read %q", got)
		}
	}
}

func fifoPath(cases []fileiotest.Case) string {
	for _, c := range cases {
		if c.Name == "FIFO with a reader" {
			return c.Path
		}
	}
	return ""
}

// states is every case path's State, and that of what it receives.
func states(cases []fileiotest.Case) map[string]string {
	m := map[string]string{}
	for _, c := range cases {
		m[c.Path] = fileiotest.State(c.Path)
		if c.Receives != "" {
			m[c.Receives] = fileiotest.State(c.Receives)
		}
	}
	return m
}

// unchanged fails for any path whose state changed, but a file the case
// creates (a regular file, where there was none, after a success).
func unchanged(t *testing.T, before, after map[string]string, tc fileiotest.Case) {
	t.Helper()
	for path, was := range before {
		now := after[path]
		if tc.Creates && path == tc.Receives && was == "absent" {
			if !strings.HasPrefix(now, "-rw") {
				t.Errorf("%s: %s, want a new regular file", path, now)
			}
			os.Remove(path) //nolint:errcheck // the next case wants it absent again
			continue
		}
		if now != was {
			t.Errorf("%s was %s, now %s", path, was, now)
		}
	}
}

// A regular file replaced keeps its owner and group, where the process
// may set them (as root: CI).
func TestOwnerIsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "snap.pickle")
	if err := os.WriteFile(path, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(path, 1234, 5678); err != nil {
			t.Fatal(err)
		}
	}
	was := fileiotest.State(path)
	if err := Write(path, nil, writeString("new")); err != nil {
		t.Fatal(err)
	}
	if now := fileiotest.State(path); now != was {
		t.Errorf("was %s, now %s", was, now)
	}
}

// "-" is stdout where a stdout is given, and a file's name elsewhere.
func TestDashIsStdout(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var out strings.Builder
	if err := Write("-", &out, writeString("to stdout")); err != nil || out.String() != "to stdout" {
		t.Errorf("Write(-, stdout): %v, stdout %q", err, out.String())
	}
	onlyEntries(t, dir)
	if err := Write("-", nil, writeString("to a file")); err != nil || readString(t, filepath.Join(dir, "-")) != "to a file" {
		t.Errorf("Write(-, nil): %v", err)
	}
	if err := Write("-", failingWriter{}, writeString("x")); err == nil || err.Error() != "broken pipe" {
		t.Errorf("a failing stdout: %v, want its error", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.EPIPE }

// FuzzWrite writes fuzzed content, failing after a fuzzed number of
// bytes or not at all, to each kind of path: an error exactly where the
// path or the writer fails, the content whole where it succeeds, the old
// content where it does not, and no path's type or mode changed.
func FuzzWrite(f *testing.F) {
	f.Add(uint8(0), []byte("content"), -1)
	f.Add(uint8(1), []byte("content"), 3)
	f.Add(uint8(5), []byte("to the FIFO"), 4)
	f.Fuzz(runFuzzWrite)
}

func runFuzzWrite(t *testing.T, which uint8, content []byte, failAt int) {
	{
		cases, fifo := fileiotest.Paths(t)
		tc := cases[int(which)%len(cases)]
		before := states(cases)
		var old []byte
		if tc.Receives != "" && tc.Receives != fifoPath(cases) {
			old, _ = os.ReadFile(tc.Receives)
		}
		writerFails := failAt >= 0 && failAt <= len(content)
		err := Write(tc.Path, nil, func(w io.Writer) error {
			if writerFails {
				if _, err := w.Write(content[:failAt]); err != nil {
					return err
				}
				return errors.New("the writer failed")
			}
			_, err := w.Write(content)
			return err
		})
		if tc.FailsOnData && (len(content) == 0 || writerFails && failAt == 0) {
			tc.Fails = false
		}
		if wantErr := tc.Fails || writerFails; (err != nil) != wantErr {
			t.Fatalf("%s: error %v, want one: %v", tc.Name, err, wantErr)
		}
		got := fifo.Drain()
		switch {
		case tc.Receives == fifoPath(cases):
			if err == nil && !bytes.Equal(got, content) {
				t.Errorf("the FIFO read %d bytes, want %d", len(got), len(content))
			}
		case tc.Receives != "":
			now, _ := os.ReadFile(tc.Receives)
			if want := old; err == nil && !bytes.Equal(now, content) || err != nil && !bytes.Equal(now, want) {
				t.Errorf("%s: %s holds %d bytes (error %v)", tc.Name, tc.Receives, len(now), err)
			}
		}
		if err != nil && tc.Creates {
			tc.Creates = false // nothing was made: the path stays absent
		}
		unchanged(t, before, states(cases), tc)
	}
}
