package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// benchBinary runs gpumemrepl with args b.N times and reports, besides
// the wall time an op, the CPU time (user and system) and the peak
// resident memory of the process: the figures of the README's speed
// table (go test -run X -bench LLM -benchtime 5x ./cmd/gpumemrepl).
func benchBinary(b *testing.B, args ...string) {
	benchRuns(b, args, func(cmd *exec.Cmd) {
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
	})
}

// benchBinaryQuiet is benchBinary with the standard output written to
// /dev/null (a million lines of reports), each run ending with status
// want.
func benchBinaryQuiet(b *testing.B, want int, args ...string) {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer null.Close()
	benchRuns(b, args, func(cmd *exec.Cmd) {
		var errOut strings.Builder
		cmd.Stdout, cmd.Stderr = null, &errOut
		cmd.Run() //nolint:errcheck // the status is checked below
		if code := cmd.ProcessState.ExitCode(); code != want {
			b.Fatalf("%v: exit %d, want %d\n%.2000s", args, code, want, errOut.String())
		}
	})
}

// benchRuns runs the binary with args b.N times through run and reports
// the CPU time and peak resident memory of the process.
func benchRuns(b *testing.B, args []string, run func(*exec.Cmd)) {
	var cpu, rss float64
	for range b.N {
		cmd := exec.Command(binary, args...)
		run(cmd)
		u := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu += float64(u.Utime.Nano()+u.Stime.Nano()) / 1e9
		rss = max(rss, float64(u.Maxrss)/1024) // KiB on Linux
	}
	b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
	b.ReportMetric(rss, "peak-RSS-MB")
}

// A Llama-7B-shaped training step: built on the host (counted, not
// allocated), moved to the GPU, one AdamW step under bf16 autocast.
func BenchmarkLLMTrain7B(b *testing.B) {
	benchBinary(b, "run", "--device", "sim", "--host-total", "64G", "../../testdata/bench/llama_train.py")
}

// The same with each block checkpointed over bfloat16 weights.
func BenchmarkLLMTrain7BCheckpointed(b *testing.B) {
	benchBinary(b, "run", "--device", "sim", "--host-total", "64G", "../../testdata/bench/llama_train.py", "--", "--ckpt", "1")
}

// A Llama-70B-shaped inference with a KV cache: a 512-token prompt and
// 32 new tokens, bfloat16 weights on the H200.
func BenchmarkLLMInfer70B(b *testing.B) {
	benchBinary(b, "run", "--device", "sim", "../../testdata/bench/llama_infer.py")
}

// fit of each across all six presets.
func BenchmarkLLMFitTrain7B(b *testing.B) {
	benchBinary(b, "fit", "--host-total", "64G", "../../testdata/bench/llama_train.py")
}

func BenchmarkLLMFitInfer70B(b *testing.B) {
	benchBinary(b, "fit", "../../testdata/bench/llama_infer.py")
}

// A training loop of 1,000 steps of a small GPT (train_sweep.py at
// width 128, two layers, batch 8 of 128 tokens): what a step costs.
func BenchmarkLLMTrainLoop1000(b *testing.B) {
	benchBinary(b, "run", "--device", "sim", "../../testdata/models/train_sweep.py", "--", "--steps", "1000", "--vocab", "1024", "--dim", "128", "--layers", "2", "--seq", "128", "--batch-size", "8")
}

// benchScript writes a generated script into a temporary folder and
// benchmarks run over it (through benchBinaryQuiet, its output into
// /dev/null), each run ending with status want.
func benchScript(b *testing.B, want int, name, src string, args ...string) {
	path := filepath.Join(b.TempDir(), name)
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		b.Fatal(err)
	}
	benchBinaryQuiet(b, want, append(append([]string{"run", "--device", "sim"}, args...), path)...)
}

// The corners of issue 33, each through the binary as a user meets it
// (go test -run X -bench Corner -benchtime 1x -count 3 ./cmd/gpumemrepl;
// the README's speed table has their medians).

// A source that never ends: run /dev/zero (it grew to 3.9 GB). Target:
// exit 1 within 1 s and 100 MB.
func BenchmarkCornerDevZero(b *testing.B) {
	benchBinaryQuiet(b, 1, "run", "--device", "sim", "/dev/zero")
}

// A line of 50,000 terms, y = x + x + ... + x (20 s), and of 20,000
// (2.7 s): refused at CPython 3.12's depth, as CPython refuses it.
// Target: under 1 s.
func BenchmarkCornerTerms50000(b *testing.B) {
	benchScript(b, 1, "terms.py", "import torch\nx = torch.ones(2)\ny = x"+strings.Repeat(" + x", 49_999)+"\n")
}

func BenchmarkCornerTerms20000(b *testing.B) {
	benchScript(b, 1, "terms.py", "import torch\nx = torch.ones(2)\ny = x"+strings.Repeat(" + x", 19_999)+"\n")
}

// A 40,000-link method chain, x.clone().clone()... (14 s). Target: under
// 1 s.
func BenchmarkCornerChain40000(b *testing.B) {
	benchScript(b, 1, "chain.py", "import torch\nx = torch.ones(2)\ny = x"+strings.Repeat(".clone()", 40_000)+"\n")
}

// sweep is a generated .gpumem sweep of n short lines, each a step with
// its report: a GPU tensor made in the command form, a host one, a del,
// a Python assignment.
func sweep(n int) string {
	var src strings.Builder
	for i := range n / 4 {
		fmt.Fprintf(&src, "x = zeros %dx256 cuda\ny = zeros 64 cpu\ndel x\na = %d\n", 1+i%64, i)
	}
	return src.String()
}

// 100,000 lines of it (13.5 s).
func BenchmarkCornerGpumem100k(b *testing.B) {
	benchScript(b, 0, "sweep.gpumem", sweep(100_000))
}

// 1,000,000 lines (did not finish in 90 s). Target: under 30 s.
func BenchmarkCornerGpumemMillion(b *testing.B) {
	benchScript(b, 0, "sweep.gpumem", sweep(1_000_000))
}

// A loop of 100,000 iterations run with --each-statement, a report
// after each statement.
func BenchmarkCornerEachStatementLoop(b *testing.B) {
	benchScript(b, 0, "loop.py", "import torch\nx = torch.zeros(4, device='cuda')\nfor i in range(100000):\n    x = x + 1\n", "--each-statement")
}
