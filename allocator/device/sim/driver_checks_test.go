package sim

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// driverCase is one case of scripts/probe_driver_checks.py as the
// simulated device runs it: what the case made, then the call probed.
type driverCase func(d *Device) error

// alloc is d.Malloc of n bytes, which the cases' set-up needs to succeed.
func alloc(t *testing.T, d *Device, n uint64) uint64 {
	p, err := d.Malloc(n)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// driverCases are the probe's cases on the simulated device, by name.
// A copy touches its destination, then its source (both must be
// inside memory of the device); cuMemsetD32's count is of 4-byte values.
func driverCases(t *testing.T) map[string]driverCase {
	copyOf := func(d *Device, dst, src, n uint64) error {
		if err := d.Access("cuMemcpy", dst, n); err != nil {
			return err
		}
		return d.Access("cuMemcpy", src, n)
	}
	two := func(d *Device) (uint64, uint64) { return alloc(t, d, 2*mib), alloc(t, d, 2*mib) }
	reserve := func(d *Device) uint64 {
		r, err := d.ReserveAddress(8 * granule)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	mapped := func(d *Device) uint64 {
		r := reserve(d)
		if err := d.MapPages(r, 2*granule); err != nil {
			t.Fatal(err)
		}
		return r
	}
	freed := func(d *Device) uint64 {
		p := alloc(t, d, 2*mib)
		if err := d.Free(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return map[string]driverCase{
		"memset inside an allocation":        func(d *Device) error { return d.Access("cuMemsetD8_v2", alloc(t, d, 2*mib), 2*mib) },
		"memset one byte past an allocation": func(d *Device) error { return d.Access("cuMemsetD8_v2", alloc(t, d, 2*mib)+2*mib-8, 9) },
		"memset of twice an allocation":      func(d *Device) error { return d.Access("cuMemsetD8_v2", alloc(t, d, 2*mib), 4*mib) },
		"memset at an odd address":           func(d *Device) error { return d.Access("cuMemsetD8_v2", alloc(t, d, 2*mib)+1, 16) },
		"memset of 32-bit values at an address not a multiple of 4": func(d *Device) error {
			return d.Access("cuMemsetD32_v2", alloc(t, d, 2*mib)+2, 4*4)
		},
		"copy inside an allocation": func(d *Device) error { a := alloc(t, d, 2*mib); return copyOf(d, a, a+mib, mib) },
		"copy reading past an allocation, into the one made after it": func(d *Device) error {
			a, b := two(d)
			return copyOf(d, b, a+mib, 2*mib)
		},
		"copy writing past an allocation, into the one made after it": func(d *Device) error {
			a, b := two(d)
			return copyOf(d, a+mib, b, 2*mib)
		},
		"copy to the host past an allocation":       func(d *Device) error { return d.Access("cuMemcpyDtoH_v2", alloc(t, d, 2*mib)+mib, 2*mib) },
		"copy at odd addresses":                     func(d *Device) error { a, b := two(d); return copyOf(d, a+3, b+5, 1000) },
		"free inside an allocation":                 func(d *Device) error { return d.Free(alloc(t, d, 2*mib) + 512) },
		"free of 0":                                 func(d *Device) error { return d.Free(0) },
		"free twice":                                func(d *Device) error { return d.Free(freed(d)) },
		"memset of a freed allocation":              func(d *Device) error { return d.Access("cuMemsetD8_v2", freed(d), 16) },
		"free of a reservation":                     func(d *Device) error { return d.Free(reserve(d)) },
		"map 2 granules of a reservation":           func(d *Device) error { return d.MapPages(reserve(d), 2*granule) },
		"map a mapped granule again":                func(d *Device) error { return d.MapPages(mapped(d)+granule, granule) },
		"map past the reservation's end":            func(d *Device) error { return d.MapPages(reserve(d)+7*granule, 2*granule) },
		"map outside any reservation":               func(d *Device) error { return d.MapPages(reserve(d)+64*granule, granule) },
		"map off the granularity":                   func(d *Device) error { return d.MapPages(reserve(d)+4096+4*granule, granule) },
		"memset across 2 mapped granules":           func(d *Device) error { return d.Access("cuMemsetD8_v2", mapped(d)+100, 2*granule-100) },
		"memset past the mapped granules":           func(d *Device) error { return d.Access("cuMemsetD8_v2", mapped(d)+granule, 2*granule) },
		"unmap the whole mapping":                   func(d *Device) error { return d.UnmapPages(mapped(d), 2*granule) },
		"unmap half of a mapping":                   func(d *Device) error { return d.UnmapPages(mapped(d), granule) },
		"unmap off the granularity":                 func(d *Device) error { return d.UnmapPages(mapped(d)+4096, granule) },
		"unmap granules never mapped":               func(d *Device) error { return d.UnmapPages(mapped(d)+4*granule, 2*granule) },
		"unmap a mapping and granules never mapped": func(d *Device) error { return d.UnmapPages(mapped(d), 4*granule) },
		"free a reservation whose pages are mapped": func(d *Device) error { return d.ReleaseAddress(mapped(d), 8*granule) },
		"free a reservation with another size":      func(d *Device) error { return d.ReleaseAddress(reserve(d), 4*granule) },
	}
}

// perGranule are the cases the device interface cannot put to the
// simulated device as the probe put them to the driver, and what it
// answers instead. MapPages backs each granule with an allocation of its
// own, as PyTorch's expandable segments and the CUDA device do (one
// cuMemCreate and cuMemMap a granule), so no mapping spans two granules:
// unmapping one granule of MapPages(r, 2 granules) is the driver's
// unmapping of one whole mapping, which it accepts ("unmap the whole
// mapping"); it refused only a part of one 2-granule mapping.
var perGranule = map[string]bool{"unmap half of a mapping": true}

// TestDriverChecksAreTheDriversAnswers: the simulated device refuses
// exactly what the CUDA driver refused of scripts/probe_driver_checks.py's
// cases (testdata/driver_checks.json: recorded on an NVIDIA H100 80GB
// HBM3 lent for the H200, driver 13000), and accepts what it accepted;
// the granularity is the driver's.
func TestDriverChecksAreTheDriversAnswers(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "driver_checks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Driver      int    `json:"driver"`
		Devices     int    `json:"devices"`
		Granularity uint64 `json:"granularity"`
		Cases       []struct {
			Name, Call, Error string
			RC                int
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Granularity != granule {
		t.Errorf("the driver's granularity %d, the simulated device's %d", rec.Granularity, granule)
	}
	cases := driverCases(t)
	if len(rec.Cases) != len(cases) {
		t.Errorf("%d cases recorded, %d simulated", len(rec.Cases), len(cases))
	}
	for _, c := range rec.Cases {
		run, ok := cases[c.Name]
		switch {
		case !ok:
			t.Errorf("%s (%s): no simulated counterpart", c.Name, c.Call)
			continue
		case c.RC < 0:
			t.Errorf("%s: the probe's set-up failed (%s)", c.Name, c.Error)
			continue
		}
		err := run(New(H200Total))
		refused, want := err != nil, c.RC != 0
		if perGranule[c.Name] {
			want = false
		}
		if refused != want {
			t.Errorf("%s (%s): the simulated device answered %v, the driver %d %s", c.Name, c.Call, err, c.RC, c.Error)
		}
	}
}
