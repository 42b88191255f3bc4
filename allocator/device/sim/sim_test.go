package sim

import (
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// TestDriverAddressPattern replays the cuMemAlloc/cuMemFree sequences
// recorded on an H200 (scripts/probe_torch.py) and requires every address,
// relative to the first, to be the driver's.
func TestDriverAddressPattern(t *testing.T) {
	raw, err := os.ReadFile("testdata/driver_addresses.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Fixed, Random [][]any
	}
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatal(err)
	}
	d := New(H200Total)
	live := map[string]uint64{}
	var realBase uint64
	n := 0
	for _, seq := range [][][]any{rec.Fixed, rec.Random} {
		for i, op := range seq {
			key := op[1].(string)
			if op[0] == "free" {
				if err := d.Free(live[key]); err != nil {
					t.Fatalf("op %d: %v", i, err)
				}
				continue
			}
			real := uint64(op[3].(float64))
			if realBase == 0 {
				realBase = real
			}
			got, err := d.Malloc(uint64(op[2].(float64)))
			if err != nil {
				t.Fatal(err)
			}
			live[key] = got
			n++
			if want := int64(real - realBase); int64(got-vaBase) != want {
				t.Fatalf("alloc %s (%d MiB): at %+d MiB, the driver gave %+d MiB",
					key, uint64(op[2].(float64))>>20, int64(got-vaBase)>>20, want>>20)
			}
		}
	}
	if n < 700 {
		t.Fatalf("only %d allocations checked", n)
	}
}

func TestOutOfMemory(t *testing.T) {
	d := New(64 << 20)
	p, err := d.Malloc(40 << 20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Malloc(40 << 20); !errors.Is(err, device.ErrOutOfMemory) {
		t.Fatalf("second 40 MiB on a 64 MiB device: %v", err)
	}
	if free, total, _ := d.MemGetInfo(); free != 24<<20 || total != 64<<20 {
		t.Errorf("MemGetInfo = %d, %d", free, total)
	}
	if err := d.Free(p); err != nil {
		t.Fatal(err)
	}
	if err := d.Free(p); err == nil {
		t.Error("double free accepted")
	}
}
