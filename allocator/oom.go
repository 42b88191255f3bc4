package allocator

import (
	"strconv"
	"strings"
)

// OutOfMemoryError is torch.OutOfMemoryError: no cached block fit, the
// device (or the memory fraction) had no room, and releasing the cache
// did not help. It carries the figures of PyTorch's message.
type OutOfMemoryError struct {
	Huge        bool   // the request was 1 EiB or more
	Device      int    // device index
	AllocSize   uint64 // the segment size that was asked for
	DeviceFree  uint64 // cudaMemGetInfo free
	DeviceTotal uint64 // cudaMemGetInfo total
	Allowed     uint64 // allowed_memory_maximum, when HasLimit
	HasLimit    bool
	Allocated   uint64 // allocated_bytes.all.current
	Reserved    uint64 // reserved_bytes.all.current
	// Processes is the NVML sentence on per-process usage
	// ("Including non-PyTorch memory, this process has ... in use. "),
	// empty when unknown.
	Processes string
}

// Error renders PyTorch 2.11's message, byte for byte.
func (e *OutOfMemoryError) Error() string {
	if e.Huge {
		return "CUDA out of memory. Tried to allocate more than 1EB memory."
	}
	var b strings.Builder
	b.WriteString("CUDA out of memory. Tried to allocate ")
	b.WriteString(FormatSize(e.AllocSize))
	b.WriteString(". GPU ")
	b.WriteString(strconv.Itoa(e.Device))
	b.WriteString(" has a total capacity of ")
	b.WriteString(FormatSize(e.DeviceTotal))
	b.WriteString(" of which ")
	b.WriteString(FormatSize(e.DeviceFree))
	b.WriteString(" is free. ")
	b.WriteString(e.Processes)
	if e.HasLimit {
		b.WriteString(FormatSize(e.Allowed))
		b.WriteString(" allowed; ")
	}
	b.WriteString("Of the allocated memory ")
	b.WriteString(FormatSize(e.Allocated))
	b.WriteString(" is allocated by PyTorch, and ")
	b.WriteString(FormatSize(e.Reserved - e.Allocated))
	b.WriteString(" is reserved by PyTorch but unallocated.")
	b.WriteString(" If reserved but unallocated memory is large try setting" +
		" PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid" +
		" fragmentation.  See documentation for Memory Management " +
		" (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)")
	return b.String()
}

// outOfMemory records the OOM (num_ooms) and builds its error.
func (a *Allocator) outOfMemory(s, allocSize uint64) error {
	free, total, err := a.dev.MemGetInfo()
	if err != nil {
		return err
	}
	a.stats.NumOOMs++
	st := a.Stats()
	return &OutOfMemoryError{
		Device:      a.index,
		AllocSize:   allocSize,
		DeviceFree:  free,
		DeviceTotal: total,
		Allowed:     a.limit,
		HasLimit:    a.hasLimit,
		Allocated:   uint64(st.AllocatedBytes[bucketAll].Current),
		Reserved:    uint64(st.ReservedBytes[bucketAll].Current),
	}
}

// FormatSize is c10's format_size, the size format of PyTorch's messages:
// "N bytes" up to 1 KiB, then KiB, MiB or GiB with two decimals.
func FormatSize(n uint64) string { return string(AppendSize(nil, n)) }

// AppendSize appends FormatSize(n) to b (a step report's figures are
// many).
func AppendSize(b []byte, n uint64) []byte {
	switch {
	case n <= 1024:
		return append(strconv.AppendUint(b, n, 10), " bytes"...)
	case n <= MiB:
		return append(strconv.AppendFloat(b, float64(n)/1024, 'f', 2, 64), " KiB"...)
	case n <= GiB:
		return append(strconv.AppendFloat(b, float64(n)/MiB, 'f', 2, 64), " MiB"...)
	default:
		return append(strconv.AppendFloat(b, float64(n)/GiB, 'f', 2, 64), " GiB"...)
	}
}
