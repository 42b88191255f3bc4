package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator/diff"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
	"github.com/gpumemrepl/gpumemrepl/repl"
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
	strict := fs.Bool("strict", false, "a script's op with no recorded rule is an error instead of an estimate")
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
		o := trace.Options{AllocConf: configFlag(side.conf), LimitBytes: limit.v}
		var src diff.Source
		var tier engine.Tier
		if isScript(files[i]) {
			src, o, tier, err = scriptSide(files[i], o, *strict)
		} else {
			src, err = openSide(files[i], stderr)
		}
		if err == nil {
			*side.run, err = diff.Measure(src, o, *top)
		}
		if !tier.Exact() {
			side.run.Estimated = repl.EstimatedMark + " " + repl.EstimatedText(tier)
		}
		if err != nil {
			fmt.Fprintln(stderr, ofFile(files[i], err))
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

// ofFile is err of the file path, in one message that names the file
// first: err itself where it does already (a script's own report, whose
// first line is its FILE:LINE:COL: Type: message line; an error in what
// the file holds, PATH: ...), told by its type; else err after the
// path.
func ofFile(path string, err error) string {
	switch e := err.(type) { // the outermost error: a wrapper's words come first
	case *repl.ScriptError:
		return err.Error()
	case *fileio.InFile:
		if e.Path == path {
			return err.Error()
		}
	}
	return path + ": " + err.Error()
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

// isScript reports whether a side is a script to run in the tool (.py
// or .gpumem) rather than a history.
func isScript(path string) bool {
	return repl.IsPython(path) || strings.HasSuffix(path, ".gpumem")
}

// scriptSide runs a script in the tool on a simulated H200, under o's
// config (else PYTORCH_CUDA_ALLOC_CONF, or the script's own alloc_conf),
// and makes cuda:0's history its side, through the snapshot the session
// saves (as snapshot save does): it replays as the session ran, under
// o's limit when one is given; tier says whether its figures are exact
// (strict: an estimate is the script's error). An out-of-memory error
// ends the script, as it ends a program; any other error is the side's.
func scriptSide(path string, o trace.Options, strict bool) (diff.Source, trace.Options, engine.Tier, error) {
	src, err := fileio.Read(path, fileio.MaxScript, "script")
	if err != nil {
		return diff.Source{}, o, engine.Tier{}, err
	}
	conf := os.Getenv("PYTORCH_CUDA_ALLOC_CONF")
	if o.AllocConf != nil {
		conf = *o.AllocConf
	}
	dir, err := os.MkdirTemp("", "gpumemrepl-diff")
	if err != nil {
		return diff.Source{}, o, engine.Tier{}, err
	}
	defer os.RemoveAll(dir)
	// the history as the program left it: not its module's teardown
	saved := filepath.Join(dir, "history.pickle")
	var saveErr error
	var categories []string
	h200 := engine.Presets["h200"]
	save := func(r *repl.Runner) {
		s := r.Session
		if len(s.History(0)) == 0 {
			saveErr = errors.New("the script allocates nothing on cuda:0")
			return
		}
		categories = r.AllocCategories()
		saveErr = s.SaveSnapshot(saved, 0)
	}
	s, err := repl.RunScript(repl.Program{Src: src, File: path}, engine.Options{Preset: h200, AllocConf: conf, FakeHost: true, Backend: "sim", Strict: strict, DriverAddresses: true}, save)
	if err != nil {
		if se, ok := err.(*repl.ScriptError); ok { // its first line is the script's FILE:LINE:COL
			se.Run = "gpumemrepl diff: the script failed"
			return diff.Source{}, o, engine.Tier{}, se
		}
		return diff.Source{}, o, engine.Tier{}, fmt.Errorf("the script failed: %w", err)
	}
	if saveErr != nil {
		return diff.Source{}, o, engine.Tier{}, saveErr
	}
	histories, err := snapshot.Open(saved)
	if err != nil {
		return diff.Source{}, o, engine.Tier{}, err
	}
	h := histories[0]
	h.Trace.Path = path
	o.AllocConf, o.TotalBytes = nil, h200.Total // the script's own config, recorded in the snapshot
	return diff.Source{Name: path, Trace: h.Trace, Snapshot: h.Replay, Categories: categories, Lines: eval.SourceLines(src)}, o, s.Tier(), nil
}
