package plot

import (
	"fmt"
	"html"
	"slices"
	"sort"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// Band is one allocation of the per-tensor timeline.
type Band struct {
	Size uint64
	// Made and Freed are the positions of its allocation and its free in
	// the device's record, which the Steps' Marks divide into steps;
	// Freed is negative while it lives.
	Made, Freed int
	// Source is the file:line of the code that made it and Function
	// that code's function; without them the band is named by its step.
	Source, Function string
}

// MaxBands is how many allocations a timeline shows one by one: a
// caller passes the largest this many and sums the rest.
const MaxBands = 300

// timelineHeight is the timeline chart's height, in SVG units.
const timelineHeight = 420.0

// bandColors cycle over the bands, in the order made.
var bandColors = [...]string{"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#6b8fd6"}

// minBandWidth is the narrowest a band is drawn, in SVG units.
const minBandWidth = 2.0

// colorRest is the summed small allocations.
const colorRest = "#c9c9c9"

// vertex is a corner of a band's lower edge, in steps and bytes.
type vertex struct {
	x    float64
	base uint64
}

// layout is the bands stacked as memory_viz stacks them: each new
// allocation on top of those live, those above a freed one moving down
// into its place at the free.
type layout struct {
	edges  [][]vertex // per band, its lower edge
	ends   []float64  // per band, where it ends
	keptAt []uint64   // per point, the bands' bytes after its last step
	top    uint64     // the most bytes stacked, the rest included
}

// timeline draws each band over the steps it lived through, stacked in
// the order made, its name inside when it fits, its source, size and
// steps on hover; the rest of the allocations in gray on top.
func timeline(b *strings.Builder, h History, bands []Band, rest []uint64) {
	ax := stepAxis{h.Steps()}
	l := stack(h, bands, rest)
	b.WriteString("<p>Each band is one allocation of cuda:0, from where it was made to where it was freed, stacked in the order made (as memory_viz's Active Memory Timeline); hover a band for its source line and size.")
	if anyBytes(rest) {
		fmt.Fprintf(b, " The %d largest are shown one by one, the others in gray, summed after each step.", len(bands))
	}
	b.WriteString("</p>\n")
	openSVG(b, "timeline", timelineHeight+20)
	y := axes(b, ax, l.top, timelineHeight)
	for i, bd := range bands {
		e := l.edges[i]
		if e == nil {
			continue
		}
		// A short life still shows: a 1 GiB tensor of one step in a
		// million is the peak a reader looks for.
		x0 := ax.x(e[0].x)
		x1 := max(ax.x(l.ends[i]), x0+minBandWidth)
		var pts []string
		for _, v := range e {
			pts = append(pts, fmt.Sprintf("%.2f,%.1f", ax.x(v.x), y(v.base)))
		}
		pts = append(pts, fmt.Sprintf("%.2f,%.1f", x1, y(e[len(e)-1].base)))
		pts = append(pts, fmt.Sprintf("%.2f,%.1f", x1, y(e[len(e)-1].base+bd.Size)))
		for k := len(e) - 1; k >= 0; k-- {
			pts = append(pts, fmt.Sprintf("%.2f,%.1f", ax.x(e[k].x), y(e[k].base+bd.Size)))
		}
		name := bandName(h, bd)
		fmt.Fprintf(b, `<polygon class="alloc" fill="%s" stroke="#fff" stroke-width="0.3" points="%s"><title>%s</title></polygon>`+"\n",
			bandColors[i%len(bandColors)], strings.Join(pts, " "), html.EscapeString(bandTip(h, bd, name)))
		if yb, yt := y(e[0].base), y(e[0].base+bd.Size); yb-yt >= 13 && x1-x0 >= 40 {
			fmt.Fprintf(b, `<text class="band" x="%.1f" y="%.1f">%s</text>`+"\n", x0+3, (yb+yt)/2+4, html.EscapeString(fitText(name, x1-x0-6)))
		}
	}
	restBars(b, h, l, rest, ax, y)
	b.WriteString("</svg>\n")
}

// stack lays the bands out over the points' steps.
func stack(h History, bands []Band, rest []uint64) layout {
	l := layout{edges: make([][]vertex, len(bands)), ends: make([]float64, len(bands)), keptAt: make([]uint64, len(h))}
	type change struct {
		at   int // position in the record
		band int
		free bool
	}
	var changes []change
	for i, bd := range bands {
		if eventX(h, bd.Made) < 0 {
			continue // made after the last step: not drawn
		}
		changes = append(changes, change{at: bd.Made, band: i})
		l.ends[i] = float64(h.Steps())
		if bd.Freed >= 0 && eventX(h, bd.Freed) >= 0 {
			changes = append(changes, change{at: bd.Freed, band: i, free: true})
		}
	}
	sort.SliceStable(changes, func(i, j int) bool { return changes[i].at < changes[j].at })
	var live []int // bands, bottom up
	var height uint64
	next := 0
	for p := range h {
		for ; next < len(changes) && changes[next].at < h[p].Mark; next++ {
			c := changes[next]
			x := eventX(h, c.at)
			if !c.free {
				l.edges[c.band] = []vertex{{x, height}}
				live = append(live, c.band)
				height += bands[c.band].Size
				l.top = max(l.top, height+rest[p])
				continue
			}
			k := slices.Index(live, c.band)
			if k < 0 {
				continue // freed before it was made: not from one record
			}
			l.ends[c.band] = x
			for _, above := range live[k+1:] {
				e := l.edges[above]
				base := e[len(e)-1].base
				l.edges[above] = append(e, vertex{x, base}, vertex{x, base - bands[c.band].Size})
			}
			live = slices.Delete(live, k, k+1)
			height -= bands[c.band].Size
		}
		l.keptAt[p] = height
		l.top = max(l.top, height+rest[p])
	}
	return l
}

// eventX places position e of the record in steps: inside the step (or
// point) whose events include it, spread evenly; -1 past the last step.
func eventX(h History, e int) float64 {
	p := pointAt(h, e)
	if p < 0 {
		return -1
	}
	prev := 0
	if p > 0 {
		prev = h[p-1].Mark
	}
	frac := (float64(e-prev) + 0.5) / float64(h[p].Mark-prev)
	return float64(h[p].First-1) + frac*float64(h[p].Count)
}

// pointAt is the index of the point a position of the record falls in,
// -1 past the last step.
func pointAt(h History, e int) int {
	p := sort.Search(len(h), func(i int) bool { return h[i].Mark > e })
	if p == len(h) {
		return -1
	}
	return p
}

// stepRange names steps first to last: "step 3" or "steps 3-4".
func stepRange(first, last int) string {
	if last > first {
		return fmt.Sprintf("steps %d-%d", first, last)
	}
	return fmt.Sprintf("step %d", first)
}

// stepsOf names a point's steps.
func stepsOf(p Point) string { return stepRange(p.First, p.First+p.Count-1) }

// bandName names a band by its source line, or else by the step that
// made it (its label when its point is that one step).
func bandName(h History, bd Band) string {
	if bd.Source != "" {
		return bd.Source
	}
	p := h[pointAt(h, bd.Made)]
	if p.Count == 1 {
		return p.Peak.Label
	}
	return stepsOf(p)
}

// bandTip is a band's hover text: name, function, size and the steps it
// was made and freed in.
func bandTip(h History, bd Band, name string) string {
	t := name
	if bd.Function != "" {
		t += " in " + bd.Function
	}
	made := h[pointAt(h, bd.Made)]
	t += "\n" + allocator.FormatSize(bd.Size) + "\nmade in " + stepsOf(made)
	if made.Count == 1 && made.Peak.Label != name {
		t += " (" + made.Peak.Label + ")"
	}
	if p := pointAt(h, bd.Freed); bd.Freed >= 0 && p >= 0 {
		t += ", freed in " + stepsOf(h[p])
	} else {
		t += ", live at the end"
	}
	return t
}

// fitText cuts a name to about the width it has (11px text).
func fitText(s string, width float64) string {
	n := int(width / 6.5)
	if r := []rune(s); len(r) > n {
		return string(r[:max(n-1, 0)]) + "…"
	}
	return s
}

// restBars draws the other allocations, after each point's last step,
// on top of the bands: one bar per run of points alike.
func restBars(b *strings.Builder, h History, l layout, rest []uint64, ax stepAxis, y func(uint64) float64) {
	for p := 0; p < len(h); {
		q := p + 1
		for q < len(h) && rest[q] == rest[p] && l.keptAt[q] == l.keptAt[p] {
			q++
		}
		if rest[p] > 0 {
			x0, x1 := ax.x(float64(h[p].First-1)), ax.x(float64(h[q-1].First+h[q-1].Count-1))
			y0, y1 := y(l.keptAt[p]+rest[p]), y(l.keptAt[p])
			steps := stepRange(h[p].First, h[q-1].First+h[q-1].Count-1)
			fmt.Fprintf(b, `<rect class="rest" x="%.2f" y="%.1f" width="%.2f" height="%.1f" fill="%s"><title>%s of smaller allocations, %s</title></rect>`+"\n",
				x0, y0, x1-x0, y1-y0, colorRest, allocator.FormatSize(rest[p]), steps)
		}
		p = q
	}
}

// anyBytes reports whether any of the totals is above zero.
func anyBytes(totals []uint64) bool {
	return slices.ContainsFunc(totals, func(v uint64) bool { return v > 0 })
}
