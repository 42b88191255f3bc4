package plot

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// A long run keeps at most maxPoints points of equal span; its one peak
// survives every merge with its label, and the last point ends with the
// last step's figures.
func TestHistoryBoundedKeepsThePeak(t *testing.T) {
	const steps, peakAt = 1_000_003, 777_777
	var h History
	for i := 1; i <= steps; i++ {
		s := Step{Label: fmt.Sprintf("%d: x = zeros 16 cpu", i), Allocated: uint64(i % 7), Reserved: 1 << 20, Mark: 2 * i}
		if i == peakAt {
			s.Label, s.Allocated, s.Reserved = "peak", 1<<30, 2<<30
		}
		h.Add(s)
	}
	if h.Steps() != steps || len(h) > maxPoints || len(h) < maxPoints/2 {
		t.Fatalf("%d points for %d steps (Steps() = %d), want %d to %d", len(h), steps, h.Steps(), maxPoints/2, maxPoints)
	}
	next := 1
	for i, p := range h {
		if p.First != next || (i < len(h)-1 && p.Count != h[0].Count) || p.Count > h[0].Count {
			t.Fatalf("point %d covers %d+%d, want it to start at %d with span %d", i, p.First, p.Count, next, h[0].Count)
		}
		next += p.Count
		if in := peakAt >= p.First && peakAt < p.First+p.Count; in != (p.Peak.Reserved == 2<<30) || in != (p.Peak.Label == "peak") || in != (p.Peak.Allocated == 1<<30) {
			t.Errorf("point %d (steps %d+%d): peak %+v", i, p.First, p.Count, p.Peak)
		}
	}
	last := h[len(h)-1]
	if last.Last.Allocated != steps%7 || last.Mark != 2*steps || last.Last.Label != "" {
		t.Errorf("last point ends with %+v mark %d, want the last step's figures and mark", last.Last, last.Mark)
	}
}

// Fewer steps than maxPoints are kept one point each, as given.
func TestHistoryShortIsExact(t *testing.T) {
	var h History
	for i := range 5 {
		h.Add(Step{Label: fmt.Sprint(i), Reserved: uint64(i)})
	}
	for i, p := range h {
		if p.First != i+1 || p.Count != 1 || p.Peak.Label != fmt.Sprint(i) || p.Last.Reserved != uint64(i) {
			t.Errorf("point %d = %+v", i, p)
		}
	}
}

// A megabyte-long label is kept short, cut at a rune's start.
func TestHistoryLabelsAreBounded(t *testing.T) {
	var h History
	h.Add(Step{Label: "x" + strings.Repeat("é", 1<<20)})
	l := h[0].Peak.Label
	if len(l) > maxLabel+len("…") || !utf8.ValidString(l) || !strings.HasSuffix(l, "…") {
		t.Errorf("label of %d bytes (valid %v): %q...", len(l), utf8.ValidString(l), l[:min(len(l), 20)])
	}
}
