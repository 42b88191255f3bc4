package main

import (
	"os/exec"
	"syscall"
	"testing"
)

// benchBinary runs gpumemrepl with args b.N times and reports, besides
// the wall time an op, the CPU time (user and system) and the peak
// resident memory of the process: the figures of the README's speed
// table (go test -run X -bench LLM -benchtime 5x ./cmd/gpumemrepl).
func benchBinary(b *testing.B, args ...string) {
	var cpu, rss float64
	for range b.N {
		cmd := exec.Command(binary, args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
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
