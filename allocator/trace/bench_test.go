package trace

import (
	"runtime"
	"testing"
)

// BenchmarkReplayPerfTrace replays the 200,000-op speed trace (recorded
// from PyTorch, default config) through the allocator on the simulated
// H200. PyTorch's own C++ allocator took about 440 ns/op on these ops.
func BenchmarkReplayPerfTrace(b *testing.B) {
	t, err := Load("../../testdata/perf_trace.json.gz")
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
