// Command gpumemrepl shows how PyTorch's CUDA caching allocator uses GPU
// memory: an interactive REPL, a script runner, and a trace replayer.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/repl/command"
)

// subcommands are the first words gpumemrepl takes as commands.
var subcommands = []string{"run", "replay", "fit", "diff", "help"}

// pytorchVersion is the PyTorch release whose allocator is modelled.
const pytorchVersion = "2.11"

func main() { os.Exit(doMain(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// doMain runs one invocation and returns its exit status: 0, 1 for an
// error in the input, 2 for bad usage.
func doMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		return cmdRun(args, stdin, stdout, stderr)
	case args[0] == "help":
		if len(args) > 1 {
			text := command.Help(args[1])
			switch {
			case slices.Contains(subcommands, args[1]):
				fmt.Fprint(stdout, subcommandHelp(args[1]))
			case strings.HasPrefix(text, "help: no command"):
				fmt.Fprintf(stderr, "gpumemrepl help: no topic %q: the commands are %s; gpumemrepl help lists the prompt's too\n", args[1], strings.Join(subcommands, ", "))
				return 2
			default: // a command of the prompt and of scripts (plot, peak, explain), or an op
				fmt.Fprint(stdout, text)
			}
		} else {
			fmt.Fprint(stdout, usage)
			fmt.Fprint(stdout, "\n"+command.Help(""))
		}
		return 0
	case helpAsked(args):
		fmt.Fprint(stdout, usage)
		return 0
	case args[0] == "--version" || args[0] == "-version":
		fmt.Fprintln(stdout, version())
		return 0
	case args[0] == "replay":
		return cmdReplay(args[1:], stdout, stderr)
	case args[0] == "fit":
		return cmdFit(args[1:], stdout, stderr)
	case args[0] == "diff":
		return cmdDiff(args[1:], stdout, stderr)
	case args[0] == "run":
		if noScript(args[1:]) {
			fmt.Fprintln(stderr, "gpumemrepl run: no script given (gpumemrepl alone reads a script from standard input)")
			return 2
		}
		return cmdRun(args[1:], stdin, stdout, stderr)
	case args[0][0] != '-' && !isFile(args[0]) && !strings.ContainsAny(args[0], "./"):
		fmt.Fprintf(stderr, "gpumemrepl: %q is neither a command (%s) nor a file\n", args[0], strings.Join(subcommands, ", "))
		return 2
	}
	// gpumemrepl [flags] [FILE] runs FILE as python FILE would
	return cmdRun(args, stdin, stdout, stderr)
}

// subcommandHelp is help NAME: the usage lines of subcommand name and
// its flags, as the whole usage text has them.
func subcommandHelp(name string) string {
	var b strings.Builder
	lines := strings.Split(usage, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "  gpumemrepl "+name) && !(name == "run" && strings.HasPrefix(l, "  gpumemrepl [flags]")) {
			continue
		}
		b.WriteString(l + "\n")
		for _, more := range lines[i+1:] {
			if !strings.HasPrefix(more, strings.Repeat(" ", 10)) {
				break
			}
			b.WriteString(more + "\n")
		}
	}
	head := name + " flags"
	if name == "run" {
		head = "REPL and run flags"
	}
	for _, sec := range strings.Split(usage, "\n\n") {
		if strings.HasPrefix(sec, head) {
			b.WriteString("\n" + strings.TrimRight(sec, "\n") + "\n")
		}
	}
	if name == "help" {
		b.WriteString("\n" + command.Help(""))
	}
	return b.String()
}

// helpAsked reports whether a flag asks for help (before any "--").
func helpAsked(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// noScript reports whether run's arguments parse and name no script.
func noScript(args []string) bool {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var sf sessionFlags
	sf.register(fs)
	files, err := parseInterleaved(fs, args)
	return err == nil && len(files) == 0
}

func isFile(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// version is the tool's version (the module's, or the commit it was
// built from) and the PyTorch release it models.
func version() string {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		v = bi.Main.Version
		var rev, modified string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value[:min(12, len(s.Value))]
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", modified"
				}
			}
		}
		if rev != "" {
			v += " (commit " + rev + modified + ")"
		}
	}
	return fmt.Sprintf("gpumemrepl %s, modelling PyTorch %s's CUDA caching allocator", v, pytorchVersion)
}

const usage = `gpumemrepl: see how PyTorch's CUDA caching allocator uses GPU memory.

Usage:
  gpumemrepl [flags]                   the interactive REPL (a script when stdin is not a terminal);
                                       Ctrl-C drops the line or interrupts a running command
  gpumemrepl [flags] FILE              run FILE, as python FILE would (the same as run FILE)
  gpumemrepl [flags] FILE.py -- ARG... a Python script with its arguments (sys.argv; argparse)
  gpumemrepl run [flags] FILE.gpumem   run a script; an error stops it with FILE:LINE:COL (exit 1);
                                       a script holds at most 64 MiB (a trace 1 GiB of JSON, a
                                       snapshot 4 GiB), refused by its size before it is read
  gpumemrepl replay [flags] TRACE...   replay allocator traces (.json, .json.gz) or PyTorch memory
                                       snapshots (_dump_snapshot's .pickle, or its .json flattening)
                                       (each device's history on its own allocator, as FILE cuda:N,
                                       each allocation on its own stream)
  gpumemrepl fit [flags] FILE [-- ARG...]
                                       will FILE fit? run it (with its arguments) on each simulated
                                       GPU and print the peak allocated and reserved, reserved plus
                                       the CUDA context, whether they are exact, and the first
                                       out-of-memory error on each; with --sweep NAME=LO..HI, the
                                       largest --NAME that fits each
  gpumemrepl diff [flags] A B          replay two snapshots or traces, or run two scripts (.py,
                                       .gpumem), or one file twice under two configs, and print what
                                       differs: peak and final allocated and reserved, segments,
                                       fragmentation, allocations by size class and, where the
                                       history has stacks, by category and frame
  gpumemrepl help [TOPIC]              this text, or a command's help (run, fit, the prompt's
                                       plot, peak, explain, an op)
  gpumemrepl --version                 the version, and the PyTorch release it models

Flags are --name VALUE or --name=VALUE (a boolean one: --name or --name=false), before or
after the files; -- ends them.

Exit status: 0 ok; 1 an error in the input (a script's error, a file that cannot be read
or decoded, a replay that does not check); 2 bad usage (an unknown flag, a bad value,
flags that do not go together).

REPL and run flags:
  --json               one JSON object per command: line, source, host_rss_bytes,
                       pinned_host_bytes (when some is pinned), allocated_bytes, reserved_bytes,
                       driver_used_bytes, context_bytes, outside_allocator_bytes, devices,
                       events, exact, estimates, first_estimate (the three only where the
                       figures rest on an estimate: exact false), output, error, gc (a
                       Python script's gc.get_count() after the statement), elapsed_ns
  --strict             exact figures or none: an op with no rule recorded on the GPU for its
                       arguments fails (NotImplementedError, the tool's refusal) instead of
                       going on by a general rule with its figures marked estimated (≈)
  --keep-going         go on after a failing line
  --peak               at a script's end, cuda:0's whole-run peak explained: by category,
                       source line and name, the largest holders and what frees each
                       (with --json, one JSON object {"breakdown": ...} after the rows)
  --plot FILE.html     at a script's end, the session's HTML page (as plot at the prompt)
  --each-statement     a Python script: a report (marked ':') after every simple statement
                       it executes, inside loops and functions too (with --json, a row
                       each), before the report of the top-level statement
  --as-recorded        a Python script as scripts/record_gc.py records it with CPython and
                       PyTorch: import torch leaves CPython's collector counts as in its
                       recordings, and after each top-level statement cuda:0's four figures
                       are read with the collector off, each read leaving the cycle that
                       torch.cuda.memory_stats() leaves, so the automatic collections come
                       where they came in the recording (testdata/experiments/gc)
  --alloc-conf STR     PYTORCH_CUDA_ALLOC_CONF (default: that variable)
  --device auto|sim|cuda
                       auto (default): this machine's GPUs when the CUDA driver loads,
                       else simulated ones (said once on stderr); cuda: GPUs or an error
  --preset NAME        simulated GPU: h200 (default; 150,109,880,320 bytes, 610 MiB CUDA
                       context), h100, a100-80gb, a100-40gb, rtx4090, t4 (the rules were
                       recorded on the H200 and the H100: on the others a rule that reads
                       the card, such as the cuBLAS workspace, is an estimate; help estimated)
  --total-bytes N      simulated GPU size instead of the preset's (1 to 2^63-1 bytes)
  --context-bytes N    simulated CUDA context instead of the preset's
  --devices N          number of simulated GPUs (1 to 120, PyTorch's most)
  --driver-addresses=false
                       the simulated GPU does not take the address space the CUDA driver
                       takes for itself (by default it does: the context's local memory,
                       cuBLAS handles, the first reduction or embedding lookup,
                       torch.optim's library, cuDNN's first handle), which decides which
                       of two equal free blocks PyTorch takes (testdata/segments/README.md);
                       off, every figure from the first segment on is estimated (a switch
                       for comparing, not for answers)
                       (the five simulated-GPU flags pick the simulated device under auto)
  --calibration FILE[:FILE...]
                       calibration files: convolutions recorded on your GPU by
                       scripts/calibrate.py (docs/calibration.md), exact over the built-in
                       tables; also GPUMEMREPL_CALIBRATION, read by fit and diff too
  --no-color           no color (also NO_COLOR, or output that is not a terminal)
  --fake-host          deterministic mode for golden tests: no real host memory;
                       "host" is the bytes of live cpu tensors
  --host-budget SIZE   live cpu tensors are real memory up to SIZE (64G, 512M; default a
                       quarter of this machine's memory, at most 4G); past it, counted
  --host-total SIZE    the simulated machine's host memory (default this machine's):
                       past it, PyTorch's DefaultCPUAllocator error

replay flags (the flags that decide the output -- --check, --time, --json, --compare --
do not go with each other, nor with --export, --plot or --summary; those three go together):
  --check              compare with the trace's recorded memory_stats() and
                       layouts (a snapshot: its out-of-memory errors, segment allocations
                       and frees in order, final segments); one line per file; exit 1
                       on any mismatch
  --compare CONF...    replay under each PYTORCH_CUDA_ALLOC_CONF (default: PyTorch's; the
                       configs run to the next flag or trace file; --compare=CONF gives one) and
                       print peak/final reserved, peak allocated, fragmentation, device
                       allocations, retries and the first OOM (with --json: one object each)
  --explain            why the first OOM happened (or where the peak is) and the smallest change
                       that avoids it, every candidate replayed (give the limit the history ran
                       under with --limit-bytes); with --json one object; alone or with --json
  --keys P1,P2         with --check: only the stats keys with these prefixes, no layouts
  --stats-only         with --check: every stats key, no layouts
  --json               one JSON object per op: memory_stats() keys, "i", "error"
  --summary            print memory_summary() (PyTorch's table) after the replay
  --time               replay repeatedly, cache warm, and print N ops, X ns/op (median)
  --no-empty-cache     leave out the trace's empty_cache ops (not with --check)
  --export FILE        write the replay as a PyTorch snapshot (.pickle, for memory_viz)
  --plot FILE          write an HTML page: allocated and reserved after every op, the
                       segments at the end
                       (FILE - is standard output; a regular file is written whole, through
                       a temporary file renamed over it: a failed write leaves the old file;
                       a device or FIFO is written in place; a symlink is followed)
  --device sim|cuda    the simulated device (default) or GPU 0 through the CUDA driver
  --quiet              no progress bar (shown on a terminal for replays over a second)
  --alloc-conf STR     PYTORCH_CUDA_ALLOC_CONF to use instead of the trace's
  --limit-bytes N      per-process limit (set_per_process_memory_fraction)
  --recorded-limit-bytes N
                       a snapshot's: the limit it was recorded under (it records none), so
                       the releases its event order leaves open are decided by replaying there
  --total-bytes N      simulated device size instead of the trace's
  --preset NAME        simulated device of a preset's size (see the REPL's --preset)

fit flags (each GPU runs the script afresh; its output is not shown; the peaks are the
highest over the whole run, whatever the script resets; an error other than out-of-memory
stops fit with that error, exit 1):
  --gpus A,B           the presets to try (default: all, largest first); the exact column
                       says, per GPU, whether the run rests on an estimate (help estimated)
  --alloc-conf STR     PYTORCH_CUDA_ALLOC_CONF (default: that variable)
  --devices N          simulated GPUs of each preset (default 1)
  --strict             an op with no recorded rule is the script's error, not an estimate
  --json               one JSON object per GPU and device: gpu, device, total_bytes,
                       peak_allocated_bytes, peak_reserved_bytes, reserved_plus_context_bytes,
                       fits, oom_at, oom_source, oom_message, exact, estimated_statements,
                       first_estimate
  --sweep NAME=LO..HI  the largest value of the script's argument --NAME in LO..HI with which
                       it runs without running out of memory, on each GPU, by bisection over
                       simulated runs (--NAME VALUE is passed after the script's own
                       arguments): one row per GPU with the peaks at that value and at the
                       next, which runs out (with --json: gpu, total_bytes, argument, best,
                       peak_allocated_bytes, peak_reserved_bytes, next,
                       next_peak_reserved_bytes, next_oom_at, next_oom_message, runs)
  --host-total SIZE    the simulated machine's host memory (see the REPL's --host-total)
  --peak               each GPU's whole-run peak on cuda:0 explained under the table, as run
                       --peak prints it (with --json: breakdown on the GPU's row); not
                       with --sweep
  --quiet              no progress line (shown on a terminal once fit runs over a second)

diff flags (each side is replayed on the simulated device of its recording's size; a script
runs on a simulated H200 and its history is replayed):
  --config-a CONF      PYTORCH_CUDA_ALLOC_CONF to replay A under (default: A's own; "default"
                       is PyTorch's); a script runs under it
  --config-b CONF      the same for B
  --limit-bytes N      per-process limit for both (set_per_process_memory_fraction)
  --top N              the frames listed of each side (default 10; 0: all)
  --strict             a script's op with no recorded rule is its error, not an estimate
  --json               one JSON object: a and b, each with name, config, ops, notes, peak/final
                       allocated and reserved bytes, segments, fragmentation, device_allocs,
                       ooms, estimated (a script's side whose figures rest on estimates),
                       size_classes, categories and frames (name, count, bytes, bytes_at_peak)
`
