// Tests of the HTML page of plot. No recording is the oracle: the page is
// checked for what it draws (a band per allocation, stacked as PyTorch's
// memory_viz stacks them) and that it reaches for nothing outside itself;
// cmd/gpumemrepl opens it in chromium.
package plot

import (
	"encoding/json"
	"strings"
	"testing"
)

const mib = 1 << 20

// written writes p and reads back the JSON the page draws.
func written(t *testing.T, p Page) (string, map[string]any) {
	t.Helper()
	var b strings.Builder
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	const open = `<script id="data" type="application/json">`
	i := strings.Index(out, open) + len(open)
	j := strings.Index(out[i:], "</script>")
	var d map[string]any
	if err := json.Unmarshal([]byte(out[i:i+j]), &d); err != nil {
		t.Fatal(err)
	}
	return out, d
}

// The page is one file: its title escaped, its script and style inside,
// nothing fetched; a name with </script> in it stays inside the data.
func TestPageSelfContained(t *testing.T) {
	p := Page{Title: "a <b> & c", Events: 4, Categories: []string{"x"}, Allocs: []Alloc{{Size: mib, Made: 0, Freed: 2, Name: "</script><script>alert(1)</script>"}}}
	out, d := written(t, p)
	for _, bad := range []string{"<script src", "<link", "http://", "https://", "<b>"} {
		if strings.Contains(out, bad) {
			t.Errorf("the page has %q", bad)
		}
	}
	if !strings.Contains(out, "<title>a &lt;b&gt; &amp; c</title>") || strings.Count(out, "</script>") != 2 {
		t.Errorf("title or scripts wrong:\n%s", out[:300])
	}
	if s := d["strings"].([]any); len(s) != 1 || s[0] != p.Allocs[0].Name {
		t.Errorf("strings %v", s)
	}
}

// Past MaxBands the largest allocations are drawn (ties: the longer
// lived) and the others summed by category at columns instants, each
// the most of its stretch; with fewer, every one is drawn.
func TestKeepAndSumRest(t *testing.T) {
	var allocs []Alloc
	for i := range MaxBands + 10 {
		size := uint64(mib)
		if i < 10 {
			size = 1024 // the ten smallest: summed
		}
		allocs = append(allocs, Alloc{Size: size, Made: 2 * i, Freed: 2*i + 1, Category: i % 2})
	}
	_, d := written(t, Page{Events: 2 * len(allocs), Allocs: allocs, Categories: []string{"a", "b"}})
	bands := d["bands"].([]any)
	if len(bands) != MaxBands {
		t.Fatalf("%d bands, want %d", len(bands), MaxBands)
	}
	for _, b := range bands {
		if b.([]any)[1].(float64) != mib {
			t.Fatalf("a small allocation drawn: %v", b)
		}
	}
	rest := d["rest"].(map[string]any)
	if rest["count"].(float64) != 10 {
		t.Errorf("rest count %v, want 10", rest["count"])
	}
	var most float64
	for _, c := range rest["bytes"].([]any) {
		var sum float64
		for _, v := range c.([]any) {
			sum += v.(float64)
		}
		most = max(most, sum)
	}
	if most != 1024 {
		t.Errorf("the summed column holds at most %v bytes, want 1024 (one small allocation at a time)", most)
	}
	_, d = written(t, Page{Events: 4, Allocs: allocs[:2], Categories: []string{"a", "b"}})
	if n := len(d["bands"].([]any)); n != 2 {
		t.Errorf("%d bands of 2 allocations", n)
	}
}

// A history's points carry each step's peak inside it and the figures
// after its last step.
func TestStepsCarryPeaks(t *testing.T) {
	var h History
	h.Add(Step{Label: "1: a", Allocated: mib, Peak: 3 * mib, Reserved: 4 * mib, Mark: 2})
	h.Add(Step{Label: "2: b", Allocated: 2 * mib, Reserved: 4 * mib, Mark: 3})
	_, d := written(t, Page{History: h})
	steps := d["steps"].([]any)
	first := steps[0].(map[string]any)
	if len(steps) != 2 || first["peak"].(float64) != 3*mib || first["allocated"].(float64) != mib || d["events"].(float64) != 3 {
		t.Errorf("steps %v, events %v", steps, d["events"])
	}
}
