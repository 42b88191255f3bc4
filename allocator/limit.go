package allocator

// Limit is the per-process limit set_per_process_memory_fraction set
// (PyTorch's allowed_memory_maximum), and whether one is set.
func (a *Allocator) Limit() (uint64, bool) { return a.limit, a.hasLimit }

// TotalMemory is the device's total memory, the base of the memory
// fraction.
func (a *Allocator) TotalMemory() uint64 { return a.dev.TotalMemory() }
