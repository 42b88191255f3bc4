package cuda

import (
	"fmt"
	"unsafe"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// Device is one GPU's memory through its primary context. It implements
// device.Device for the allocator, and moves tensor bytes.
type Device struct {
	drv   *Driver
	dev   int32
	ctx   uintptr
	total uint64
	gran  uint64            // VMM granularity
	pages map[uint64]uint64 // mapped page address → physical memory handle, one per granule
	peers []int32           // devices granted access to this one's mapped pages
}

var _ device.Device = (*Device)(nil)

// Open creates (retains) device i's primary context, the CUDA context a
// PyTorch process uses, and returns the device over it.
func (d *Driver) Open(i int) (*Device, error) {
	g := &Device{drv: d, pages: map[uint64]uint64{}}
	info, err := d.Info(i)
	if err != nil {
		return nil, err
	}
	g.total = info.Total
	err = d.check("cuDeviceGet", func() int32 { return d.cuDeviceGet(&g.dev, int32(i)) })
	if err == nil {
		err = d.check("cuDevicePrimaryCtxRetain", func() int32 { return d.cuDevicePrimaryCtxRetain(&g.ctx, g.dev) })
	}
	if err != nil {
		return nil, err
	}
	prop := g.prop()
	var gran uintptr
	if err := g.call("cuMemGetAllocationGranularity", func() int32 { return d.cuMemGetAllocationGranularity(&gran, &prop, 0) }); err != nil {
		return nil, err
	}
	g.gran = uint64(gran)
	return g, nil
}

// call runs f on the driver thread with this device's context current.
func (g *Device) call(name string, f func() int32) error {
	d := g.drv
	return d.check(name, func() int32 {
		if d.current != g.ctx {
			if r := d.cuCtxSetCurrent(g.ctx); r != 0 {
				return r
			}
			d.current = g.ctx
		}
		return f()
	})
}

// readWrite is read-write access to mapped pages for device dev
// (CU_MEM_ACCESS_FLAGS_PROT_READWRITE).
func readWrite(dev int32) memAccessDesc {
	return memAccessDesc{Location: memLocation{Type: 1, ID: dev}, Flags: 3}
}

// prop asks for pinned device memory on this device.
func (g *Device) prop() memAllocationProp {
	return memAllocationProp{Type: 1, Location: memLocation{Type: 1, ID: g.dev}}
}

// Malloc implements device.Device (cuMemAlloc_v2).
func (g *Device) Malloc(size uint64) (uint64, error) {
	var p uint64
	err := g.call("cuMemAlloc_v2", func() int32 { return g.drv.cuMemAlloc(&p, uintptr(size)) })
	return p, err
}

// Free implements device.Device (cuMemFree_v2).
func (g *Device) Free(ptr uint64) error {
	return g.call("cuMemFree_v2", func() int32 { return g.drv.cuMemFree(ptr) })
}

// MemGetInfo implements device.Device (cuMemGetInfo_v2).
func (g *Device) MemGetInfo() (free, total uint64, err error) {
	var f, t uintptr
	err = g.call("cuMemGetInfo_v2", func() int32 { return g.drv.cuMemGetInfo(&f, &t) })
	return uint64(f), uint64(t), err
}

// TotalMemory implements device.Device.
func (g *Device) TotalMemory() uint64 { return g.total }

// ReserveAddress implements device.Device (cuMemAddressReserve).
func (g *Device) ReserveAddress(size uint64) (uint64, error) {
	var p uint64
	err := g.call("cuMemAddressReserve", func() int32 { return g.drv.cuMemAddressReserve(&p, uintptr(size), 0, 0, 0) })
	return p, err
}

// ReleaseAddress implements device.Device (cuMemAddressFree).
func (g *Device) ReleaseAddress(ptr, size uint64) error {
	return g.call("cuMemAddressFree", func() int32 { return g.drv.cuMemAddressFree(ptr, uintptr(size)) })
}

// MapPages implements device.Device: one physical allocation per granule
// (cuMemCreate + cuMemMap), so that any granule can be unmapped on its
// own later, then read-write access for the range (cuMemSetAccess). On
// failure what this call mapped is undone.
func (g *Device) MapPages(ptr, size uint64) error {
	if size%g.gran != 0 || ptr%g.gran != 0 {
		return fmt.Errorf("cuMemCreate: %#x+%d is not a multiple of the granularity %d", ptr, size, g.gran)
	}
	d := g.drv
	prop := g.prop()
	var err error
	p := ptr
	for ; p < ptr+size && err == nil; p += g.gran {
		var h uint64
		if err = g.call("cuMemCreate", func() int32 { return d.cuMemCreate(&h, uintptr(g.gran), &prop, 0) }); err != nil {
			break
		}
		if err = g.call("cuMemMap", func() int32 { return d.cuMemMap(p, uintptr(g.gran), 0, h, 0) }); err != nil {
			g.call("cuMemRelease", func() int32 { return d.cuMemRelease(h) }) //nolint:errcheck // already failing
			break
		}
		g.pages[p] = h
	}
	if err == nil {
		access := []memAccessDesc{readWrite(g.dev)}
		for _, p := range g.peers {
			access = append(access, readWrite(p))
		}
		err = g.call("cuMemSetAccess", func() int32 { return d.cuMemSetAccess(ptr, uintptr(size), &access[0], uintptr(len(access))) })
	}
	if err != nil {
		g.UnmapPages(ptr, p-ptr) //nolint:errcheck // undoing; the first error is the one to report
	}
	return err
}

// UnmapPages implements device.Device (cuMemUnmap + cuMemRelease of each
// granule).
func (g *Device) UnmapPages(ptr, size uint64) error {
	d := g.drv
	for p := ptr; p < ptr+size; p += g.gran {
		h, ok := g.pages[p]
		if !ok {
			continue
		}
		if err := g.call("cuMemUnmap", func() int32 { return d.cuMemUnmap(p, uintptr(g.gran)) }); err != nil {
			return err
		}
		if err := g.call("cuMemRelease", func() int32 { return d.cuMemRelease(h) }); err != nil {
			return err
		}
		delete(g.pages, p)
	}
	return nil
}

// Zero writes n zero bytes at ptr and waits for the device, as
// torch.zeros does before it returns to Python code that reads it.
func (g *Device) Zero(ptr, n uint64) error {
	d := g.drv
	return g.call("cuMemsetD8_v2", func() int32 {
		if r := d.cuMemsetD8(ptr, 0, uintptr(n)); r != 0 {
			return r
		}
		return d.cuCtxSynchronize()
	})
}

// CopyIn copies host memory src to the device at dst.
func (g *Device) CopyIn(dst uint64, src []byte) error {
	if len(src) == 0 {
		return nil
	}
	return g.call("cuMemcpyHtoD_v2", func() int32 { return g.drv.cuMemcpyHtoD(dst, unsafe.Pointer(&src[0]), uintptr(len(src))) })
}

// CopyOut copies len(dst) bytes from the device at src to host memory.
func (g *Device) CopyOut(dst []byte, src uint64) error {
	if len(dst) == 0 {
		return nil
	}
	return g.call("cuMemcpyDtoH_v2", func() int32 { return g.drv.cuMemcpyDtoH(unsafe.Pointer(&dst[0]), src, uintptr(len(dst))) })
}

// Copy copies n bytes between device addresses, on this or another GPU
// (unified addressing), and waits for it.
func (g *Device) Copy(dst, src, n uint64) error {
	d := g.drv
	return g.call("cuMemcpy", func() int32 {
		if r := d.cuMemcpy(dst, src, uintptr(n)); r != 0 {
			return r
		}
		return d.cuCtxSynchronize()
	})
}

// peerAccessAlreadyEnabled is CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED.
const peerAccessAlreadyEnabled = 704

// EnablePeerAccess lets g reach p's memory, as PyTorch does before its
// first copy from one device to another: where cuDeviceCanAccessPeer says
// the hardware allows it, p's context becomes a peer of g's
// (cuCtxEnablePeerAccess), and g is granted access to p's mapped
// expandable-segment pages, now and as p maps more (peer access does not
// cover memory mapped with cuMemMap). It reports whether access is on; a
// device is never its own peer.
func (g *Device) EnablePeerAccess(p *Device) (bool, error) {
	if g.dev == p.dev {
		return false, nil
	}
	d := g.drv
	var can int32
	if err := d.check("cuDeviceCanAccessPeer", func() int32 { return d.cuDeviceCanAccessPeer(&can, g.dev, p.dev) }); err != nil || can == 0 {
		return false, err
	}
	err := g.call("cuCtxEnablePeerAccess", func() int32 {
		if r := d.cuCtxEnablePeerAccess(p.ctx, 0); r != peerAccessAlreadyEnabled {
			return r
		}
		return 0
	})
	if err != nil {
		return false, err
	}
	access := readWrite(g.dev)
	for page := range p.pages {
		if err := p.call("cuMemSetAccess", func() int32 { return d.cuMemSetAccess(page, uintptr(p.gran), &access, 1) }); err != nil {
			return false, err
		}
	}
	p.peers = append(p.peers, g.dev)
	return true, nil
}

// CopyPeer copies n bytes at src on device from to dst on g
// (cuMemcpyPeer), and waits for it. Where g has no peer access to
// from's memory the driver stages the copy through host memory.
func (g *Device) CopyPeer(dst uint64, from *Device, src, n uint64) error {
	d := g.drv
	return from.call("cuMemcpyPeer", func() int32 {
		if r := d.cuMemcpyPeer(dst, g.ctx, src, from.ctx, uintptr(n)); r != 0 {
			return r
		}
		return d.cuCtxSynchronize()
	})
}
