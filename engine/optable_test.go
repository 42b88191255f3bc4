package engine

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/ops.golden from the op table")

// TestOpTable: every entry is declared once, runs (out of place or in
// place), has a memory rule, and a signature whose required parameters
// come before those with defaults; no name the tool refuses is one the
// table models.
func TestOpTable(t *testing.T) {
	modelled := map[string]bool{}
	for _, d := range OpList() {
		n := d.Name
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

// TestOpsGolden: the op table is testdata/ops.golden, every entry in
// OpList's order: its names, its signature, its memory rule, its
// autocast policy and its named tuple. A change to the table shows as
// a diff of that file, to review (go test ./engine -run TestOpsGolden
// -update rewrites it).
func TestOpsGolden(t *testing.T) {
	var b strings.Builder
	b.WriteString("# The op table (engine.Ops), in engine.OpList's order (by name), as help reads it.\n")
	b.WriteString("# Rewritten by: go test ./engine -run TestOpsGolden -update\n")
	ops := OpList()
	for i, d := range ops {
		if i > 0 && ops[i-1].Name >= d.Name {
			t.Errorf("OpList has %s before %s", ops[i-1].Name, d.Name)
		}
		b.WriteString("\n" + d.Name + "\n    " + d.Signature() + "\n")
		b.WriteString("    names: " + strings.Join(d.Names(), ", ") + "\n")
		b.WriteString("    memory: " + d.Memory + "\n")
		if p := autocastPolicies[d.Name]; p != castNone {
			b.WriteString("    autocast: " + [...]string{castLower: "to the region's dtype", castFloat32: "to float32", castOptDType: "dtype=float32 unless given", castPromote: "to the widest floating dtype among its arguments"}[p] + "\n")
		}
		if d.ReturnType != "" {
			b.WriteString("    returns: torch.return_types." + d.ReturnType + "\n")
		}
	}
	const golden = "testdata/ops.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./engine -run TestOpsGolden -update writes it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("the op table differs from %s (-update rewrites it; review the diff):\n%s", golden, firstDiff(got, string(want)))
	}
}

// firstDiff is the first entry (a paragraph of the golden) where got
// and want differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n\n"), strings.Split(want, "\n\n")
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	at := func(ps []string) string {
		if i < len(ps) {
			return ps[i]
		}
		return "(nothing)"
	}
	return "the table has:\n" + at(g) + "\nthe golden has:\n" + at(w)
}
