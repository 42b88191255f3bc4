// Package device defines the memory source under the caching allocator:
// the calls the allocator makes to get and return device memory. The
// simulated device (package sim) and the CUDA driver implement it; the
// allocator knows nothing of which one it talks to.
package device

import "errors"

// ErrOutOfMemory is returned (possibly wrapped) when the device has no room
// for a request. The allocator treats it as cudaErrorMemoryAllocation:
// release cached blocks and retry, then raise out-of-memory. Any other
// error is passed to the caller at once.
var ErrOutOfMemory = errors.New("out of memory")

// Device is one GPU's memory, as the caching allocator sees it.
type Device interface {
	// Malloc returns the address of a new segment of exactly size bytes
	// (cudaMalloc).
	Malloc(size uint64) (uint64, error)
	// Free returns a segment obtained from Malloc (cudaFree).
	Free(ptr uint64) error
	// MemGetInfo reports free and total device memory (cudaMemGetInfo).
	MemGetInfo() (free, total uint64, err error)
	// TotalMemory is the device's total memory (totalGlobalMem), the base
	// of set_per_process_memory_fraction.
	TotalMemory() uint64

	// The virtual memory calls of expandable segments
	// (cuMemAddressReserve, cuMemCreate + cuMemMap + cuMemSetAccess,
	// cuMemUnmap + cuMemRelease, cuMemAddressFree). Sizes and addresses
	// are multiples of the granularity.

	// ReserveAddress reserves size bytes of address space, no memory.
	ReserveAddress(size uint64) (uint64, error)
	// ReleaseAddress returns a reservation whose pages are all unmapped.
	ReleaseAddress(ptr, size uint64) error
	// MapPages backs [ptr, ptr+size) of a reservation with new memory.
	MapPages(ptr, size uint64) error
	// UnmapPages unmaps and frees the memory of [ptr, ptr+size).
	UnmapPages(ptr, size uint64) error
}

// Event is something a program does besides allocating that makes the
// CUDA driver take device address space for itself, so that the segments
// made after it sit elsewhere (testdata/segments/README.md).
type Event int

// The events the engine reports.
const (
	// Kernel is a kernel launched, other than PyTorch's random number
	// generators (whose first launch grew nothing in the recordings).
	Kernel Event = iota
	// BLASHandle is a cuBLAS handle created: the first product of a
	// thread (the program's, then autograd's backward thread), before
	// the workspace PyTorch allocates for it.
	BLASHandle
	// Reduction is a reduction kernel launched (sum, mean, ...) or an
	// embedding's lookup (index_select's kernel): the first of either
	// makes the driver take the same 10 MiB.
	Reduction
	// Library is the shared library mapped into the process at the first
	// torch.optim optimizer or activation checkpoint.
	Library
	// CuDNNHandle is a convolution or attention cuDNN runs, before its
	// output is allocated: the process's first makes cuDNN's handle and
	// maps its libraries.
	CuDNNHandle
)

// Observer is a device whose addresses depend on what the process does
// besides allocating: the simulated one, which must take for the driver
// what the real driver takes. The engine reports each event to a device
// that implements it; the CUDA device need not (its driver sees them).
// Unplaced says, once, why the segment it placed last, or the tie it
// was told of last (Tie), may not be what the driver's addresses make
// it (what it does not model), nil where it is: the figures from there
// on are an estimate. Tie is told that the caching allocator's best fit
// took the free block at x over one of the same size at y, the lower
// address of the two. HostRoom is told, as the CUDA context is created,
// that the host's mappings above it (a model built on the host before,
// its tensors freed as they move, its threads' malloc arenas) may leave
// room for the driver's chunks smaller than n bytes.
type Observer interface {
	Observe(Event)
	Unplaced() error
	Tie(x, y uint64)
	HostRoom(n uint64)
}
