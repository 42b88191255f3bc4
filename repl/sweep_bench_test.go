package repl

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// A generated .gpumem sweep run in the process, for profiling what a
// short line costs (go test -run X -bench GpumemSweep -cpuprofile
// cpu.out ./repl); cmd/gpumemrepl's BenchmarkCornerGpumemMillion times
// the same lines through the binary.
func BenchmarkGpumemSweep(b *testing.B) {
	var src strings.Builder
	for i := range 100_000 / 4 {
		fmt.Fprintf(&src, "x = zeros %dx256 cuda\ny = zeros 64 cpu\ndel x\na = %d\n", 1+i%64, i)
	}
	for range b.N {
		s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h200"], Backend: "sim"})
		if err != nil {
			b.Fatal(err)
		}
		r := &Runner{Session: s, Out: io.Discard, Err: io.Discard, File: "sweep.gpumem"}
		if st := r.GpumemScript(strings.NewReader(src.String())); st != 0 {
			b.Fatalf("status %d", st)
		}
	}
}
