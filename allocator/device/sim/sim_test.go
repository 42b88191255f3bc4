// Tests of the simulated GPU. Its oracle is the H200's CUDA driver: the
// addresses it gave (testdata/driver_addresses.json) and the segments
// PyTorch 2.11 made there (testdata/segments, recorded by
// scripts/record_script.py; TestPlacementInPyTorch).
package sim

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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

// TestPlacementInPyTorch replays the segments PyTorch 2.11 made on the
// H200 in the recordings of testdata/segments (scripts/record_script.py
// --addresses) and requires each one's address, relative to the first,
// to be the driver's, up to the statement where something the simulated
// device does not model first took address space beside the driver's
// reservation (testdata/segments/README.md): from there on the
// recordings are the evidence of what is not modelled, not a target.
// Past those statements the driver takes address space for itself
// (Observe); torchpy's TestSegmentsWhereTheDriverPutThem runs the
// scripts with the engine reporting those events and holds them
// further.
func TestPlacementInPyTorch(t *testing.T) {
	for _, c := range []struct {
		name  string
		until int // the first statement not compared
		segs  int // segments compared before it
	}{
		{"ckpt_block", 15, 4}, // a 141 MiB library mapped below the reservation
		{"amp_linear", 22, 3}, // the first product: the context's region freed
		{"amp_scaler", 13, 3}, // the library, at the first optimizer
	} {
		t.Run(c.name, func(t *testing.T) {
			f, err := os.Open(filepath.Join("..", "..", "..", "testdata", "segments", c.name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			d := New(H200Total)
			live := map[uint64]uint64{} // the driver's address -> ours
			var realFirst, simFirst uint64
			n := 0
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<22)
			for sc.Scan() {
				var row struct {
					Line   int
					Events [][3]json.RawMessage
				}
				if err := json.Unmarshal(sc.Bytes(), &row); err != nil {
					t.Fatal(err)
				}
				if row.Line >= c.until {
					break
				}
				for _, e := range row.Events {
					var action string
					var size, addr uint64
					if json.Unmarshal(e[0], &action) != nil || json.Unmarshal(e[1], &size) != nil || json.Unmarshal(e[2], &addr) != nil {
						t.Fatalf("line %d: an event that is not [action, size, address]", row.Line)
					}
					switch action {
					case "segment_alloc":
						got, err := d.Malloc(size)
						if err != nil {
							t.Fatal(err)
						}
						if n == 0 {
							realFirst, simFirst = addr, got
						}
						n++
						if want := int64(addr - realFirst); int64(got-simFirst) != want {
							t.Fatalf("line %d: a %d MiB segment at %+d MiB, the driver's at %+d MiB", row.Line, size>>20, int64(got-simFirst)>>20, want>>20)
						}
						live[addr] = got
					case "segment_free":
						if err := d.Free(live[addr]); err != nil {
							t.Fatalf("line %d: %v", row.Line, err)
						}
					}
				}
			}
			if n != c.segs {
				t.Errorf("%d segments compared, want %d", n, c.segs)
			}
		})
	}
}

// TestDriverTakings: after the first kernel other than a random number
// generator and a cuBLAS handle, the next segment goes 64 MiB above the
// bottom of the context's old local memory, 424 MiB below the first
// segment, as in every recording of testdata/segments that ran a
// product, and the next above it; small ones go to the top of the new
// local memory's chunk, 4 and 2 MiB below its top (the handle took the
// 2 MiB under them: probe_segments' lines 14 and 15), then to the
// lowest free range of the context's chunk, the old local memory with
// the 2 MiB gap above it, not to that gap (the 2 MiB segments of
// h100/nanogpt_bf16_accum's line 83).
func TestDriverTakings(t *testing.T) {
	d := New(H200Total)
	first, err := d.Malloc(16 << 20)
	if err != nil {
		t.Fatal(err)
	}
	d.Observe(device.Kernel)
	d.Observe(device.BLASHandle)
	for _, c := range []struct {
		size uint64
		want int64 // MiB from the first segment
	}{{32 << 20, -424}, {20 << 20, -392}, {2 << 20, -492}, {2 << 20, -490}, {2 << 20, -372}} {
		p, err := d.Malloc(c.size)
		if err != nil {
			t.Fatal(err)
		}
		if got := (int64(p) - int64(first)) >> 20; got != c.want {
			t.Errorf("a %d MiB segment at %+d MiB, want %+d", c.size>>20, got, c.want)
		}
	}
}

// TestOldLocalMemory: at the first kernel the driver takes 2 MiB by its
// rule before it reserves the new local memory. Where that lands in the
// context's 2 MiB gap, the old local memory stays a hole of the
// context's chunk that fills from the bottom up; where it lands in a
// newer chunk's hole, the context's chunk is empty when the old local
// memory goes, and is given back: new chunks are carved from its top.
// The segments are scripts/probe_piece_hole.py's and probe_old_lmem.py's
// (testdata/segments/h100/probe_*): in the first, the 10 MiB of the first
// reduction no longer fits the 10 MiB hole the 2 MiB piece went to.
func TestOldLocalMemory(t *testing.T) {
	for _, c := range []struct {
		name   string
		before []uint64 // MiB, segments before the first kernel
		reduce bool     // a reduction after it
		after  []uint64 // MiB, segments after
		want   []int64  // where those go, MiB from the first segment
	}{
		{"piece_hole", []uint64{2, 24, 20, 2}, true, []uint64{20, 20}, []int64{-404, -384}},
		{"old_lmem_host0_fill", []uint64{96, 24, 20, 2}, false, []uint64{20, 20, 64}, []int64{480, 448, 384}},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := New(H200Total)
			var first uint64
			for i, n := range c.before {
				p := alloc(t, d, n<<20)
				if i == 0 {
					first = p
				}
			}
			d.Observe(device.Kernel)
			if c.reduce {
				d.Observe(device.Reduction)
			}
			for i, n := range c.after {
				if got := (int64(alloc(t, d, n<<20)) - int64(first)) >> 20; got != c.want[i] {
					t.Errorf("a %d MiB segment at %+d MiB, want %+d", n, got, c.want[i])
				}
			}
		})
	}
}

// TestCuDNNAfterTheGiveBack: once the driver gave the old local memory
// back, cuDNN's first handle maps libraries into it, which the
// simulated device does not model: a chunk it then carves from that
// range is unplaced, while one elsewhere, or any where the old local
// memory stayed, is not. A 96 MiB segment fills its chunk and a 24 MiB
// one the context's 24 MiB gap, so the driver's 2 MiB go to its 2 MiB
// gap; a 20 MiB one after them leaves a hole in a newer chunk, which
// they take (probe_old_lmem's segments).
func TestCuDNNAfterTheGiveBack(t *testing.T) {
	for _, c := range []struct {
		before []uint64 // MiB, segments before the first kernel
		after  []bool   // for each 32 MiB segment after cuDNN's handle: unplaced
	}{
		{[]uint64{96, 24, 20}, []bool{true, true}},
		{[]uint64{96, 24}, []bool{false, false}},
	} {
		d := New(H200Total)
		for _, n := range c.before {
			alloc(t, d, n<<20)
		}
		d.Observe(device.Kernel)
		d.Observe(device.CuDNNHandle)
		for i, want := range c.after {
			alloc(t, d, 32<<20)
			if err := d.Unplaced(); (err != nil) != want {
				t.Errorf("segments of %v MiB, then the %d-th 32 MiB one after cuDNN's handle: unplaced %v, want %v", c.before, i+1, err, want)
			}
		}
	}
}

// TestTiesInTheHostsRoom: after the host's mappings may leave room of
// 64 MiB above the context (HostRoom), a tie of best fit between blocks
// of two chunks is unplaced where either chunk is smaller than the room
// (module_convert's third segment, which the driver put between the
// host's malloc arenas: testdata/segments/h100/module_convert.jsonl),
// and not between two blocks of one chunk, nor between chunks the room
// cannot hold, nor without the room.
func TestTiesInTheHostsRoom(t *testing.T) {
	for _, room := range []uint64{0, 64 << 20} {
		d := New(H200Total)
		d.HostRoom(room)
		ctx := alloc(t, d, 20<<20)   // the context's 24 MiB gap
		small := alloc(t, d, 20<<20) // a 32 MiB chunk
		other := alloc(t, d, 20<<20) // another
		big := alloc(t, d, 64<<20)   // a 64 MiB chunk
		for _, c := range []struct {
			name     string
			x, y     uint64
			unplaced bool
		}{
			{"the context's chunk and a 32 MiB one", ctx, small, room > 0},
			{"two 32 MiB chunks", small, other, room > 0},
			{"one 32 MiB chunk", small, small + 2<<20, false},
			{"the context's chunk and a 64 MiB one", ctx, big, false},
		} {
			d.Tie(c.x, c.y)
			if err := d.Unplaced(); (err != nil) != c.unplaced {
				t.Errorf("room %d MiB, a tie in %s: unplaced %v, want %v", room>>20, c.name, err, c.unplaced)
			}
		}
	}
}
