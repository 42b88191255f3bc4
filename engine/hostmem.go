package engine

import (
	"bufio"
	"fmt"
	"os"
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

// HostAllocError is a refused host allocation, in PyTorch's words.
type HostAllocError struct {
	Bytes uint64
}

func (e *HostAllocError) Error() string {
	return fmt.Sprintf("DefaultCPUAllocator: can't allocate memory: you tried to allocate %d bytes. Error code 12 (Cannot allocate memory)", e.Bytes)
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
		return nil, &HostAllocError{Bytes: n}
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

// chunked runs f over [0, n) in chunks and stops with ErrInterrupted
// when the session is interrupted between two.
func (s *Session) chunked(n uint64, f func(off, end uint64) error) error {
	for off := uint64(0); off < n; off += chunkBytes {
		if s.interrupted.Load() {
			return ErrInterrupted
		}
		if err := f(off, min(off+chunkBytes, n)); err != nil {
			return err
		}
	}
	return nil
}

func (h *hostBuf) free() {
	if h.mem != nil {
		syscall.Munmap(h.mem) //nolint:errcheck // unmapping our own mapping cannot fail
		h.mem = nil
	}
}

// memAvailable reads MemAvailable from /proc/meminfo.
func memAvailable() (uint64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "MemAvailable:"); ok {
			kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}

// ReadRSS is the resident set of this process in bytes
// (/proc/self/statm resident × page size, as psutil reports it).
func ReadRSS() (uint64, bool) {
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
