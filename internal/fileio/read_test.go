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
	"testing/iotest"

	"github.com/gpumemrepl/gpumemrepl/internal/fileio/fileiotest"
)

// A regular file is read whole up to the bound and refused past it by
// its size, before a byte is read: a sparse file of a terabyte answers
// at once.
func TestReadRegularFile(t *testing.T) {
	dir := t.TempDir()
	exact := filepath.Join(dir, "exact.py")
	if err := os.WriteFile(exact, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(exact, 10, "script"); err != nil || string(b) != "0123456789" {
		t.Errorf("a file of exactly the bound: %q, %v", b, err)
	}
	if _, err := Read(exact, 9, "script"); err == nil || err.Error() != "read "+exact+": 10 bytes, more than a script may hold (9 bytes)" {
		t.Errorf("a byte past the bound: %v", err)
	}
	huge := filepath.Join(dir, "huge.gpumem")
	if err := os.WriteFile(huge, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(huge, 1<<40); err != nil {
		t.Fatal(err)
	}
	_, err := Open(huge, MaxScript, "script")
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != "read "+huge+": 1099511627776 bytes, more than a script may hold (64 MiB)" {
		t.Errorf("a terabyte: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), MaxScript, "script"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}

// A device or a FIFO has no size to check: it is read up to the bound
// and refused at the first byte past it, whatever it would go on to
// give (/dev/zero, a line that never ends).
func TestReadEndlessInputs(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero")
	fileiotest.Node(t, zero, syscall.S_IFCHR|0o666, 1, 5)
	fifo := filepath.Join(dir, "endless.gpumem")
	fileiotest.Endless(t, fifo, "x = 1 + ")
	for _, path := range []string{zero, fifo} {
		_, err := Read(path, 1<<20, "script")
		if want := "read " + path + ": more than a script may hold (1 MiB) and not yet at its end"; err == nil || err.Error() != want {
			t.Errorf("error %v, want %s", err, want)
		}
	}
}

// A stream of exactly the bound is read whole; one byte more is refused,
// however the reader splits its reads.
func TestLimitedAtTheBound(t *testing.T) {
	for _, r := range []func(string) io.Reader{
		func(s string) io.Reader { return strings.NewReader(s) },
		func(s string) io.Reader { return iotest.OneByteReader(strings.NewReader(s)) },
		func(s string) io.Reader { return iotest.DataErrReader(strings.NewReader(s)) },
	} {
		got, err := io.ReadAll(&Limited{R: r("12345"), Path: "<stdin>", Limit: 5, What: "script"})
		if err != nil || string(got) != "12345" {
			t.Errorf("exactly the bound: %q, %v", got, err)
		}
		_, err = io.ReadAll(&Limited{R: r("123456"), Path: "<stdin>", Limit: 5, What: "script"})
		if err == nil || err.Error() != "read <stdin>: more than a script may hold (5 bytes) and not yet at its end" {
			t.Errorf("past the bound: %v", err)
		}
	}
}

// FuzzRead reads fuzzed content within a fuzzed bound from paths of
// each kind a reader meets: a regular file (refused by its size), a
// symbolic link to it, a FIFO a writer feeds and closes (read in pieces,
// as a device or a pipe), and through a stream split at every byte: the
// content whole exactly when it fits, a TooLargeError otherwise.
func FuzzRead(f *testing.F) {
	f.Add([]byte("x = 1\n"), int64(6))
	f.Add([]byte("x = 1\n"), int64(5))
	f.Add([]byte{}, int64(0))
	f.Add(bytes.Repeat([]byte{0}, 1000), int64(999))
	f.Fuzz(func(t *testing.T, content []byte, limit int64) {
		if limit < 0 {
			limit = -limit
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "in")
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(dir, "link")
		if err := os.Symlink("in", link); err != nil {
			t.Fatal(err)
		}
		fits := int64(len(content)) <= limit
		type read struct {
			kind string
			got  []byte
			err  error
		}
		var reads []read
		for _, p := range []struct{ kind, path string }{{"regular file", path}, {"symlink", link}, {"FIFO", feed(t, dir, content)}} {
			got, err := Read(p.path, limit, "script")
			reads = append(reads, read{p.kind, got, err})
		}
		stream, serr := io.ReadAll(&Limited{R: iotest.HalfReader(bytes.NewReader(content)), Path: path, Limit: limit, What: "script"})
		for _, r := range append(reads, read{"stream", stream, serr}) {
			var tl *TooLargeError
			switch {
			case fits && (r.err != nil || !bytes.Equal(r.got, content)):
				t.Errorf("%s: %d bytes within %d: %d read, %v", r.kind, len(content), limit, len(r.got), r.err)
			case !fits && !errors.As(r.err, &tl):
				t.Errorf("%s: %d bytes past %d: %v", r.kind, len(content), limit, r.err)
			}
		}
	})
}

// feed makes a FIFO in dir that gives content to the first reader, then
// ends; the writer is waited for when the test ends (a reader that
// stops early ends its write).
func feed(t *testing.T, dir string, content []byte) string {
	t.Helper()
	path := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		w, err := os.OpenFile(path, os.O_WRONLY, 0) // waits for the reader
		if err != nil {
			return
		}
		w.Write(content) //nolint:errcheck // a reader past its bound closes early
		w.Close()
	}()
	t.Cleanup(func() { <-done })
	return path
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{64 << 20: "64 MiB", 1 << 30: "1 GiB", 4 << 30: "4 GiB", 1000: "1000 bytes", 3<<20 + 1: "3145729 bytes"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}
