package engine

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// hostBuf is host memory taken outside the Go heap with an anonymous
// mmap, so that RSS rises when it is written and falls at once when it is
// unmapped, as with PyTorch's CPU allocator for large buffers; one under
// hostHeapMax is taken from the Go heap, as glibc's malloc, under
// PyTorch's, serves small ones from its arena (below M_MMAP_THRESHOLD,
// 128 KiB at the start): a map and an unmap for each small tensor were
// most of a short step's cost.
type hostBuf struct {
	mem    []byte
	mapped bool
}

// hostHeapMax is glibc's first M_MMAP_THRESHOLD.
const hostHeapMax = 128 << 10

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
	hostMoved.Add(n)
	if n < hostHeapMax {
		return &hostBuf{mem: make([]byte, n)}, nil
	}
	mem, err := syscall.Mmap(-1, 0, int(n), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, &hostAllocError{bytes: n}
	}
	h := &hostBuf{mem: mem, mapped: true}
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
	hostMoved.Add(uint64(len(h.mem)))
	if h.mapped {
		syscall.Munmap(h.mem) //nolint:errcheck // unmapping our own mapping cannot fail
	}
	h.mem, h.mapped = nil, false
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
	b, ok := readSmall(path)
	if !ok {
		return 0, 0, false
	}
	var hasTotal, hasAvail bool
	for line := range strings.Lines(b) {
		name, rest, _ := strings.Cut(line, ":")
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
// (/proc/self/statm resident × page size, as psutil reports it). It is
// read again when host buffers of 64 KiB or more were made or freed
// since the last reading, or 10 ms have passed: a step of a short line
// costs less than the reading (a million-line script spent a third of
// its time in it), and what else moves this process's memory (its own
// heap) moves it slowly.
func readRSS() (uint64, bool) {
	r := &rssRead
	r.Lock()
	defer r.Unlock()
	moved := hostMoved.Load()
	if r.read && moved-r.moved < 64<<10 && time.Since(r.at) < 10*time.Millisecond {
		return r.rss, r.ok
	}
	r.read, r.moved, r.at = true, moved, time.Now()
	r.rss, r.ok = 0, false
	if b, ok := readSmall("/proc/self/statm"); ok {
		if f := strings.Fields(b); len(f) >= 2 {
			pages, err := strconv.ParseUint(f[1], 10, 64)
			r.rss, r.ok = pages*uint64(os.Getpagesize()), err == nil
		}
	}
	return r.rss, r.ok
}

// rssRead is readRSS's last reading: when, and hostMoved then.
var rssRead struct {
	sync.Mutex
	read, ok bool
	rss      uint64
	moved    uint64
	at       time.Time
}

// hostMoved counts the bytes of host buffers made and freed.
var hostMoved atomic.Uint64

// procFiles are the files of /proc read at every step, kept open and
// read again from their start (pread), which makes the kernel write
// them anew: opening them each time was most of a short step's cost (a
// million-line script opened /proc/self/statm a million times).
var procFiles = struct {
	sync.Mutex
	open map[string]*os.File
	buf  []byte
}{open: map[string]*os.File{}}

// readSmall is the text of a small file: one of /proc through
// procFiles, any other (a test's fake /proc/meminfo) read whole.
func readSmall(path string) (string, bool) {
	if !strings.HasPrefix(path, "/proc/") {
		b, err := os.ReadFile(path)
		return string(b), err == nil
	}
	p := &procFiles
	p.Lock()
	defer p.Unlock()
	f := p.open[path]
	if f == nil {
		var err error
		if f, err = os.Open(path); err != nil {
			return "", false
		}
		p.open[path] = f
	}
	if p.buf == nil {
		p.buf = make([]byte, 16<<10)
	}
	for {
		n, err := syscall.Pread(int(f.Fd()), p.buf, 0)
		if err != nil {
			return "", false
		}
		if n < len(p.buf) { // read whole
			return string(p.buf[:n]), true
		}
		p.buf = make([]byte, 2*len(p.buf))
	}
}
