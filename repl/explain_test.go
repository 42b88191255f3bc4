package repl

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/explain"
	"github.com/gpumemrepl/gpumemrepl/engine"
)

// explainSession runs src as a .gpumem session that goes on after
// errors and returns its output.
func explainSession(t *testing.T, src string) string {
	t.Helper()
	s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h200"], FakeHost: true})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	r := &Runner{Session: s, Out: &out, Err: &out, File: "s.gpumem", KeepGoing: true}
	r.GpumemScript(strings.NewReader(src))
	return out.String()
}

// At the prompt a block live at the OOM and freed since is told by its
// line; the empty_cache() candidate goes before the failing statement,
// named by its line; the OOM's figures are the session's own.
func TestExplainSession(t *testing.T) {
	out := explainSession(t, `set_per_process_memory_fraction 0.01
x = zeros 300x1024x1024 cuda
del x
a = zeros 125x1024x1024 cuda
b = zeros 150x1024x1024 cuda
del a
big = zeros 200x1024x1024 cuda
del b
explain json
`)
	i := strings.Index(out, "{")
	if i < 0 {
		t.Fatalf("no JSON in\n%s", out)
	}
	var d explain.Diagnosis
	if err := json.NewDecoder(strings.NewReader(out[i:])).Decode(&d); err != nil {
		t.Fatal(err)
	}
	if len(d.Holders) != 1 || d.Holders[0].Label != "s.gpumem:5, freed since" {
		t.Errorf("holders %+v, want b's block, freed since, by its line", d.Holders)
	}
	c := d.Candidates[0].Change
	if c.EmptyCacheBefore == nil || *c.EmptyCacheBefore != d.At.Op || c.EmptyCacheWhere != "s.gpumem:7" {
		t.Errorf("empty_cache() candidate %+v, want before op %d, line 7", c, d.At.Op)
	}
	if d.At.LimitBytes == nil || d.At.RequestedBytes != 800<<20 || d.Fix == nil {
		t.Errorf("at %+v, fix %+v", d.At, d.Fix)
	}
}

// explain before CUDA is used, or of a device the session lacks, is an
// error, not a diagnosis.
func TestExplainWithoutHistory(t *testing.T) {
	out := explainSession(t, "explain\nx = zeros 4 cuda\nexplain 3\n")
	for _, want := range []string{"cuda:0 has not been used: no history", "invalid device ordinal"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
