// Tests of trace files. The oracle is the traces recorded from PyTorch
// 2.11 (testdata/truth/traces, testdata/traces): TestConformance replays
// each and compares every memory_stats() key PyTorch reported after every
// op, the OOM texts and the layouts.
package trace

import (
	"path/filepath"
	"testing"
)

func traceFiles(t *testing.T) []string {
	var files []string
	for _, pat := range []string{
		"../../testdata/traces/*.json.gz",
		"../../testdata/perf_trace.json.gz",
		"../../testdata/truth/traces/*.json",
	} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 40 {
		t.Fatalf("found %d trace files; testdata/ or testdata/truth is missing", len(files))
	}
	return files
}

// TestConformance replays every recorded trace and compares every
// memory_stats() key PyTorch reported after every op, the OOM texts, and
// the layouts.
func TestConformance(t *testing.T) {
	for _, f := range traceFiles(t) {
		name := filepath.Base(f)
		t.Run(name, func(t *testing.T) {
			tr, err := Load(f)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Setup(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Check(tr, a, All)
			if err != nil {
				t.Fatal(err)
			}
			if res.First != nil {
				t.Errorf("%s", res.First)
			}
			if res.Compared < 1000 {
				t.Errorf("only %d values compared", res.Compared)
			}
		})
	}
}
