package engine

import "errors"

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

// ErrDriverFigure says that a simulated GPU cannot give a figure only
// the driver knows.
var ErrDriverFigure = errors.New("on a simulated GPU the driver's free memory is not modelled: it depends on which CUDA kernels the driver has loaded (the CUDA context grew from 518 to 742 MiB over the first kernels of a PyTorch 2.11 process on the H200); run with --device cuda on a GPU for the driver's own figure")

// MemGetInfo is torch.cuda.mem_get_info(i): cuMemGetInfo's free and
// total bytes, the context made first as PyTorch makes it. On a
// simulated GPU it is an estimate, the total less reserved memory and
// the preset's context (Options.Strict: ErrDriverFigure).
func (s *Session) MemGetInfo(i int) (free, total uint64, err error) {
	if _, sim := s.gpus[i].b.(*simBackend); sim {
		if err := s.estimate(ErrDriverFigure, "torch.cuda.mem_get_info", "cuda:%d: the driver's free memory on a simulated GPU, taken as its total less the reserved memory and the preset's CUDA context (a real context grows with the kernels loaded: 518 to 742 MiB over a PyTorch 2.11 process on the H200)", i); err != nil {
			return 0, 0, err
		}
	}
	if _, err := s.initGPU(i); err != nil {
		return 0, 0, err
	}
	switch b := s.gpus[i].b.(type) {
	case *cudaBackend:
		return b.dev.MemGetInfo()
	case *simBackend:
		return b.dev.MemGetInfo()
	}
	return 0, 0, ErrDriverFigure
}

// CUDAInitialized is torch.cuda.is_initialized(): whether some device's
// CUDA context (and allocator) has been made.
func (s *Session) CUDAInitialized() bool {
	for _, g := range s.gpus {
		if g.alloc != nil {
			return true
		}
	}
	return false
}

// InitDevice is torch.cuda.init() for device i: its CUDA context is
// made (and its allocator), as a first CUDA call makes them.
func (s *Session) InitDevice(i int) error {
	_, err := s.initGPU(i)
	return err
}

// ResetAccumulated is torch.cuda.reset_accumulated_memory_stats(i): the
// counts of allocations and frees (the .allocated and .freed keys of
// memory_stats) start again from zero.
func (s *Session) ResetAccumulated(i int) error {
	g, err := s.initGPU(i)
	if err != nil {
		return err
	}
	g.alloc.ResetAccumulatedStats()
	return nil
}
