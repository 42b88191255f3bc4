package repl

import (
	"io"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// benchLLM runs a testdata/bench program in the process on a simulated
// H200 with the host memory of a 64 GiB machine, for profiling what its
// CPU time goes to (go test -run X -bench LLM -cpuprofile cpu.out
// ./repl); cmd/gpumemrepl's BenchmarkLLM* time the same programs
// through the binary.
func benchLLM(b *testing.B, file string, args ...string) {
	src, err := os.ReadFile("../testdata/bench/" + file)
	if err != nil {
		b.Fatal(err)
	}
	cpu := cpuTime()
	for b.Loop() {
		s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h200"], Backend: "sim", HostTotal: 64 << 30})
		if err != nil {
			b.Fatal(err)
		}
		r := &Runner{Session: s, Out: io.Discard, Err: io.Discard, File: file, Args: args}
		if st := r.PyScript(src); st != 0 {
			b.Fatalf("%s: status %d", file, st)
		}
	}
	b.ReportMetric((cpuTime()-cpu).Seconds()/float64(b.N), "cpu-s/op")
}

// cpuTime is the CPU time (user and system) the process has taken: a
// figure that the load of other processes on the machine changes less
// than wall time.
func cpuTime() time.Duration {
	var u syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &u) //nolint:errcheck // RUSAGE_SELF cannot fail
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// The Llama-7B-shaped training step of issue 36 (llama_train.py).
func BenchmarkLLMTrain7B(b *testing.B) { benchLLM(b, "llama_train.py") }

// The Llama-70B-shaped inference with a KV cache (llama_infer.py).
func BenchmarkLLMInfer70B(b *testing.B) { benchLLM(b, "llama_infer.py") }
