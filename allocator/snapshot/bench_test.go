package snapshot

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// writeMillion writes a snapshot (.pickle, or the .json flattening) of
// 1,000,000 trace events: allocations and their frees, random sizes, a
// few hundred blocks live at a time.
func writeMillion(b *testing.B, name string) string {
	r := rand.New(rand.NewPCG(1, 2))
	var events []Event
	var live []uint64
	addr := uint64(1 << 40)
	for len(events) < 1_000_000 {
		if len(live) > 0 && (len(live) > 400 || r.IntN(2) == 0) {
			k := r.IntN(len(live))
			events = append(events, Event{Action: "free_completed", Addr: live[k]})
			live[k] = live[len(live)-1]
			live = live[:len(live)-1]
			continue
		}
		addr += 1 << 20
		size := uint64(512 + r.IntN(8<<20))
		events = append(events, Event{Action: "alloc", Addr: addr, Size: size})
		live = append(live, addr)
	}
	path := filepath.Join(b.TempDir(), name)
	if filepath.Ext(name) == ".json" {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if err := json.NewEncoder(f).Encode(map[string]any{"alloc_conf": "", "events": events, "final_segments": []Segment{}}); err != nil {
			b.Fatal(err)
		}
		return path
	}
	if err := Save(path, 0, nil, events, ""); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkMillionEventSnapshot reads, prepares and replays a
// 1,000,000-event snapshot; peak-heap-MB is the Go heap's peak.
func BenchmarkMillionEventSnapshot(b *testing.B) { benchMillion(b, "million.pickle") }

// BenchmarkMillionEventJSON is the same trace in the JSON flattening.
func BenchmarkMillionEventJSON(b *testing.B) { benchMillion(b, "million.json") }

func benchMillion(b *testing.B, name string) {
	path := writeMillion(b, name)
	runtime.GC()
	var peak uint64
	b.ResetTimer()
	for range b.N {
		s, err := Load(path)
		if err != nil {
			b.Fatal(err)
		}
		r, err := s.Prepare(path)
		if err != nil {
			b.Fatal(err)
		}
		a, err := trace.Setup(r.Trace, trace.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := trace.NewReplayer(r.Trace, a).Run(nil); err != nil {
			b.Fatal(err)
		}
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		peak = max(peak, m.HeapSys)
		a.Close() //nolint:errcheck // the simulated device
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}
