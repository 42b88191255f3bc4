// Command gpumemrepl shows how PyTorch's CUDA caching allocator uses GPU
// memory: an interactive REPL, a script runner, and a trace replayer.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/gpumemrepl/gpumemrepl/repl"
)

func main() { os.Exit(doMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// doMain runs one invocation and returns its exit status.
func doMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "help", "-h", "--help":
			fmt.Fprint(stdout, usage)
			if len(args) > 1 {
				fmt.Fprint(stdout, repl.Help(args[1]))
			} else {
				fmt.Fprint(stdout, "\n"+repl.Help(""))
			}
			return 0
		case "replay":
			return cmdReplay(args[1:], stdout, stderr)
		case "run":
			return cmdRun(args[1:], stdin, stdout, stderr)
		}
	}
	if len(args) == 0 || args[0][0] == '-' {
		return cmdRun(args, stdin, stdout, stderr)
	}
	fmt.Fprint(stderr, usage)
	return 2
}

const usage = `gpumemrepl: see how PyTorch's CUDA caching allocator uses GPU memory.

Usage:
  gpumemrepl [flags]                   the interactive REPL (a script when stdin is not a terminal);
                                       Ctrl-C drops the line or interrupts a running command
  gpumemrepl run [flags] FILE.gpumem   run a script; an error stops it with FILE:LINE:COL (exit 1)
  gpumemrepl replay [flags] TRACE...   replay allocator traces (.json, .json.gz) or PyTorch memory
                                       snapshots (_dump_snapshot's .pickle, or its .json flattening)
                                       (each device's history on its own allocator, as FILE cuda:N,
                                       each allocation on its own stream)
  gpumemrepl help                      this text

REPL and run flags:
  --json               one JSON object per command: line, source, host_rss_bytes,
                       allocated_bytes, reserved_bytes, driver_used_bytes, context_bytes,
                       outside_allocator_bytes, devices, events, output, error, elapsed_ns
  --keep-going         go on after a failing line
  --alloc-conf STR     PYTORCH_CUDA_ALLOC_CONF (default: that variable)
  --device auto|sim|cuda
                       auto (default): this machine's GPUs when the CUDA driver loads,
                       else simulated ones (said once on stderr); cuda: GPUs or an error
  --preset NAME        simulated GPU: h200 (default; 150,109,880,320 bytes, 610 MiB CUDA
                       context), h100, a100-80gb, a100-40gb, rtx4090, t4
  --total-bytes N      simulated GPU size instead of the preset's
  --context-bytes N    simulated CUDA context instead of the preset's
  --devices N          number of simulated GPUs
                       (the four simulated-GPU flags pick the simulated device under auto)
  --no-color           no color (also NO_COLOR, or output that is not a terminal)
  --fake-host          deterministic mode for golden tests: no real host memory;
                       "host" is the bytes of live cpu tensors

replay flags:
  --check              compare with the trace's recorded memory_stats() and
                       layouts (a snapshot: its out-of-memory errors, segment allocations
                       and frees in order, final segments); one line per file; exit 1
                       on any mismatch
  --compare CONF...    replay under each PYTORCH_CUDA_ALLOC_CONF (default: PyTorch's) and
                       print peak/final reserved, peak allocated, fragmentation, device
                       allocations, retries and the first OOM (with --json: one object each)
  --keys P1,P2         with --check: only the stats keys with these prefixes, no layouts
  --stats-only         with --check: every stats key, no layouts
  --json               one JSON object per op: memory_stats() keys, "i", "error"
  --summary            print memory_summary() (PyTorch's table) after the replay
  --time               replay repeatedly, cache warm, and print N ops, X ns/op (median)
  --no-empty-cache     leave out the trace's empty_cache ops (not with --check)
  --export FILE        write the replay as a PyTorch snapshot (.pickle, for memory_viz)
  --plot FILE          write an HTML page: allocated and reserved after every op, the
                       segments at the end
  --device sim|cuda    the simulated device (default) or GPU 0 through the CUDA driver
  --quiet              no progress bar (shown on a terminal for replays over a second)
  --alloc-conf STR     PYTORCH_CUDA_ALLOC_CONF to use instead of the trace's
  --limit-bytes N      per-process limit (set_per_process_memory_fraction)
  --total-bytes N      simulated device size instead of the trace's
  --preset NAME        simulated device of a preset's size (see the REPL's --preset)
`
