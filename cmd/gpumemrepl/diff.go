package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"

	"github.com/gpumemrepl/gpumemrepl/allocator/diff"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// cmdDiff replays two histories, each under its own config, and prints
// what differs between them.
func cmdDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var confA, confB optString
	var limit optUint
	fs.Var(&confA, "config-a", "PYTORCH_CUDA_ALLOC_CONF to replay A under instead of its own")
	fs.Var(&confB, "config-b", "PYTORCH_CUDA_ALLOC_CONF to replay B under instead of its own")
	fs.Var(&limit, "limit-bytes", "per-process limit in bytes, for both")
	asJSON := fs.Bool("json", false, "one JSON object")
	top := fs.Int("top", 10, "the frames shown of each side")
	files, err := parseInterleaved(fs, args)
	switch {
	case err != nil:
	case len(files) != 2:
		err = fmt.Errorf("want two files, A and B; got %d", len(files))
	case *top < 0:
		err = fmt.Errorf("--top %d: want 0 (all) or more", *top)
	}
	if err != nil {
		fmt.Fprintf(stderr, "gpumemrepl diff: %v (see gpumemrepl help)\n", err)
		return 2
	}
	var rep diff.Report
	for i, side := range []struct {
		run  *diff.Run
		conf optString
	}{{&rep.A, confA}, {&rep.B, confB}} {
		src, err := openSide(files[i], stderr)
		if err == nil {
			*side.run, err = diff.Measure(src, trace.Options{AllocConf: configFlag(side.conf), LimitBytes: limit.v}, *top)
		}
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", files[i], err)
			return 1
		}
	}
	out := bufio.NewWriter(stdout)
	if *asJSON {
		b, _ := json.Marshal(rep)
		fmt.Fprintf(out, "%s\n", b)
	} else if err := rep.WriteText(out); err != nil {
		fmt.Fprintf(stderr, "gpumemrepl diff: %v\n", err)
		return 1
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(stderr, "gpumemrepl diff: %v\n", err)
		return 1
	}
	return 0
}

// configFlag is a --config-a or --config-b: nil when not given (the
// file's own), "" for "default".
func configFlag(o optString) *string {
	if o.v != nil && *o.v == "default" {
		return new(string)
	}
	return o.v
}

// openSide opens one side of a diff: a snapshot of one device, or a
// trace; what it holds that is contradictory is said on stderr.
func openSide(path string, stderr io.Writer) (diff.Source, error) {
	histories, err := snapshot.Open(path)
	if err != nil {
		return diff.Source{}, err
	}
	if len(histories) != 1 {
		return diff.Source{}, fmt.Errorf("holds the histories of %d devices; diff takes one", len(histories))
	}
	h := histories[0]
	if h.Replay != nil {
		snapshotProblems(stderr, path, h.Replay.Problems, false) //nolint:errcheck // warnings only, never an error
	} else {
		h.Trace.WriteWarnings(stderr)
	}
	return diff.Source{Name: path, Trace: h.Trace, Snapshot: h.Replay}, nil
}
