// Package meter reads what the NVIDIA driver says about a GPU's memory,
// through NVML: the memory used on the device (NVML's v1 "used", what
// nvidia-smi and pynvml show), the part this process holds, the total,
// and the processes on it. NVML is optional: where it is
// missing every reading is an error and callers show n/a. A call into
// NVML without a successful init kills the process, so the package makes
// none unless init succeeded.
package meter

// Reading is one look at a device's memory.
type Reading struct {
	Total uint64 // NVML total
	Used  uint64 // device-wide used (v1: allocated plus driver-reserved)
	// Process is what this process holds (its CUDA context and device
	// memory); ProcessKnown is false when the driver does not list it
	// (e.g. in a container whose pids differ from the host's).
	Process      uint64
	ProcessKnown bool
}

// Process is one process using a device.
type Process struct {
	Pid  uint32
	Used uint64 // bytes, as NVML reports it
}
