// Tests of the caching allocator. Its oracle is PyTorch 2.11's
// CUDACachingAllocator as recorded on the H200: the traces of
// testdata/truth/traces and testdata/traces, replayed op by op with every
// memory_stats() key compared (allocator/trace's TestConformance, and
// gpumemrepl replay --check in .ci/run), and the snapshots of real
// training runs (testdata/models, testdata/truth/workloads) that
// allocator/snapshot replays. Here: PyTorch 2.11's own texts for
// PYTORCH_CUDA_ALLOC_CONF's errors, the OOM message and memory_summary()
// (testdata/summary_alloc1000.golden), as scripts/probe_torch.py asked
// them of PyTorch, and the allocator's invariants.
package allocator

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
	"github.com/gpumemrepl/gpumemrepl/allocator/device/sim"
)

func newTest(t testing.TB, conf string) *Allocator {
	t.Helper()
	cfg, err := ParseConfig(conf)
	if err != nil {
		t.Fatal(err)
	}
	return New(sim.New(sim.H200Total), 0, cfg)
}

func TestRoundSize(t *testing.T) {
	for _, tc := range []struct {
		conf string
		n    uint64
		want uint64
	}{
		{"", 1, 512},
		{"", 512, 512},
		{"", 513, 1024},
		{"", 1000, 1024},
		{"roundup_power2_divisions:4", 1200, 1536}, // n <= 512*d: not power-rounded
		{"roundup_power2_divisions:4", 5*MiB + 1, 6 * MiB},
		{"roundup_power2_divisions:4", 4 * MiB, 4 * MiB},
		{"roundup_power2_divisions:[256:1,512:2,1024:4,>:8]", 300 * MiB, 300 * MiB},
		{"roundup_power2_divisions:[256:1,512:2,1024:4,>:8]", 600 * MiB, 768 * MiB},
		{"roundup_power2_divisions:[256:1,512:2,1024:4,>:8]", 1100 * MiB, 1280 * MiB},
	} {
		c, err := ParseConfig(tc.conf)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.roundSize(tc.n); got != tc.want {
			t.Errorf("%q: roundSize(%d) = %d, want %d", tc.conf, tc.n, got, tc.want)
		}
	}
}

func TestAllocationSize(t *testing.T) {
	c := DefaultConfig()
	for _, tc := range []struct{ s, want uint64 }{
		{512, 2 * MiB}, {MiB, 2 * MiB}, {MiB + 512, 20 * MiB},
		{10*MiB - 512, 20 * MiB}, {10 * MiB, 10 * MiB}, {26214912, 26 * MiB},
	} {
		if got := c.allocationSize(tc.s); got != tc.want {
			t.Errorf("allocationSize(%d) = %d, want %d", tc.s, got, tc.want)
		}
	}
}

// The texts PyTorch 2.11 gave for these strings (scripts/probe_torch.py).
func TestParseConfigErrors(t *testing.T) {
	for conf, want := range map[string]string{
		"bogus:1":                          "Unrecognized key 'bogus' in Accelerator allocator config.",
		"max_split_size_mb:5":              "CachingAllocator option max_split_size_mb too small, must be >= 20",
		"max_split_size_mb:abc":            "stoull",
		"garbage_collection_threshold:1.5": "garbage_collect_threshold is invalid, set it in (0.0, 1.0)",
		"expandable_segments:true":         "Expected 'True' or 'False'",
		"roundup_power2_divisions:3":       "For roundups, the divisions has to be power of 2 ",
		"roundup_power2_divisions:[256:3]": "For roundups, the divisions has to be power of 2 or 0 to disable roundup ",
		"roundup_power2_divisions:[300:2]": "For roundups, the intervals have to be power of 2 ",
		"roundup_power2_divisions:[256:2":  "Expected closing bracket",
		"max_split_size_mb=40":             "Unrecognized key 'max_split_size_mb=40'",
		"large_segment_size_mb:8":          "large_segment_size_mb must be > 10 MB",
		"max_non_split_rounding_mb:10":     "max_non_split_rounding_mb too small, must be >= 20",
		"backend:foo":                      "Unknown allocator backend, options are native and cudaMallocAsync",
		"per_process_memory_fraction:2":    "per_process_memory_fraction is invalid, set it in [0.0, 1.0]",
		"pinned_num_register_threads:4":    "not supported by gpumemrepl",
		"max_split_size_mb":                "Index out of bounds",
		"max_split_size_mb:":               "Index out of bounds",
	} {
		_, err := ParseConfig(conf)
		var ce *ConfigError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseConfig(%q) = %v, want an error containing %q", conf, err, want)
		}
	}
}

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig(" max_split_size_mb:40.5, garbage_collection_threshold:0.6,roundup_power2_divisions:[>:4]")
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxSplitSize != 40*MiB || c.GCThreshold != 0.6 || c.RoundupDivisions[0] != 0 || c.RoundupDivisions[1] != 4 || c.RoundupDivisions[15] != 4 {
		t.Errorf("got %+v", c)
	}
	c, err = ParseConfig("max_split_size_mb:30,large_segment_size_mb:40")
	if err == nil {
		t.Errorf("max_split_size_mb:30 under large_segment_size_mb:40 accepted: %+v", c)
	}
	if c, err := ParseConfig("expandable_segments:True"); err != nil || !c.ExpandableSegments {
		t.Errorf("expandable_segments:True = %+v, %v", c, err)
	}
	c, err = ParseConfig("large_segment_size_mb:40")
	if err != nil || c.LargeSegmentSize != 40*MiB || c.MaxNonSplitRounding != 40*MiB {
		t.Errorf("large_segment_size_mb:40 = %+v, %v", c, err)
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[uint64]string{
		0: "0 bytes", 1024: "1024 bytes", 1025: "1.00 KiB", MiB: "1024.00 KiB", MiB + 1: "1.00 MiB",
		GiB: "1024.00 MiB", GiB + 1: "1.00 GiB", 1152: "1.12 KiB", 5368709: "5.12 MiB", 150119400000: "139.81 GiB",
	} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// PyTorch 2.11's text for a 2 GiB request under fraction 0.01 on a fresh
// H200 (scripts/probe_torch.py), less NVML's sentence about the process.
func TestOutOfMemoryMessage(t *testing.T) {
	a := newTest(t, "")
	if err := a.SetMemoryFraction(0.01); err != nil {
		t.Fatal(err)
	}
	_, err := a.Malloc(2 * GiB)
	var oom *OutOfMemoryError
	if !errors.As(err, &oom) {
		t.Fatalf("Malloc = %v, want out of memory", err)
	}
	oom.DeviceFree = 149561409536 // what cudaMemGetInfo said on the real GPU
	want := "CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 139.80 GiB of which 139.29 GiB is free. 1.40 GiB allowed; Of the allocated memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)"
	if got := oom.Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	s := a.Stats()
	if s.NumOOMs != 1 || s.NumAllocRetries != 1 || s.NumSyncAllStreams != 1 {
		t.Errorf("ooms %d retries %d syncs %d, want 1 1 1", s.NumOOMs, s.NumAllocRetries, s.NumSyncAllStreams)
	}
}

// Worked examples of allocator-spec.md §15.1.
func TestWorkedExamples(t *testing.T) {
	a := newTest(t, "")
	p, _ := a.Malloc(1000)
	s := a.Stats()
	if s.AllocatedBytes[0].Current != 1024 || s.ReservedBytes[0].Current != 2*MiB || s.InactiveSplitBytes[0].Current != 2096128 {
		t.Errorf("after alloc(1000): %+v", s)
	}
	if err := a.Free(p); err != nil {
		t.Fatal(err)
	}
	if seg := a.Snapshot(); len(seg) != 1 || seg[0].Blocks[0].RequestedSize != 1000 || seg[0].Blocks[0].Size != 2*MiB {
		t.Errorf("snapshot after free: %+v", seg)
	}
	if err := a.EmptyCache(); err != nil {
		t.Fatal(err)
	}
	if s := a.Stats(); s.ReservedBytes[0].Current != 0 || s.NumDeviceFree != 1 {
		t.Errorf("after empty_cache: %+v", s)
	}
	a.Malloc(25*MiB + 1)
	if s := a.Stats(); s.AllocatedBytes[0].Current != 26*MiB || s.RequestedBytes[0].Current != 25*MiB+1 {
		t.Errorf("25 MiB + 1 not handed out whole: %+v", s.AllocatedBytes[0])
	}

	b := newTest(t, "max_split_size_mb:40")
	x, _ := b.Malloc(100 * MiB)
	b.Free(x)
	y, _ := b.Malloc(90 * MiB)
	if y != x || b.Stats().AllocatedBytes[0].Current != 100*MiB {
		t.Errorf("90 MiB did not reuse the oversize 100 MiB block whole")
	}
	b.Free(y)
	z, _ := b.Malloc(30 * MiB)
	if z == x || b.Stats().Segment[0].Current != 2 {
		t.Errorf("30 MiB used an oversize block")
	}
}

func TestFreeUnknownPointer(t *testing.T) {
	a := newTest(t, "")
	p, _ := a.Malloc(4096)
	before := a.Stats()
	for _, bad := range []uint64{p + 512, 12345} {
		if err := a.Free(bad); !errors.Is(err, ErrUnknownPointer) {
			t.Errorf("Free(%#x) = %v", bad, err)
		}
	}
	a.Free(p)
	if err := a.Free(p); !errors.Is(err, ErrUnknownPointer) {
		t.Errorf("double free = %v", err)
	}
	a2 := newTest(t, "")
	q, _ := a2.Malloc(4096)
	snap := a2.Stats()
	a2.Free(q + 512)
	if a2.Stats() != snap || before.Allocation[0].Current != 1 {
		t.Errorf("a refused free changed the stats")
	}
}

var fuzzConfigs = []string{
	"", "expandable_segments:True", "expandable_segments:True,max_split_size_mb:64,garbage_collection_threshold:0.8",
	"max_split_size_mb:40", "max_split_size_mb:100,garbage_collection_threshold:0.6",
	"roundup_power2_divisions:4", "roundup_power2_divisions:[256:1,512:2,1024:4,>:8]",
	"garbage_collection_threshold:0.7", "large_segment_size_mb:40,max_non_split_rounding_mb:64",
}

// runRandom drives random ops and checks the invariants after each.
// Blocks are handed out and freed by address or by handle at random, so
// that the table by address is used both kept and rebuilt.
func runRandom(t testing.TB, seed uint64, conf string, limit uint64, n int) {
	a := newTest(t, conf)
	if limit > 0 {
		a.SetMemoryFraction(float64(limit) / sim.H200Total)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	type block struct {
		ptr uint64
		h   Handle
	}
	var live []block
	for i := 0; i < n; i++ {
		switch r := rng.IntN(100); {
		case r < 2:
			if err := a.EmptyCache(); err != nil {
				t.Fatal(err)
			}
		case r < 55 || len(live) == 0:
			size := uint64(1) << rng.IntN(31)
			size += rng.Uint64N(size)
			stream := uint64(rng.IntN(3)) << 8 // the default stream or one of two others
			var b block
			var err error
			if rng.IntN(2) == 0 {
				b.ptr, err = a.MallocOn(stream, size)
			} else {
				b.ptr, b.h, err = a.MallocHandle(stream, size)
			}
			var oom *OutOfMemoryError
			if errors.As(err, &oom) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			live = append(live, b)
		default:
			k := rng.IntN(len(live))
			free := func() error { return a.Free(live[k].ptr) }
			if h := live[k].h; h != 0 && rng.IntN(2) == 0 {
				free = func() error { return a.FreeHandle(h) }
			}
			if err := free(); err != nil {
				t.Fatalf("op %d: %v", i, err)
			}
			live = append(live[:k], live[k+1:]...)
		}
		if err := a.CheckInvariants(); err != nil {
			t.Fatalf("seed %d conf %q op %d: %v", seed, conf, i, err)
		}
	}
}

func TestInvariantsRandom(t *testing.T) {
	for i, conf := range fuzzConfigs {
		for _, limit := range []uint64{0, 2 * GiB} {
			runRandom(t, uint64(i)*7+limit, conf, limit, 3000)
		}
	}
}

func FuzzInvariants(f *testing.F) {
	f.Add(uint64(1), uint8(0), uint16(0))
	f.Add(uint64(2), uint8(2), uint16(3))
	f.Fuzz(func(t *testing.T, seed uint64, conf uint8, limitMiB uint16) {
		runRandom(t, seed, fuzzConfigs[int(conf)%len(fuzzConfigs)], uint64(limitMiB)*MiB, 400)
	})
}

// A block handed out by handle is known by its address too, and one
// freed by handle is freed for both; a handle without a live block is
// refused and changes nothing.
func TestHandles(t *testing.T) {
	a := newTest(t, "")
	p, h, err := a.MallocHandle(0, 3*MiB)
	if err != nil || h == 0 {
		t.Fatalf("MallocHandle: %v, handle %d", err, h)
	}
	if _, h0, _ := a.MallocHandle(0, 0); h0 != 0 {
		t.Errorf("a request of 0 bytes got handle %d", h0)
	}
	q, err := a.MallocOn(0, 512)
	if err != nil {
		t.Fatal(err)
	}
	if s := a.Snapshot(); len(s) != 2 || s[0].AllocatedSize+s[1].AllocatedSize != 3*MiB+512 {
		t.Errorf("the snapshot after a handle's malloc: %+v", s)
	}
	if got := a.HandleAddress(h); got != p {
		t.Errorf("HandleAddress = %#x, want %#x", got, p)
	}
	if err := a.FreeHandle(h); err != nil {
		t.Fatal(err)
	}
	if got := a.HandleAddress(h); got != 0 {
		t.Errorf("HandleAddress of a freed block = %#x, want 0", got)
	}
	snap := a.Stats()
	for _, bad := range []Handle{h, 0, 1 << 20} {
		if err := a.FreeHandle(bad); !errors.Is(err, ErrUnknownPointer) {
			t.Errorf("FreeHandle(%d) = %v, want ErrUnknownPointer", bad, err)
		}
	}
	if err := a.Free(p); !errors.Is(err, ErrUnknownPointer) {
		t.Errorf("Free of the address a handle freed = %v, want ErrUnknownPointer", err)
	}
	if a.Stats() != snap {
		t.Errorf("a refused free changed the stats")
	}
	p2, _, _ := a.MallocHandle(0, 3*MiB)
	if err := a.Free(p2); err != nil {
		t.Errorf("Free of the address of a handle's block: %v", err)
	}
	if err := a.Free(q); err != nil {
		t.Fatal(err)
	}
	if err := a.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	if st := a.Stats(); st.Allocation[bucketAll].Current != 0 {
		t.Errorf("%d blocks still allocated", st.Allocation[bucketAll].Current)
	}
}

// Close frees what is live and returns every segment: the device is as
// before the first allocation.
func TestCloseReturnsEverything(t *testing.T) {
	dev := sim.New(sim.H200Total)
	a := New(dev, 0, DefaultConfig())
	for _, n := range []uint64{512, 3 << 20, 30 << 20, 1 << 30} {
		if _, err := a.Malloc(n); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	st := a.Stats()
	free, total, _ := dev.MemGetInfo()
	if st.AllocatedBytes[0].Current != 0 || st.ReservedBytes[0].Current != 0 || free != total {
		t.Errorf("after Close: allocated %d, reserved %d, device free %d of %d", st.AllocatedBytes[0].Current, st.ReservedBytes[0].Current, free, total)
	}
}

// A block freed on one stream serves only that stream; empty_cache frees
// every stream's whole segments, large pools first, stream by stream.
func TestStreamsHaveTheirOwnPools(t *testing.T) {
	a := newTest(t, "")
	const side = 0x5555
	p, err := a.MallocOn(side, 64*MiB)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Free(p); err != nil {
		t.Fatal(err)
	}
	q, _ := a.MallocOn(0, 64*MiB)
	if q == p || a.stats.NumDeviceAlloc != 2 {
		t.Errorf("the default stream got the side stream's cached block (%#x, %d device allocations)", q, a.stats.NumDeviceAlloc)
	}
	r, _ := a.MallocOn(side, 32*MiB)
	if r != p || a.stats.NumDeviceAlloc != 2 {
		t.Errorf("the side stream did not reuse its own block: %#x, want %#x", r, p)
	}
	small, _ := a.MallocOn(side, 512)
	a.Free(r)
	a.Free(small)
	streams := map[uint64]uint64{}
	for _, s := range a.Snapshot() {
		streams[s.Address] = s.Stream
	}
	if len(streams) != 3 || streams[p] != side || streams[q] != 0 {
		t.Errorf("segments by address → stream: %#x", streams)
	}
	var order []uint64
	a.dev = &freeOrder{Device: a.dev, order: &order}
	if err := a.EmptyCache(); err != nil {
		t.Fatal(err)
	}
	if err := a.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 || order[0] != p || a.Stats().ReservedBytes[bucketAll].Current != 64*MiB {
		t.Errorf("empty_cache freed %#x, reserved %d; want the side stream's two segments, large first", order, a.Stats().ReservedBytes[bucketAll].Current)
	}
}

// freeOrder records the segments freed, in order.
type freeOrder struct {
	device.Device
	order *[]uint64
}

func (f *freeOrder) Free(ptr uint64) error {
	*f.order = append(*f.order, ptr)
	return f.Device.Free(ptr)
}

// A pool keeps its order through inserts, removals and changes of key,
// at every size from one leaf to a tree of three levels and back, and
// finds every block it caches where it is.
func TestPoolOrder(t *testing.T) {
	var calls int64
	ar := &blockArena{}
	p := &BlockPool{arena: ar, freeBlocksCalls: &calls}
	rng := rand.New(rand.NewPCG(7, 11))
	var blocks []*Block
	check := func(what string) {
		t.Helper()
		if err := p.index.check(); err != nil {
			t.Fatalf("%s, %d blocks: %v", what, len(blocks), err)
		}
		if p.len() != len(blocks) {
			t.Fatalf("%s: %d cached, want %d", what, p.len(), len(blocks))
		}
		for _, b := range blocks {
			if c := p.lowerBound(b.size, b.ptr); !c.ok() || p.block(c) != b {
				t.Fatalf("%s: block %#x not found where it is", what, b.ptr)
			}
		}
	}
	for i := range 20000 {
		b := ar.alloc(p, uint64(i+1)<<20, uint64(rng.IntN(400)+1)*512)
		p.insert(b)
		blocks = append(blocks, b)
		if i%997 == 0 {
			check("insert")
		}
	}
	check("insert")
	if p.index.root.kids == nil || p.index.root.kids[0].kids == nil {
		t.Fatal("20,000 blocks make fewer than three levels")
	}
	for range 20000 {
		b := blocks[rng.IntN(len(blocks))]
		p.remove(b)
		b.size = uint64(rng.IntN(400)+1) * 512
		p.insert(b)
	}
	check("rekey")
	for n := 0; len(blocks) > 0; n++ {
		k := rng.IntN(len(blocks))
		p.remove(blocks[k])
		blocks[k] = blocks[len(blocks)-1]
		blocks = blocks[:len(blocks)-1]
		if n%997 == 0 || len(blocks) < 100 {
			check("remove")
		}
	}
	if p.index.root.kids != nil {
		t.Error("an empty pool is still a tree")
	}
}

// TestDeviceRefusals: a request the device has no room for is counted
// as a refusal whether the retry after releasing the cache succeeds or
// it ends in out of memory; one that fits is not.
func TestDeviceRefusals(t *testing.T) {
	cfg, err := ParseConfig("")
	if err != nil {
		t.Fatal(err)
	}
	a := New(sim.New(64*MiB), 0, cfg)
	p, err := a.Malloc(20 * MiB)
	if err != nil || a.DeviceRefusals() != 0 {
		t.Fatalf("20 MiB: %v, %d refusals", err, a.DeviceRefusals())
	}
	if err := a.Free(p); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Malloc(50 * MiB); err != nil || a.DeviceRefusals() != 1 || a.Stats().NumOOMs != 0 {
		t.Errorf("50 MiB beside a cached 20: %v, %d refusals, want 1 and the cache released", err, a.DeviceRefusals())
	}
	if _, err := a.Malloc(50 * MiB); err == nil || a.DeviceRefusals() < 2 || a.Stats().NumOOMs != 1 {
		t.Errorf("50 MiB more: %v, %d refusals, want out of memory after more refusals", err, a.DeviceRefusals())
	}
}

// TestTiesToldToTheDevice: where best fit takes one of two cached blocks
// of the same size, the tie observer is told of both, the lower address
// first (the one taken); with one block of the size, or none cached, it
// is told nothing.
func TestTiesToldToTheDevice(t *testing.T) {
	a := newTest(t, "")
	var told [][2]uint64
	a.SetTieObserver(func(x, y uint64) { told = append(told, [2]uint64{x, y}) })
	p, _ := a.Malloc(30 << 20)
	q, _ := a.Malloc(30 << 20)
	r, _ := a.Malloc(40 << 20)
	for _, x := range []uint64{p, q, r} {
		if err := a.Free(x); err != nil {
			t.Fatal(err)
		}
	}
	if len(told) != 0 {
		t.Fatalf("told %v with nothing cached", told)
	}
	got, _ := a.Malloc(30 << 20)
	lo, hi := min(p, q), max(p, q)
	if len(told) != 1 || told[0] != [2]uint64{lo, hi} || got != lo {
		t.Errorf("30 MiB over two cached 30 MiB blocks at %#x and %#x: took %#x, told %x; want the lower taken and both told", p, q, got, told)
	}
	told = nil
	if _, err := a.Malloc(30 << 20); err != nil || len(told) != 0 {
		t.Errorf("30 MiB over one cached 30 MiB block (and a 40 MiB one): told %x, want nothing (%v)", told, err)
	}
}
