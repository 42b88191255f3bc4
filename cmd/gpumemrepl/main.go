// Command gpumemrepl shows how PyTorch's CUDA caching allocator uses GPU
// memory: an interactive REPL, a script runner, and a trace replayer.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(doMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// doMain runs one invocation and returns its exit status.
func doMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "replay":
			return cmdReplay(args[1:], stdout, stderr)
		case "help", "-h", "--help":
			fmt.Fprint(stdout, usage)
			return 0
		}
	}
	fmt.Fprint(stderr, usage)
	return 2
}

const usage = `gpumemrepl: see how PyTorch's CUDA caching allocator uses GPU memory.

Usage:
  gpumemrepl replay [flags] TRACE...   replay allocator traces (.json, .json.gz)
  gpumemrepl help                      this text

replay flags:
  --check              compare with the trace's recorded memory_stats() and
                       layouts; one line per file; exit 1 on any mismatch
  --json               one JSON object per op: memory_stats() keys, "i", "error"
  --summary            print memory_summary() (PyTorch's table) after the replay
  --time               replay repeatedly and print N ops, X ns/op (median)
  --alloc-conf STR     PYTORCH_CUDA_ALLOC_CONF to use instead of the trace's
  --limit-bytes N      per-process limit (set_per_process_memory_fraction)
  --total-bytes N      simulated device size instead of the trace's
`
