//go:build cgo

package meter

import (
	"fmt"
	"os"
	"sync"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

var (
	initOnce sync.Once
	initErr  error
)

// start initialises NVML once per process.
func start() error {
	initOnce.Do(func() {
		if r := nvml.Init(); r != nvml.SUCCESS {
			initErr = fmt.Errorf("NVML: %s", nvml.ErrorString(r))
		}
	})
	return initErr
}

// Device is one GPU as NVML sees it.
type Device struct {
	h nvml.Device
}

// Open finds the device at a PCI bus id (as CUDA reports it, so that CUDA
// and NVML agree on which GPU is meant).
func Open(pciBusID string) (*Device, error) {
	if err := start(); err != nil {
		return nil, err
	}
	h, r := nvml.DeviceGetHandleByPciBusId(pciBusID)
	if r != nvml.SUCCESS {
		return nil, fmt.Errorf("NVML: device %s: %s", pciBusID, nvml.ErrorString(r))
	}
	return &Device{h: h}, nil
}

// Read reports the device's memory now.
func (d *Device) Read() (Reading, error) {
	m, r := d.h.GetMemoryInfo()
	if r != nvml.SUCCESS {
		return Reading{}, fmt.Errorf("NVML: memory info: %s", nvml.ErrorString(r))
	}
	rd := Reading{Total: m.Total, Used: m.Used}
	ps, err := d.Processes()
	if err == nil {
		pid := uint32(os.Getpid())
		for _, p := range ps {
			if p.Pid == pid {
				rd.Process, rd.ProcessKnown = p.Used, true
			}
		}
	}
	return rd, nil
}

// Processes lists the compute processes on the device.
func (d *Device) Processes() ([]Process, error) {
	ps, r := d.h.GetComputeRunningProcesses()
	if r != nvml.SUCCESS {
		return nil, fmt.Errorf("NVML: processes: %s", nvml.ErrorString(r))
	}
	out := make([]Process, len(ps))
	for i, p := range ps {
		out[i] = Process{Pid: p.Pid, Used: p.UsedGpuMemory}
	}
	return out, nil
}
