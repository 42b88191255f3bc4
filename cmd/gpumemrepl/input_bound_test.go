package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/internal/fileio/fileiotest"
)

// endless is an input that never ends: one line of text, over and over.
type endless struct{ line string }

func (e endless) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		n += copy(p[n:], e.line)
	}
	return n, nil
}

// An input that never ends is refused, not read to the end of memory:
// /dev/zero (a copy made with mknod) at its first NUL byte, as CPython
// refuses a source with one, in well under 100 MB; a FIFO or standard
// input that never ends once it passes a script's 64 MiB; a regular
// file past the bound (a sparse terabyte) by its size, before it is
// read. Each says the path and the bound, exit 1.
func TestEndlessInputRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero")
	fileiotest.Node(t, zero, syscall.S_IFCHR|0o666, 1, 5)
	errOut, code, zeroRSS := runPeakRSS(t, nil, nil, "run", "--device", "sim", zero)
	if want := zero + ":1:1: SyntaxError: source code cannot contain null bytes"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("run /dev/zero: exit %d, %s; want %s", code, errOut, want)
	}
	if zeroRSS > 100<<20 {
		t.Errorf("run /dev/zero: peak RSS %d MiB, want under 100", zeroRSS>>20)
	}
	huge := filepath.Join(dir, "huge")
	for _, ext := range []string{".gpumem", ".py"} {
		fifo := filepath.Join(dir, "endless"+ext)
		fileiotest.Endless(t, fifo, "x = 1 + ")
		_, errOut, code := run(t, "run", "--device", "sim", fifo)
		if want := "read " + fifo + ": more than a script may hold (64 MiB) and not yet at its end"; code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("run %s: exit %d, %s; want %s", fifo, code, errOut, want)
		}
		if err := os.WriteFile(huge+ext, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(huge+ext, 1<<40); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{{"run", "--device", "sim"}, {"fit"}, {"diff", huge + ext}} {
			if ext == ".gpumem" && args[0] != "run" {
				continue
			}
			_, errOut, code := run(t, append(args, huge+ext)...)
			if want := "read " + huge + ext + ": 1099511627776 bytes, more than a script may hold (64 MiB)"; code != 1 || !strings.Contains(errOut, want) {
				t.Errorf("%s %s: exit %d, %s; want %s", args[0], huge+ext, code, errOut, want)
			}
		}
	}
	errOut, code, rss := runPeakRSS(t, io.LimitReader(endless{"x = 1 + "}, 1<<40), nil, "--device", "sim")
	if want := "read <stdin>: more than a script may hold (64 MiB) and not yet at its end"; code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("run < endless: exit %d, %s; want %s", code, errOut, want)
	}
	// the line is held as it grows, to the bound, and no more
	if rss > 100<<20 {
		t.Errorf("run < endless: peak RSS %d MiB, want under 100", rss>>20)
	}
	pyFIFO := filepath.Join(dir, "endless.py")
	_, code, pyRSS := runPeakRSS(t, nil, nil, "run", "--device", "sim", pyFIFO)
	if code != 1 || pyRSS > 100<<20 {
		t.Errorf("run endless.py: exit %d, peak RSS %d MiB, want 1 and under 100", code, pyRSS>>20)
	}
	t.Logf("peak RSS: /dev/zero %d KiB, an endless line on stdin %d KiB, in a .py %d KiB", zeroRSS>>10, rss>>10, pyRSS>>10)
	// a trace or snapshot past its own bound, by its size
	for _, name := range []string{"huge.json", "huge.pickle"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Truncate(path, 5<<30); err != nil {
			t.Fatal(err)
		}
		_, errOut, code := run(t, "replay", path)
		if want := "read " + path + ": 5368709120 bytes, more than a trace or snapshot may hold (4 GiB)"; code != 1 || !strings.Contains(errOut, want) {
			t.Errorf("replay %s: exit %d, %s; want %s", path, code, errOut, want)
		}
	}
}
