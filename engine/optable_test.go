package engine

import (
	"slices"
	"strings"
	"testing"
)

// TestOpTable: every entry is declared once, runs (out of place or in
// place), has a memory rule, and a signature whose required parameters
// come before those with defaults; no name the tool refuses is one the
// table models.
func TestOpTable(t *testing.T) {
	if len(OpNames) != len(Ops) {
		t.Errorf("%d names for %d entries: one is declared twice", len(OpNames), len(Ops))
	}
	modelled := map[string]bool{}
	for _, n := range OpNames {
		d := Ops[n]
		if d.run == nil && d.runTuple == nil && d.inPlace == nil {
			t.Errorf("%s does not run", n)
		}
		if d.Memory == "" {
			t.Errorf("%s has no memory rule", n)
		}
		seenDefault := false
		for _, p := range d.Params {
			if p.Default == "" && seenDefault && !p.KeywordOnly {
				t.Errorf("%s: required %s after a parameter with a default", d.Signature(), p.Name)
			}
			seenDefault = seenDefault || p.Default != ""
		}
		for _, name := range d.Names() {
			modelled[name] = true
		}
	}
	for _, n := range NotModelled {
		if modelled[n] {
			t.Errorf("%s is refused as not modelled, but the table models it", n)
		}
	}
	if got, want := Ops["add"].Signature(), "torch.add(input, other, *, alpha=1)"; got != want {
		t.Errorf("add's signature %q, want %q", got, want)
	}
	if got := Ops["zero"].Names(); !slices.Equal(got, []string{"Tensor.zero_"}) {
		t.Errorf("zero_'s names %v", got)
	}
	if !strings.HasPrefix(Ops["randint"].Signature(), "torch.randint(low=0, high, size") {
		t.Errorf("randint's usage %q", Ops["randint"].Signature())
	}
}
