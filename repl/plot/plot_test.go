// Tests of the HTML page of plot. No recording is the oracle: the page is
// checked for what it draws (a band per allocation, stacked as PyTorch's
// memory_viz stacks them) and that it reaches for nothing outside itself;
// cmd/gpumemrepl opens it in chromium.
package plot

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

const mib = 1 << 20

// page is six steps, two record positions each, with three bands (one
// freed under another, one without a source, one made after the last
// step) and the rest at each step.
func page(t *testing.T) (string, Page) {
	t.Helper()
	var h History
	for i := 1; i <= 6; i++ {
		h.Add(Step{Label: fmt.Sprintf("%d: step %d", 10+i, i), Allocated: uint64(i) * mib, Reserved: 8 * mib, Mark: 2 * i})
	}
	p := Page{
		Title:   "gpumemrepl: train.py",
		History: h,
		Bands: []Band{
			{Size: 4 * mib, Made: 0, Freed: 6, Source: "train.py:3", Function: "setup"}, // steps 1-4
			{Size: 2 * mib, Made: 2, Freed: -1},                                         // step 2 on, no source
			{Size: mib, Made: 5, Freed: 12, Source: "train.py:7"},                       // step 3, freed after the last step
			{Size: mib, Made: 13, Freed: -1, Source: "train.py:9"},                      // after the last step
		},
		Rest: []uint64{0, 0, 512 << 10, 512 << 10, 0, 0},
	}
	var b strings.Builder
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	return b.String(), p
}

var (
	polygonRx = regexp.MustCompile(`<polygon class="alloc"[^>]*><title>([^<]*)</title>`)
	restRx    = regexp.MustCompile(`<rect class="rest"[^>]*><title>([^<]*)</title>`)
	tickRx    = regexp.MustCompile(`<text x="[0-9.]+" y="[0-9.]+" text-anchor="middle">([0-9]+)</text>`)
)

// The page has its title, step numbers under both charts, a band per
// allocation made during the steps with its source, size and steps on
// hover, and the rest in gray.
func TestPageStructure(t *testing.T) {
	out, _ := page(t)
	for _, want := range []string{"<title>gpumemrepl: train.py</title>", "<h1>gpumemrepl: train.py</h1>", "<h2>Memory after each step</h2>", "<h2>Active allocations over the steps</h2>", "<p>6 steps.</p>"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in the page", want)
		}
	}
	var ticks []string
	for _, m := range tickRx.FindAllStringSubmatch(out, -1) {
		ticks = append(ticks, m[1])
	}
	if got, want := strings.Join(ticks, " "), "1 2 3 4 5 6 1 2 3 4 5 6"; got != want {
		t.Errorf("step numbers %q, want %q (both charts)", got, want)
	}
	var tips []string
	for _, m := range polygonRx.FindAllStringSubmatch(out, -1) {
		tips = append(tips, m[1])
	}
	want := []string{
		"train.py:3 in setup\n4.00 MiB\nmade in step 1 (11: step 1), freed in step 4",
		"12: step 2\n2.00 MiB\nmade in step 2, live at the end",
		"train.py:7\n1024.00 KiB\nmade in step 3 (13: step 3), live at the end",
	}
	if strings.Join(tips, "|") != strings.Join(want, "|") {
		t.Errorf("band hovers\n%q\nwant\n%q", tips, want)
	}
	rest := restRx.FindAllStringSubmatch(out, -1)
	if len(rest) != 2 || rest[0][1] != "512.00 KiB of smaller allocations, step 3" || rest[1][1] != "512.00 KiB of smaller allocations, step 4" {
		t.Errorf("rest bars %q, want one each for steps 3 and 4 (on bands of other heights)", rest)
	}
	if !strings.Contains(out, `<text class="band"`) || !strings.Contains(out, ">train.py:3</text>") {
		t.Error("the largest band is not named inside")
	}
}

// The page reaches for nothing outside itself: no script, no link, no
// address but SVG's namespace.
func TestPageSelfContained(t *testing.T) {
	out, _ := page(t)
	for _, bad := range []string{"<script", "src=", "href=", "<link", "url("} {
		if strings.Contains(out, bad) {
			t.Errorf("the page has %q", bad)
		}
	}
	if n, ns := strings.Count(out, "http"), strings.Count(out, `xmlns="http://www.w3.org/2000/svg"`); n != ns {
		t.Errorf("%d addresses, %d of them SVG's namespace", n, ns)
	}
}

// A band freed under another moves the one above down at the free, as
// memory_viz stacks them, and nothing stacks past the top.
func TestStackMovesBandsDown(t *testing.T) {
	_, p := page(t)
	l := stack(p.History, p.Bands, p.Rest)
	above := l.edges[1]
	if len(above) != 3 || above[0].base != 4*mib || above[2].base != 0 || above[1].x != above[2].x || above[1].x != l.ends[0] {
		t.Errorf("the second band's lower edge %+v, the first ends at %v: want it down from 4 MiB to 0 where the first is freed", above, l.ends[0])
	}
	if l.edges[3] != nil {
		t.Errorf("a band made after the last step was laid out: %+v", l.edges[3])
	}
	if want := []uint64{4 * mib, 6 * mib, 7 * mib, 3 * mib, 3 * mib, 3 * mib}; fmt.Sprint(l.keptAt) != fmt.Sprint(want) {
		t.Errorf("bands' bytes after each step %v, want %v", l.keptAt, want)
	}
	if l.top != 7*mib+512<<10 {
		t.Errorf("top %d, want the bands and rest at step 3", l.top)
	}
}

// A record position falls inside its step: step n spans (n-1, n).
func TestEventX(t *testing.T) {
	_, p := page(t)
	for e := range 12 {
		step := e/2 + 1
		if x := eventX(p.History, e); x <= float64(step-1) || x >= float64(step) {
			t.Errorf("position %d at x %v, want inside step %d", e, x, step)
		}
	}
	if x := eventX(p.History, 12); x != -1 {
		t.Errorf("a position past the last step at %v, want -1", x)
	}
}

// Bands without the rest's totals, or with a free before the
// allocation, still make a page.
func TestPageOddBands(t *testing.T) {
	_, p := page(t)
	p.Rest = nil
	p.Bands = append(p.Bands, Band{Size: mib, Made: 7, Freed: 3})
	var b strings.Builder
	if err := Write(&b, p); err != nil {
		t.Fatal(err)
	}
	if n := len(polygonRx.FindAllString(b.String(), -1)); n != 4 {
		t.Errorf("%d bands drawn, want 4", n)
	}
	if restRx.MatchString(b.String()) {
		t.Error("rest bars drawn without totals")
	}
}
