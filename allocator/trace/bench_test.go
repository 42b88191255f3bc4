package trace

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpumemrepl/gpumemrepl/allocator/device/sim"
)

const perfTrace = "../../testdata/perf_trace.json.gz"

// BenchmarkReplayPerfTrace replays the 200,000-op speed trace (recorded
// from PyTorch, default config) through the allocator on the simulated
// H200, one op per iteration. PyTorch's own C++ allocator took about
// 440 ns/op on these ops.
func BenchmarkReplayPerfTrace(b *testing.B) {
	t, err := Load(perfTrace)
	if err != nil {
		b.Fatal(err)
	}
	a, err := Setup(t, Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := NewReplayer(t, a)
	runtime.GC() // the trace's decoding garbage is not the replay's cost
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		if r.Done() {
			b.StopTimer()
			a, _ = Setup(t, Options{})
			r.Reset(a)
			b.StartTimer()
		}
		if _, err := r.Step(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMapFloorPerfTrace is the floor BenchmarkReplayPerfTrace is
// held to: a bare Go map insert per alloc and delete per free over the
// same ops, one op per iteration.
func BenchmarkMapFloorPerfTrace(b *testing.B) {
	t, err := Load(perfTrace)
	if err != nil {
		b.Fatal(err)
	}
	m := map[int]uint64{}
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for n := 0; n < b.N; n++ {
		if i == len(t.Ops) {
			clear(m)
			i = 0
		}
		op := &t.Ops[i]
		i++
		switch op.kind {
		case opAlloc:
			m[op.ID] = op.Size
		case opFree:
			delete(m, op.ID)
		}
	}
}

// BenchmarkSynthetic loads and replays generated traces of random
// allocations and frees that hold a steady number of blocks live: the
// cost per op as the trace grows (1M against 3M ops) and as the live set
// does (2,000 against 100,000 blocks). ns/op is per trace op, load and
// replay together; load-ns/op and replay-ns/op split it; peak-MB is the
// process's peak resident set during the runs (Linux), when it can be
// read.
func BenchmarkSynthetic(b *testing.B) {
	for _, c := range []struct{ ops, live int }{
		{1_000_000, 2_000},
		{3_000_000, 2_000},
		{1_000_000, 100_000},
	} {
		b.Run(fmt.Sprintf("ops=%d/live=%d", c.ops, c.live), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "synthetic.json.gz")
			writeSynthetic(b, path, c.ops, c.live)
			debug.FreeOSMemory() // the last case's heap is not this one's peak
			resetPeakRSS()
			var load, replay time.Duration
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				t, err := Load(path)
				if err != nil {
					b.Fatal(err)
				}
				loaded := time.Now()
				a, err := Setup(t, Options{})
				if err != nil {
					b.Fatal(err)
				}
				if err := NewReplayer(t, a).Run(nil); err != nil {
					b.Fatal(err)
				}
				load += loaded.Sub(start)
				replay += time.Since(loaded)
			}
			b.StopTimer()
			per := float64(b.N * c.ops)
			b.ReportMetric(float64((load+replay).Nanoseconds())/per, "ns/op")
			b.ReportMetric(float64(load.Nanoseconds())/per, "load-ns/op")
			b.ReportMetric(float64(replay.Nanoseconds())/per, "replay-ns/op")
			if mb, ok := peakRSSMB(); ok {
				b.ReportMetric(mb, "peak-MB")
			}
		})
	}
}

// writeSynthetic writes a .json.gz trace of n ops: live allocations,
// then frees of a random live block each followed by a new allocation,
// sizes log-uniform from 512 bytes to 4 MiB (small and large pools
// both), on an H200.
func writeSynthetic(b *testing.B, path string, n, live int) {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zw := gzip.NewWriter(f)
	w := bufio.NewWriter(zw)
	fmt.Fprintf(w, `{"name": "synthetic", "alloc_conf": "", "total_memory": %d, "ops": [`, uint64(sim.H200Total))
	r := rand.New(rand.NewPCG(uint64(n), uint64(live)))
	var ids []int
	next := 0
	for i := range n {
		if i > 0 {
			w.WriteString(", ")
		}
		if len(ids) == live {
			k := r.IntN(len(ids))
			fmt.Fprintf(w, `{"op": "free", "id": %d}`, ids[k])
			ids[k] = ids[len(ids)-1]
			ids = ids[:len(ids)-1]
			continue
		}
		size := uint64(512 << r.IntN(13))
		size += r.Uint64N(size)
		fmt.Fprintf(w, `{"op": "alloc", "id": %d, "size": %d}`, next, size)
		ids = append(ids, next)
		next++
	}
	w.WriteString("]}\n")
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		b.Fatal(err)
	}
}

// resetPeakRSS restarts the kernel's count of the process's peak
// resident set (VmHWM), where Linux allows it.
func resetPeakRSS() {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) //nolint:errcheck // the figure is then left out
}

// peakRSSMB reads VmHWM, in MiB.
func peakRSSMB() (float64, bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(status)) {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			return kb / 1024, err == nil
		}
	}
	return 0, false
}
