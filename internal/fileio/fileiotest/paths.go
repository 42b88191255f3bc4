// Package fileiotest makes output paths of every kind in a temporary
// directory, for the tests of whatever writes files: character devices
// made with mknod (copies of /dev/null and /dev/full: the real /dev is
// never touched), a FIFO with a reader, symbolic links, a directory, a
// read-only file, a block device and a socket, and paths that do not
// exist. State tells what a path is, so that a test can check a write
// changed no path's type or mode.
package fileiotest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A Case is one path to write and what writing there must do.
type Case struct {
	Name, Path string
	// Fails is whether writing must fail (exit 1 through the binary);
	// Error is what the error says after the path.
	Fails bool
	Error string
	// FailsOnData is whether it fails only once bytes reach it (a full
	// device takes an empty write).
	FailsOnData bool
	// Receives is the file whose bytes must then be what was written
	// (the link's target, the FIFO's reader), or "" for none.
	Receives string
	// Creates is whether the write makes a new regular file at Receives.
	Creates bool
}

// Paths makes the cases in a new temporary directory: a FIFO's reader
// is started, and Drain gives what it read. It fails the test where
// mknod is refused and the CI variable is set (CI runs as root), and
// skips it, saying why, elsewhere.
func Paths(t testing.TB) ([]Case, *Reader) {
	t.Helper()
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	Node(t, p("null"), syscall.S_IFCHR|0o666, 1, 3)
	Node(t, p("full"), syscall.S_IFCHR|0o666, 1, 7)
	Node(t, p("block"), syscall.S_IFBLK|0o660, 7, 200) // a loop device's number: never opened
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(syscall.Mkfifo(p("fifo"), 0o640))
	must(os.WriteFile(p("regular"), []byte("old content\n"), 0o640))
	must(os.WriteFile(p("readonly"), []byte("read-only content\n"), 0o444))
	must(os.WriteFile(p("target"), []byte("the link's target\n"), 0o600))
	must(os.Symlink("target", p("link")))
	must(os.Symlink(p("null"), p("link-to-null")))
	must(os.Symlink("link", p("link-to-link")))
	must(os.Symlink("made-by-link", p("dangling")))
	must(os.Symlink("loop-b", p("loop-a")))
	must(os.Symlink("loop-a", p("loop-b")))
	must(os.Mkdir(p("dir"), 0o750))
	l, err := net.Listen("unix", p("socket"))
	must(err)
	t.Cleanup(func() { l.Close() })
	fifo := startReader(t, p("fifo"))
	// as root a read-only file is written, as a shell's > would; for
	// anyone else the open is refused
	readonly := Case{Name: "read-only file", Path: p("readonly"), Receives: p("readonly")}
	if os.Geteuid() != 0 {
		readonly = Case{Name: "read-only file", Path: p("readonly"), Fails: true, Error: "permission denied"}
	}
	return []Case{
		{Name: "new file", Path: p("new"), Receives: p("new"), Creates: true},
		{Name: "regular file", Path: p("regular"), Receives: p("regular")},
		readonly,
		{Name: "character device (null)", Path: p("null")},
		{Name: "character device (full)", Path: p("full"), Fails: true, Error: "no space left on device", FailsOnData: true},
		{Name: "FIFO with a reader", Path: p("fifo"), Receives: p("fifo")},
		{Name: "symlink to a file", Path: p("link"), Receives: p("target")},
		{Name: "symlink to a symlink", Path: p("link-to-link"), Receives: p("target")},
		{Name: "symlink to a device", Path: p("link-to-null")},
		{Name: "dangling symlink", Path: p("dangling"), Receives: p("made-by-link"), Creates: true},
		{Name: "symlink loop", Path: p("loop-a"), Fails: true, Error: "too many levels of symbolic links"},
		{Name: "directory", Path: p("dir"), Fails: true, Error: "is a directory"},
		{Name: "block device", Path: p("block"), Fails: true, Error: "not a regular file, character device or FIFO (a block device)"},
		{Name: "socket", Path: p("socket"), Fails: true, Error: "not a regular file, character device or FIFO (a socket)"},
		{Name: "missing directory", Path: p("missing/out"), Fails: true, Error: "no such file or directory"},
		{Name: "path through a file", Path: p("regular/out"), Fails: true, Error: "not a directory"},
	}, fifo
}

// Node makes a device node at path (mode, with its type bits, and Linux's
// major and minor numbers: 1, 3 is /dev/null, 1, 5 /dev/zero, 1, 7
// /dev/full). It fails the test where mknod is refused and the CI
// variable is set (CI runs as root), and skips it, saying why,
// elsewhere.
func Node(t testing.TB, path string, mode, major, minor uint32) {
	t.Helper()
	if err := syscall.Mknod(path, mode, mkdev(major, minor)); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("mknod %s: %v (CI runs as root, where mknod works)", path, err)
		}
		t.Skipf("mknod %s: %v: device nodes need root", path, err)
	}
	// mknod's mode is less the umask: set the one asked for
	if err := os.Chmod(path, fs.FileMode(mode&0o777)); err != nil {
		t.Fatal(err)
	}
}

// Endless makes a FIFO at path and writes line to it over and over
// until its reader closes it: an input that never ends.
func Endless(t testing.TB, path, line string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	// read and write, so the open waits for no reader and the reader
	// never sees an end; closing it ends a write that waits
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		chunk := []byte(strings.Repeat(line, max(1, 64<<10/max(1, len(line)))))
		for {
			if _, err := f.Write(chunk); err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		f.Close()
		<-done
	})
}

// mkdev is Linux's device number of major and minor.
func mkdev(major, minor uint32) int {
	return int(uint64(minor&0xff) | uint64(major&0xfff)<<8 | uint64(minor&^0xff)<<12 | uint64(major&^0xfff)<<32)
}

// Reader reads a FIFO to its end, once something opens it for writing.
type Reader struct {
	t    testing.TB
	path string
	done chan []byte
}

func startReader(t testing.TB, path string) *Reader {
	r := &Reader{t: t, path: path, done: make(chan []byte, 1)}
	go func() {
		f, err := os.Open(path) // blocks until a writer opens it
		if err != nil {
			r.done <- []byte(err.Error())
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		r.done <- b
	}()
	t.Cleanup(func() { r.Drain() })
	return r
}

// Drain is what the FIFO's reader read: where nothing opened the FIFO
// for writing, it is opened and closed here, so the reader ends with
// nothing read. A FIFO that is no longer there (replaced by a regular
// file: the bug this package tests for) fails the test.
func (r *Reader) Drain() []byte {
	if r.done == nil {
		return nil
	}
	select {
	case b := <-r.done:
		r.done = nil
		return b
	default:
	}
	if fi, err := os.Lstat(r.path); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		r.t.Errorf("%s is no longer a FIFO (%v): its reader waits on the one removed", r.path, err)
		r.done = nil
		return nil
	}
	// the reader waits in its open: a writer's open that does not
	// block meets it (ENXIO only where the reader has not got there yet)
	for {
		f, err := os.OpenFile(r.path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			f.Close()
			break
		}
		if !errors.Is(err, syscall.ENXIO) {
			r.t.Errorf("opening %s to end its reader: %v", r.path, err)
			return nil
		}
		select {
		case b := <-r.done:
			r.done = nil
			return b
		case <-time.After(time.Millisecond):
		}
	}
	b := <-r.done
	r.done = nil
	return b
}

// State is what path is, for comparing before and after: its type and
// mode, a device's number, a link's target, a regular file's size.
func State(path string) string {
	fi, err := os.Lstat(path)
	if err != nil {
		return "absent"
	}
	s := fi.Mode().String()
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		s += fmt.Sprintf(" owner %d:%d", st.Uid, st.Gid)
		if fi.Mode()&fs.ModeDevice != 0 {
			s += fmt.Sprintf(" device %#x", st.Rdev)
		}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		to, _ := os.Readlink(path)
		s += " -> " + to
	}
	return s
}
