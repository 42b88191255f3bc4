package allocator

import (
	"os"
	"testing"
)

// testdata/summary_alloc1000.golden is what PyTorch 2.11 printed for
// memory_summary() after one 1000-byte allocation on a fresh H200
// (scripts/probe_torch.py).
func TestSummaryMatchesPyTorch(t *testing.T) {
	want, err := os.ReadFile("testdata/summary_alloc1000.golden")
	if err != nil {
		t.Fatal(err)
	}
	a := newTest(t, "")
	if _, err := a.Malloc(1000); err != nil {
		t.Fatal(err)
	}
	s := a.Stats()
	if got := s.Summary(0, false); got != string(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}
