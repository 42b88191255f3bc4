package engine

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
)

// hostBuf is host memory taken outside the Go heap with an anonymous
// mmap, so that RSS rises when it is written and falls at once when it is
// unmapped, as with PyTorch's CPU allocator for large buffers.
type hostBuf struct {
	mem []byte
}

// hostAllocError is a refused host allocation, in PyTorch's words.
type hostAllocError struct {
	bytes uint64
}

func (e *hostAllocError) Error() string {
	return fmt.Sprintf("DefaultCPUAllocator: can't allocate memory: you tried to allocate %d bytes. Error code 12 (Cannot allocate memory)", e.bytes)
}

// newHostBuf maps n bytes; fill writes every page (zeros), as torch.zeros
// does, so that they are resident; a buffer a copy will write is left to
// the copy. The caller has refused requests above the available memory.
// An interrupt while filling unmaps it again.
func (s *Session) newHostBuf(n uint64, fill bool) (*hostBuf, error) {
	if n == 0 {
		return &hostBuf{}, nil
	}
	mem, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, &hostAllocError{bytes: n}
	}
	h := &hostBuf{mem: mem}
	if fill {
		if err := s.chunked(n, func(off, end uint64) error { clear(mem[off:end]); return nil }); err != nil {
			h.free()
			return nil, err
		}
	}
	return h, nil
}

// chunkBytes is how much of a long fill or copy runs between looks for an
// interrupt.
const chunkBytes = 64 << 20

// chunked runs f over [0, n) in chunks and stops with errInterrupted
// when the session is interrupted between two. It yields between chunks:
// a chunk's fill or copy runs in the runtime's memclr or memmove, which
// cannot be preempted, and with f inlined the loop has no other point
// where the scheduler can stop it. Without the yield, a garbage
// collection that stops the world in the middle of a fill waits for the
// whole fill, and so does the goroutine that hears Ctrl-C: the
// interrupt came only when the fill was over.
func (s *Session) chunked(n uint64, f func(off, end uint64) error) error {
	for off := uint64(0); off < n; off += chunkBytes {
		if s.interrupted.Load() {
			return errInterrupted
		}
		if err := f(off, min(off+chunkBytes, n)); err != nil {
			return err
		}
		runtime.Gosched()
	}
	return nil
}

func (h *hostBuf) free() {
	if h.mem != nil {
		syscall.Munmap(h.mem) //nolint:errcheck // unmapping our own mapping cannot fail
		h.mem = nil
	}
}

// The margin a host tensor must leave: after it, at least
// max(hostMarginMin, MemTotal/hostMarginDiv) stays available. Every
// byte admitted is written at once, and GPU machines rarely have swap,
// so what is left is all the rest of the machine has: this process's own
// heap and histories, the shell and terminal, the page cache of running
// programs. Admitting up to the last byte (20 GiB of 21 free) trades a
// clean refusal for the kernel's OOM killer.
const (
	hostMarginMin = 1 << 30
	hostMarginDiv = 20 // 5%
)

// memInfoEnv names a file read in place of /proc/meminfo (a test's fake
// machine: MemTotal and MemAvailable lines in its format).
const memInfoEnv = "GPUMEMREPL_MEMINFO"

// memAvailable is how many bytes a new host tensor may take:
// /proc/meminfo's MemAvailable less the margin above (0 when the margin
// is more); false when meminfo cannot be read.
func memAvailable() (uint64, bool) {
	total, avail, ok := readMemInfo(memInfoPath())
	if !ok {
		return 0, false
	}
	margin := max(hostMarginMin, total/hostMarginDiv)
	if avail < margin {
		return 0, true
	}
	return avail - margin, true
}

// memInfoPath is /proc/meminfo, or the file memInfoEnv names.
func memInfoPath() string {
	if p := os.Getenv(memInfoEnv); p != "" {
		return p
	}
	return "/proc/meminfo"
}

// readMemInfo reads MemTotal and MemAvailable, in bytes, from a file in
// /proc/meminfo's format; ok only when it has both.
func readMemInfo(path string) (total, avail uint64, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	var hasTotal, hasAvail bool
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, _ := strings.Cut(sc.Text(), ":")
		if name != "MemTotal" && name != "MemAvailable" {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil || kb > math.MaxUint64/1024 {
			return 0, 0, false
		}
		if name == "MemTotal" {
			total, hasTotal = kb*1024, true
		} else {
			avail, hasAvail = kb*1024, true
		}
	}
	return total, avail, hasTotal && hasAvail
}

// readRSS is the resident set of this process in bytes
// (/proc/self/statm resident × page size, as psutil reports it).
func readRSS() (uint64, bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, false
	}
	pages, err := strconv.ParseUint(f[1], 10, 64)
	return pages * uint64(os.Getpagesize()), err == nil
}
