package engine

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/device"
	"github.com/gpumemrepl/gpumemrepl/allocator/device/cuda"
	"github.com/gpumemrepl/gpumemrepl/allocator/device/meter"
	"github.com/gpumemrepl/gpumemrepl/allocator/device/sim"
)

// A backend is the GPU under one CUDA index of a session: the simulated
// device or a real one.
type backend interface {
	// open creates the CUDA context and returns the memory the allocator
	// takes segments from.
	open() (device.Device, error)
	// driverUsed is what the driver says this process holds on the
	// device, its CUDA context included; false when it cannot tell.
	driverUsed() (uint64, bool)
	// zero, copyIn, copyOut and copyDevice move tensor bytes;
	// copyDevice copies from this device or another (from).
	zero(ptr, n uint64) error
	copyIn(dst uint64, src []byte) error
	copyOut(dst []byte, src uint64) error
	copyDevice(dst uint64, from backend, src, n uint64) error
	// enablePeer gives this device access to other's memory where the
	// hardware allows it, as PyTorch does before its first copy from one
	// to the other, and reports whether it did.
	enablePeer(other backend) (bool, error)
	// describe is one line about the device, for gpus.
	describe() string
	// name is the device's name, as torch.cuda.get_device_name says it.
	name() string
	// computeMajor is the compute capability's major number.
	computeMajor() int
	// grid is the multiprocessor count and the most threads one runs.
	grid() (sms, threadsPerSM int)
	// properties are torch.cuda.get_device_properties' fields.
	properties() DeviceProperties
}

// simBackend is the simulated device: no bytes, and driver-used is its
// reserved memory plus the preset's CUDA context.
type simBackend struct {
	dev    *sim.Device
	preset Preset
	ctx    uint64
}

func (b *simBackend) open() (device.Device, error) {
	b.dev.SetContextBytes(b.ctx)
	return b.dev, nil
}

func (b *simBackend) driverUsed() (uint64, bool) {
	free, total, _ := b.dev.MemGetInfo()
	return total - free, true
}

// The simulated device moves no bytes, but checks each range a copy or
// a memset touches as the driver does (sim.Device.Access): inside one
// allocation or mapped range of its own device.

func (b *simBackend) zero(ptr, n uint64) error { return b.dev.Access("cuMemsetD8", ptr, n) }

func (b *simBackend) copyIn(dst uint64, src []byte) error {
	return b.dev.Access("cuMemcpyHtoD", dst, uint64(len(src)))
}

func (b *simBackend) copyDevice(dst uint64, from backend, src, n uint64) error {
	if err := b.dev.Access("cuMemcpy", dst, n); err != nil {
		return err
	}
	f, ok := from.(*simBackend)
	if !ok {
		return fmt.Errorf("cuMemcpy: a copy between a simulated device and a real one")
	}
	return f.dev.Access("cuMemcpy", src, n)
}

func (b *simBackend) enablePeer(other backend) (bool, error) {
	return other != b && b.preset.PeerAccess, nil
}

// copyOut writes the host pages as a real copy would, so that RSS rises
// by the copy's size.
func (b *simBackend) copyOut(dst []byte, src uint64) error {
	if err := b.dev.Access("cuMemcpyDtoH", src, uint64(len(dst))); err != nil {
		return err
	}
	clear(dst)
	return nil
}

func (b *simBackend) computeMajor() int { return b.preset.ComputeMajor }

func (b *simBackend) grid() (int, int) { return b.preset.SMs, b.preset.ThreadsPerSM }

func (b *simBackend) name() string { return b.preset.Model }

func (b *simBackend) describe() string {
	return fmt.Sprintf("simulated %s, %s (%d bytes); driver-used is reserved plus the preset's %s CUDA context",
		b.preset.Name, allocator.FormatSize(b.dev.TotalMemory()), b.dev.TotalMemory(), allocator.FormatSize(b.ctx))
}

// cudaBackend is a real GPU: memory from the CUDA driver, driver-used
// from NVML.
type cudaBackend struct {
	drv      *cuda.Driver
	index    int
	info     cuda.Info
	dev      *cuda.Device // nil until the context exists
	nvml     *meter.Device
	nvmlErr  error
	baseline uint64 // NVML device-wide used before this process's context
}

func newCUDABackend(drv *cuda.Driver, i int) (*cudaBackend, error) {
	info, err := drv.Info(i)
	if err != nil {
		return nil, err
	}
	b := &cudaBackend{drv: drv, index: i, info: info}
	b.nvml, b.nvmlErr = meter.Open(info.PCIBusID)
	if b.nvmlErr == nil {
		if r, err := b.nvml.Read(); err == nil {
			b.baseline = r.Used
		}
	}
	return b, nil
}

func (b *cudaBackend) open() (device.Device, error) {
	d, err := b.drv.Open(b.index)
	if err != nil {
		return nil, err
	}
	b.dev = d
	return d, nil
}

// driverUsed is NVML's figure for this process, or, where the driver
// does not list the process, the device-wide used memory less what was
// used before the context.
func (b *cudaBackend) driverUsed() (uint64, bool) {
	if b.nvmlErr != nil {
		return 0, false
	}
	r, err := b.nvml.Read()
	switch {
	case err != nil:
		return 0, false
	case r.ProcessKnown:
		return r.Process, true
	case r.Used >= b.baseline:
		return r.Used - b.baseline, true
	}
	return 0, false
}

func (b *cudaBackend) zero(ptr, n uint64) error             { return b.dev.Zero(ptr, n) }
func (b *cudaBackend) copyIn(dst uint64, src []byte) error  { return b.dev.CopyIn(dst, src) }
func (b *cudaBackend) copyOut(dst []byte, src uint64) error { return b.dev.CopyOut(dst, src) }

func (b *cudaBackend) copyDevice(dst uint64, from backend, src, n uint64) error {
	if f := from.(*cudaBackend); f != b {
		return b.dev.CopyPeer(dst, f.dev, src, n)
	}
	return b.dev.Copy(dst, src, n)
}

func (b *cudaBackend) enablePeer(other backend) (bool, error) {
	return b.dev.EnablePeerAccess(other.(*cudaBackend).dev)
}

func (b *cudaBackend) computeMajor() int { return b.info.ComputeMajor }

func (b *cudaBackend) grid() (int, int) { return b.info.SMs, b.info.ThreadsPerSM }

func (b *cudaBackend) name() string { return b.info.Name }

func (b *cudaBackend) describe() string {
	line := fmt.Sprintf("%s, %s (%d bytes), PCI %s", b.info.Name, allocator.FormatSize(b.info.Total), b.info.Total, b.info.PCIBusID)
	if b.nvmlErr != nil {
		return line + "; driver-used n/a (" + b.nvmlErr.Error() + ")"
	}
	r, err := b.nvml.Read()
	if err != nil {
		return line + "; driver-used n/a (" + err.Error() + ")"
	}
	line += fmt.Sprintf("; NVML: %s used of %s", allocator.FormatSize(r.Used), allocator.FormatSize(r.Total))
	ps, err := b.nvml.Processes()
	if err != nil {
		return line + "; processes n/a (" + err.Error() + ")"
	}
	var list []string
	for _, p := range ps {
		list = append(list, fmt.Sprintf("pid %d %s", p.Pid, allocator.FormatSize(p.Used)))
	}
	if len(list) == 0 {
		return line + "; no processes"
	}
	return line + "; processes: " + strings.Join(list, ", ")
}

// errNoGPU is returned when a real GPU is asked for and none is usable.
var errNoGPU = errors.New("no usable CUDA GPU")

// cudaBackends opens the CUDA driver and describes every device.
func cudaBackends() ([]backend, error) {
	drv, err := cuda.Load()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoGPU, err)
	}
	n, err := drv.Count()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoGPU, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("%w: the driver reports no device", errNoGPU)
	}
	var bs []backend
	for i := 0; i < n; i++ {
		b, err := newCUDABackend(drv, i)
		if err != nil {
			return nil, fmt.Errorf("%w: cuda:%d: %v", errNoGPU, i, err)
		}
		bs = append(bs, b)
	}
	return bs, nil
}
