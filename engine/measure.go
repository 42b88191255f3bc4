package engine

// Figures are the numbers shown after every step.
type Figures struct {
	HostRSS   uint64 // resident set of this process (or, in FakeHost mode, the bytes of live host tensors)
	HostKnown bool
	// Pinned is the pinned host memory the caching host allocator holds,
	// in use or cached (part of HostRSS).
	Pinned uint64
	// HostCounted is the bytes of live host tensors past the host
	// budget: counted, not allocated (not part of HostRSS).
	HostCounted uint64
	Devices     []DeviceFigures
	// Estimated says the figures rest on an estimate: some op since the
	// session began followed a general rule instead of a recorded one
	// (Session.Tier names the first).
	Estimated bool
}

// DeviceFigures are one GPU's numbers.
type DeviceFigures struct {
	Allocated uint64 // torch.cuda.memory_allocated
	Reserved  uint64 // torch.cuda.memory_reserved
	// MaxAllocated and MaxReserved are the peaks since the device's
	// allocator was made or its peaks last reset:
	// torch.cuda.max_memory_allocated and max_memory_reserved.
	MaxAllocated uint64
	MaxReserved  uint64
	// DriverUsed is what the driver has given this process, once the
	// context exists: on a real GPU NVML's figure, on the simulated
	// device the reserved memory plus the preset's CUDA context.
	DriverUsed  uint64
	DriverKnown bool // DriverUsed could be read (NVML is there)
	// Context is what the CUDA context cost: driver-used when it was
	// made, before any tensor.
	Context uint64
	// Outside is driver-used memory that is neither reserved by the
	// allocator nor the context: e.g. another library's cudaMalloc.
	Outside int64
	Inited  bool // the CUDA context exists (the device's allocator was made)
}

// Measure reads the figures now.
func (s *Session) Measure() Figures {
	f := Figures{Estimated: !s.tiers.total.Exact()}
	if !s.opts.FakeHost {
		s.settleHost()
		f.HostCounted = s.host.counted
	}
	if s.opts.FakeHost {
		f.HostRSS, f.HostKnown = s.hostLive+s.pinnedReserved(), true
	} else {
		f.HostRSS, f.HostKnown = readRSS()
	}
	f.Pinned = s.pinnedReserved()
	for _, g := range s.gpus {
		st := g.stats()
		d := DeviceFigures{
			Allocated:    uint64(st.AllocatedBytes[0].Current),
			Reserved:     uint64(st.ReservedBytes[0].Current),
			MaxAllocated: uint64(st.AllocatedBytes[0].Peak),
			MaxReserved:  uint64(st.ReservedBytes[0].Peak),
			Inited:       g.alloc != nil,
		}
		if d.Inited {
			d.DriverUsed, d.DriverKnown = g.b.driverUsed()
			d.Context = g.ctx
			if d.DriverKnown {
				d.Outside = int64(d.DriverUsed) - int64(d.Reserved) - int64(d.Context)
			}
		}
		f.Devices = append(f.Devices, d)
	}
	return f
}
