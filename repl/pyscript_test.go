package repl

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// FuzzPython runs source text through the whole Python pipeline --
// parser, evaluator, torch, engine, allocator -- on a simulated H200:
// whatever the text, no Go panic (an internal error) comes out, and a
// run ends (each step is interrupted after a while, as Ctrl-C would).
// Each input runs in a directory of its own, removed after it.
func FuzzPython(f *testing.F) {
	seeds, _ := filepath.Glob("../testdata/experiments/*.py")
	more, _ := filepath.Glob("eval/testdata/*.py")
	for _, s := range append(seeds, more...) {
		if src, err := os.ReadFile(s); err == nil {
			f.Add(src)
		}
	}
	f.Add([]byte("import torch\nx = torch.zeros(3, device='cuda')\nwhile True:\n    x = x + 1\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		t.Chdir(t.TempDir()) // what a program writes (a snapshot dump) is not left behind
		s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h200"], Backend: "sim", FakeHost: true, Devices: 1})
		if err != nil {
			t.Fatal(err)
		}
		stop := make(chan struct{})
		go func() {
			tick := time.NewTicker(50 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					s.Interrupt()
				}
			}
		}()
		var out, errOut bytes.Buffer
		r := &Runner{Session: s, Out: &out, Err: &errOut, File: "fuzz.py", KeepGoing: true}
		r.PyScript(src)
		close(stop)
		if strings.Contains(errOut.String(), "internal error") {
			t.Fatalf("internal error on\n%s\n%s", src, errOut.String())
		}
	})
}

// BenchmarkPythonLoop is issue 13's speed target: a for loop of 100,000
// iterations of x = x + 1 on a small cuda tensor (one op, one free, one
// rebinding each) in one step, on the simulated device. Target: under 1
// s per run.
func BenchmarkPythonLoop(b *testing.B) {
	src := []byte("import torch\nx = torch.zeros(4, device='cuda')\nfor i in range(100000):\n    x = x + 1\n")
	for b.Loop() {
		s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h200"], Backend: "sim", FakeHost: true, Devices: 1})
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		r := &Runner{Session: s, Out: &out, Err: &out, File: "loop.py"}
		if r.PyScript(src) != 0 {
			b.Fatal(out.String())
		}
	}
}

// BenchmarkSmallGPTStep is issue 15's speed target: one training step
// (zero_grad, forward, cross entropy, backward, AdamW) of the small GPT
// of testdata/models/train_gpt.py on a simulated H200, as ms/step: the
// script's definitions run with ten steps, less the same definitions
// alone. Target: under 50 ms a step.
func BenchmarkSmallGPTStep(b *testing.B) {
	src, err := os.ReadFile("../testdata/models/train_gpt.py")
	if err != nil {
		b.Fatal(err)
	}
	prelude, _, ok := strings.Cut(string(src), "\nstep()\n")
	if !ok {
		b.Fatal("train_gpt.py has no top-level step() call")
	}
	prelude += "\n"
	const steps = 10
	run := func(text string) time.Duration {
		s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h200"], Backend: "sim", FakeHost: true, Devices: 1})
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		r := &Runner{Session: s, Out: &out, Err: &out, File: "train_gpt.py"}
		start := time.Now()
		if r.PyScript([]byte(text)) != 0 {
			b.Fatal(out.String())
		}
		return time.Since(start)
	}
	var per time.Duration
	for b.Loop() {
		per += (run(prelude+"for _ in range("+strconv.Itoa(steps)+"):\n    step()\n") - run(prelude)) / steps
	}
	b.ReportMetric(float64(per.Microseconds())/1000/float64(b.N), "ms/step")
}
