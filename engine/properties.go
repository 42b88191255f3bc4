package engine

// DeviceProperties are what torch.cuda.get_device_properties(i) says of
// a GPU.
type DeviceProperties struct {
	Name                string // get_device_name's
	TotalMemory         uint64 // total_memory: cuDeviceTotalMem
	Major, Minor        int    // the compute capability
	MultiProcessorCount int    // multi_processor_count
}

func (b *simBackend) properties() DeviceProperties {
	p := b.preset
	return DeviceProperties{Name: p.Model, TotalMemory: b.dev.TotalMemory(), Major: p.ComputeMajor, Minor: p.ComputeMinor, MultiProcessorCount: p.SMs}
}

func (b *cudaBackend) properties() DeviceProperties {
	i := b.info
	return DeviceProperties{Name: i.Name, TotalMemory: i.Total, Major: i.ComputeMajor, Minor: i.ComputeMinor, MultiProcessorCount: i.SMs}
}

// Properties are device i's torch.cuda.get_device_properties(i).
func (s *Session) Properties(i int) DeviceProperties { return s.gpus[i].b.properties() }
