// Tests of the real GPU through libcuda.so.1. The oracle is the CUDA
// driver itself: the device tests run on the GPU machine
// (GPUMEMREPL_REQUIRE_GPU=1 makes a missing GPU a failure there) and skip
// elsewhere; the struct layouts are checked against cuda.h's.
package cuda

import (
	"errors"
	"strings"
	"testing"
	"unsafe"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// The VMM structs are passed by pointer to the driver: their layout must
// be cuda.h's.
func TestStructLayouts(t *testing.T) {
	if n := unsafe.Sizeof(memAllocationProp{}); n != 32 {
		t.Errorf("CUmemAllocationProp is %d bytes, want 32", n)
	}
	if n := unsafe.Sizeof(memAccessDesc{}); n != 12 {
		t.Errorf("CUmemAccessDesc is %d bytes, want 12", n)
	}
	if off := unsafe.Offsetof(memAllocationProp{}.Win32HandleMetaData); off != 16 {
		t.Errorf("win32HandleMetaData at offset %d, want 16", off)
	}
}

func TestMissingLibraryIsAnError(t *testing.T) {
	_, err := open("libcuda-not-here.so.1")
	if err == nil || !strings.Contains(err.Error(), "libcuda-not-here.so.1") {
		t.Fatalf("open of a missing library: %v, want an error naming it", err)
	}
}

func TestOutOfMemoryResultIsErrOutOfMemory(t *testing.T) {
	oom := &Error{Call: "cuMemAlloc_v2", Code: 2, Name: "CUDA_ERROR_OUT_OF_MEMORY"}
	if !errors.Is(oom, device.ErrOutOfMemory) {
		t.Error("CUDA_ERROR_OUT_OF_MEMORY does not match device.ErrOutOfMemory")
	}
	if errors.Is(&Error{Call: "cuMemAlloc_v2", Code: 1, Name: "CUDA_ERROR_INVALID_VALUE"}, device.ErrOutOfMemory) {
		t.Error("CUDA_ERROR_INVALID_VALUE matches device.ErrOutOfMemory")
	}
	if got, want := oom.Error(), "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY (2)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
