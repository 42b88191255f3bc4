package snapshot

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

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
// 1,000,000-event snapshot; peak-MB is the most memory the Go runtime
// held from the system meanwhile (sampled every millisecond: heap, stacks
// and the runtime's own, less what it had returned), the file's writing
// left out.
func BenchmarkMillionEventSnapshot(b *testing.B) { benchMillion(b, "million.pickle") }

// BenchmarkMillionEventJSON is the same trace in the JSON flattening.
func BenchmarkMillionEventJSON(b *testing.B) { benchMillion(b, "million.json") }

func benchMillion(b *testing.B, name string) {
	path := writeMillion(b, name)
	runtime.GC()
	debug.FreeOSMemory()
	stop, peak := samplePeak()
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
		a.Close() //nolint:errcheck // the simulated device
	}
	b.StopTimer()
	close(stop)
	b.ReportMetric(float64(<-peak)/(1<<20), "peak-MB")
}

// samplePeak samples the memory the runtime holds until stop is closed,
// then sends the largest figure.
func samplePeak() (stop chan struct{}, peak chan uint64) {
	stop, peak = make(chan struct{}), make(chan uint64, 1)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		var most uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			most = max(most, s[0].Value.Uint64()-s[1].Value.Uint64())
			select {
			case <-stop:
				peak <- most
				return
			case <-t.C:
			}
		}
	}()
	return stop, peak
}
