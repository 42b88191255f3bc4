// Package cuda is the real GPU under the caching allocator: device memory
// from the CUDA driver library (libcuda.so.1), loaded when the program
// runs, so that a binary built without the CUDA toolkit runs anywhere and
// a machine with no GPU gets an ordinary error instead of a crash.
//
// A CUDA context is current per OS thread, so every driver call is made by
// one goroutine locked to its thread for the life of the process; callers
// on any goroutine hand it their calls and wait. Only the _v2 entry points
// are used where cuda.h defines them, and never managed memory.
package cuda

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// Soname is the driver library, opened by soname as the loader finds it.
const Soname = "libcuda.so.1"

// Result codes the package acts on (cuda.h CUresult).
const (
	errorOutOfMemory = 2 // CUDA_ERROR_OUT_OF_MEMORY
)

// Error is a failed driver call, named as cuda.h names the call and the
// result.
type Error struct {
	Call string // e.g. "cuMemAlloc_v2"
	Code int32  // the CUresult
	Name string // e.g. "CUDA_ERROR_OUT_OF_MEMORY"
}

// Error names the call and the result.
func (e *Error) Error() string { return fmt.Sprintf("%s: %s (%d)", e.Call, e.Name, e.Code) }

// Is makes CUDA_ERROR_OUT_OF_MEMORY match device.ErrOutOfMemory, which
// the allocator answers by releasing its cache and retrying.
func (e *Error) Is(target error) bool {
	return target == device.ErrOutOfMemory && e.Code == errorOutOfMemory
}

// fallbackNames name the results seen before cuGetErrorName can be asked.
var fallbackNames = map[int32]string{
	0: "CUDA_SUCCESS", 1: "CUDA_ERROR_INVALID_VALUE", 2: "CUDA_ERROR_OUT_OF_MEMORY",
	3: "CUDA_ERROR_NOT_INITIALIZED", 100: "CUDA_ERROR_NO_DEVICE", 101: "CUDA_ERROR_INVALID_DEVICE",
	201: "CUDA_ERROR_INVALID_CONTEXT",
}

// memAllocationProp is CUmemAllocationProp (32 bytes).
type memAllocationProp struct {
	Type, RequestedHandleTypes int32 // CU_MEM_ALLOCATION_TYPE_PINNED = 1, no handle type = 0
	Location                   memLocation
	Win32HandleMetaData        uintptr
	AllocFlags                 [8]byte
}

// memLocation is CUmemLocation; CU_MEM_LOCATION_TYPE_DEVICE = 1.
type memLocation struct{ Type, ID int32 }

// memAccessDesc is CUmemAccessDesc (12 bytes); CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3.
type memAccessDesc struct {
	Location memLocation
	Flags    int32
}

// api holds the driver's entry points, bound by name.
type api struct {
	cuInit                        func(flags uint32) int32
	cuGetErrorName                func(res int32, name **byte) int32
	cuDeviceGetCount              func(n *int32) int32
	cuDeviceGet                   func(dev *int32, ordinal int32) int32
	cuDeviceGetName               func(name *byte, n int32, dev int32) int32
	cuDeviceGetPCIBusId           func(id *byte, n int32, dev int32) int32
	cuDeviceTotalMem              func(bytes *uintptr, dev int32) int32
	cuDeviceGetAttribute          func(v *int32, attr int32, dev int32) int32
	cuDevicePrimaryCtxRetain      func(ctx *uintptr, dev int32) int32
	cuCtxSetCurrent               func(ctx uintptr) int32
	cuCtxSynchronize              func() int32
	cuMemAlloc                    func(ptr *uint64, size uintptr) int32
	cuMemFree                     func(ptr uint64) int32
	cuMemGetInfo                  func(free, total *uintptr) int32
	cuMemsetD8                    func(ptr uint64, v uint8, n uintptr) int32
	cuMemcpyHtoD                  func(dst uint64, src unsafe.Pointer, n uintptr) int32
	cuMemcpyDtoH                  func(dst unsafe.Pointer, src uint64, n uintptr) int32
	cuMemcpy                      func(dst, src uint64, n uintptr) int32
	cuMemcpyPeer                  func(dst uint64, dstCtx uintptr, src uint64, srcCtx uintptr, n uintptr) int32
	cuDeviceCanAccessPeer         func(can *int32, dev, peer int32) int32
	cuCtxEnablePeerAccess         func(peerCtx uintptr, flags uint32) int32
	cuMemAddressReserve           func(ptr *uint64, size, align uintptr, addr uint64, flags uint64) int32
	cuMemAddressFree              func(ptr uint64, size uintptr) int32
	cuMemCreate                   func(h *uint64, size uintptr, prop *memAllocationProp, flags uint64) int32
	cuMemRelease                  func(h uint64) int32
	cuMemMap                      func(ptr uint64, size, offset uintptr, h uint64, flags uint64) int32
	cuMemUnmap                    func(ptr uint64, size uintptr) int32
	cuMemSetAccess                func(ptr uint64, size uintptr, desc *memAccessDesc, count uintptr) int32
	cuMemGetAllocationGranularity func(g *uintptr, prop *memAllocationProp, option int32) int32
}

// bind resolves every entry point of a, each under its cuda.h symbol.
func (a *api) bind(lib uintptr) error {
	for _, f := range []struct {
		fn   any
		name string
	}{
		{&a.cuInit, "cuInit"}, {&a.cuGetErrorName, "cuGetErrorName"},
		{&a.cuDeviceGetCount, "cuDeviceGetCount"}, {&a.cuDeviceGet, "cuDeviceGet"},
		{&a.cuDeviceGetName, "cuDeviceGetName"}, {&a.cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId"},
		{&a.cuDeviceTotalMem, "cuDeviceTotalMem_v2"}, {&a.cuDeviceGetAttribute, "cuDeviceGetAttribute"},
		{&a.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"},
		{&a.cuCtxSetCurrent, "cuCtxSetCurrent"}, {&a.cuCtxSynchronize, "cuCtxSynchronize"},
		{&a.cuMemAlloc, "cuMemAlloc_v2"}, {&a.cuMemFree, "cuMemFree_v2"},
		{&a.cuMemGetInfo, "cuMemGetInfo_v2"}, {&a.cuMemsetD8, "cuMemsetD8_v2"},
		{&a.cuMemcpyHtoD, "cuMemcpyHtoD_v2"}, {&a.cuMemcpyDtoH, "cuMemcpyDtoH_v2"},
		{&a.cuMemcpy, "cuMemcpy"}, {&a.cuMemcpyPeer, "cuMemcpyPeer"},
		{&a.cuDeviceCanAccessPeer, "cuDeviceCanAccessPeer"}, {&a.cuCtxEnablePeerAccess, "cuCtxEnablePeerAccess"},
		{&a.cuMemAddressReserve, "cuMemAddressReserve"}, {&a.cuMemAddressFree, "cuMemAddressFree"},
		{&a.cuMemCreate, "cuMemCreate"}, {&a.cuMemRelease, "cuMemRelease"},
		{&a.cuMemMap, "cuMemMap"}, {&a.cuMemUnmap, "cuMemUnmap"},
		{&a.cuMemSetAccess, "cuMemSetAccess"},
		{&a.cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity"},
	} {
		sym, err := purego.Dlsym(lib, f.name)
		if err != nil {
			return fmt.Errorf("%s: %s", Soname, err)
		}
		purego.RegisterFunc(f.fn, sym)
	}
	return nil
}

// Driver is the loaded CUDA driver. All its calls run on one locked OS
// thread.
type Driver struct {
	api
	calls   chan func()
	mu      sync.Mutex // one call in flight
	done    chan struct{}
	current uintptr // the context current on the driver thread
}

var (
	loadOnce sync.Once
	loaded   *Driver
	loadErr  error
)

// Load opens libcuda.so.1 and initialises the driver, once per process;
// later calls return the same result.
func Load() (*Driver, error) {
	loadOnce.Do(func() { loaded, loadErr = open(Soname) })
	return loaded, loadErr
}

func open(soname string) (*Driver, error) {
	// dlerror's text is per thread: stay on the one dlopen and dlsym ran on.
	runtime.LockOSThread()
	lib, err := purego.Dlopen(soname, purego.RTLD_NOW|purego.RTLD_GLOBAL)
	d := &Driver{calls: make(chan func()), done: make(chan struct{})}
	if err == nil {
		err = d.bind(lib)
	}
	runtime.UnlockOSThread()
	if err != nil {
		return nil, err
	}
	go d.serve()
	if err := d.check("cuInit", func() int32 { return d.cuInit(0) }); err != nil {
		return nil, err
	}
	return d, nil
}

// serve runs the calls handed to the driver thread, forever.
func (d *Driver) serve() {
	runtime.LockOSThread()
	for f := range d.calls {
		f()
		d.done <- struct{}{}
	}
}

// do runs f on the driver thread and waits for it.
func (d *Driver) do(f func()) {
	d.mu.Lock()
	d.calls <- f
	<-d.done
	d.mu.Unlock()
}

// check runs the call f on the driver thread and turns its result into
// an error naming call.
func (d *Driver) check(call string, f func() int32) error {
	var res int32
	d.do(func() { res = f() })
	return d.result(call, res)
}

// result names a CUresult; it runs on any thread (cuGetErrorName needs no
// context).
func (d *Driver) result(call string, res int32) error {
	if res == 0 {
		return nil
	}
	e := &Error{Call: call, Code: res, Name: fallbackNames[res]}
	var p *byte
	if d.cuGetErrorName(res, &p) == 0 && p != nil {
		e.Name = cString(p)
	}
	if e.Name == "" {
		e.Name = "CUDA error"
	}
	return e
}

// cString copies a NUL-terminated C string.
func cString(p *byte) string {
	var b []byte
	for q := unsafe.Pointer(p); *(*byte)(q) != 0; q = unsafe.Add(q, 1) {
		b = append(b, *(*byte)(q))
	}
	return string(b)
}

// Count is the number of CUDA devices.
func (d *Driver) Count() (int, error) {
	var n int32
	err := d.check("cuDeviceGetCount", func() int32 { return d.cuDeviceGetCount(&n) })
	return int(n), err
}

// Info describes a CUDA device without creating a context on it.
type Info struct {
	Name         string
	Total        uint64 // cuDeviceTotalMem: totalGlobalMem
	PCIBusID     string // domain:bus:device.function
	ComputeMajor int    // compute capability major
	ComputeMinor int    // compute capability minor
	SMs          int    // multiprocessors
	ThreadsPerSM int    // the most threads a multiprocessor runs at once
}

// Info reports device i's name, total memory and PCI bus id.
func (d *Driver) Info(i int) (Info, error) {
	var info Info
	var dev int32
	var name, bus [256]byte
	var total uintptr
	err := d.check("cuDeviceGet", func() int32 { return d.cuDeviceGet(&dev, int32(i)) })
	if err == nil {
		err = d.check("cuDeviceGetName", func() int32 { return d.cuDeviceGetName(&name[0], int32(len(name)), dev) })
	}
	if err == nil {
		err = d.check("cuDeviceGetPCIBusId", func() int32 { return d.cuDeviceGetPCIBusId(&bus[0], int32(len(bus)), dev) })
	}
	if err == nil {
		err = d.check("cuDeviceTotalMem_v2", func() int32 { return d.cuDeviceTotalMem(&total, dev) })
	}
	// CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, _MULTIPROCESSOR_COUNT,
	// _MAX_THREADS_PER_MULTIPROCESSOR, _COMPUTE_CAPABILITY_MINOR
	attrs := [4]int32{75, 16, 39, 76}
	var vals [len(attrs)]int32
	for k := range attrs {
		if err == nil {
			err = d.check("cuDeviceGetAttribute", func() int32 { return d.cuDeviceGetAttribute(&vals[k], attrs[k], dev) })
		}
	}
	if err != nil {
		return info, err
	}
	return Info{Name: cString(&name[0]), Total: uint64(total), PCIBusID: cString(&bus[0]), ComputeMajor: int(vals[0]), ComputeMinor: int(vals[3]), SMs: int(vals[1]), ThreadsPerSM: int(vals[2])}, nil
}
