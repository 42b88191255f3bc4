package sim

import (
	"fmt"
	"strings"
	"testing"
)

// What the driver refuses, the simulated device refuses: cuMemFree of a
// pointer cuMemAlloc did not return (inside an allocation, freed
// already, an address reservation's), cuMemMap outside a reservation or
// off the granularity, a granule mapped twice, cuMemUnmap off the
// granularity; unmapping counts only what was mapped, so free memory
// comes back exactly. (Each case's answer against the driver's own:
// TestDriverChecksAreTheDriversAnswers.)
func TestDriverRefusals(t *testing.T) {
	d := New(H200Total)
	free0, _, _ := d.MemGetInfo()
	p, err := d.Malloc(granule)
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.ReserveAddress(8 * granule)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"cuMemFree inside an allocation", d.Free(p + 512), "not a live allocation"},
		{"cuMemFree of a reservation", d.Free(r), "not a live allocation"},
		{"cuMemMap outside a reservation", d.MapPages(r+8*granule, granule), "not inside an address reservation"},
		{"cuMemMap off the granularity", d.MapPages(r+4096, granule), "not a multiple of the granularity"},
		{"cuMemMap of a mapped granule", func() error {
			if err := d.MapPages(r, 2*granule); err != nil {
				return err
			}
			return d.MapPages(r+granule, 2*granule)
		}(), "is mapped already"},
		{"cuMemUnmap off the granularity", d.UnmapPages(r+4096, granule), "not a multiple of the granularity"},
	} {
		if c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, c.err, c.want)
		}
	}
	if err := d.UnmapPages(r, 8*granule); err != nil { // two mapped, six not
		t.Fatal(err)
	}
	if err := d.Free(p); err != nil {
		t.Fatal(err)
	}
	if free, _, _ := d.MemGetInfo(); free != free0 {
		t.Errorf("free after unmapping all and freeing: %d, want %d", free, free0)
	}
}

// A copy or a memset touches only memory of its device: inside one live
// allocation, or mapped granules of a reservation (cuMemcpy refused a 4
// MB copy out of a 2 MB segment on the H200: CUDA_ERROR_INVALID_VALUE).
func TestAccessStaysInAllocations(t *testing.T) {
	d := New(H200Total)
	a, _ := d.Malloc(granule)
	b, _ := d.Malloc(granule)
	r, _ := d.ReserveAddress(4 * granule)
	if err := d.MapPages(r, 2*granule); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		ptr, n  uint64
		refused bool
	}{
		{"a whole allocation", a, granule, false},
		{"the end of one", a + granule - 16, 16, false},
		{"no bytes anywhere", 12345, 0, false},
		{"past its end", a + granule - 16, 17, true},
		{"twice its size", a, 2 * granule, true},
		{"mapped granules", r + 100, 2*granule - 100, false},
		{"past the mapped ones", r + granule, 2 * granule, true},
		{"no allocation", 0x1000, 8, true},
		{"the address space's end", ^uint64(0) - 3, 8, true},
	} {
		err := d.Access("cuMemcpy", c.ptr, c.n)
		if (err != nil) != c.refused {
			t.Errorf("%s: %v, refused %v", c.name, err, c.refused)
		}
	}
	if err := d.Free(b); err != nil {
		t.Fatal(err)
	}
	if err := d.Access("cuMemsetD8", b, 8); err == nil || err.Error() != fmt.Sprintf("cuMemsetD8(%#x, 8 bytes): CUDA_ERROR_INVALID_VALUE (not inside one allocation or mapped range of this device)", b) {
		t.Errorf("a freed allocation: %v", err)
	}
}
