// Package plot writes a self-contained HTML page (no network, no script)
// of a session's or a replay's memory: allocated, reserved and
// driver-used over the steps, each step's command on hover; a per-tensor
// timeline, each allocation a band over the steps it lived through, as
// memory_viz's Active Memory Timeline; and the device's segments and
// blocks at one step.
package plot

import (
	"fmt"
	"html"
	"io"
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
)

// Step is one point of the chart.
type Step struct {
	Label     string // the command or op
	Allocated uint64
	Reserved  uint64
	Driver    uint64
	HasDriver bool
	// Mark is where the device's allocation record stood after the step
	// (its length): it places the timeline's Bands among the steps.
	Mark int
}

// Page is what the page shows.
type Page struct {
	Title string
	// History is the steps, kept compactly (a session's); when it is
	// nil, Steps are (a replay's ops).
	History History
	Steps   []Step
	// Bands are the per-tensor timeline's allocations, in the order
	// made, and Rest, at each of History's points, the bytes of the
	// allocations not among them that are live after its last step.
	// With neither there is no timeline.
	Bands      []Band
	Rest       []uint64
	Segments   []allocator.SegmentInfo
	SegmentsAt string // which step the segments are of
}

// Chart geometry, in SVG units.
const (
	width, height       = 1100.0, 380.0
	left, right, top    = 90.0, 20.0, 20.0
	bottom              = 40.0
	colorAllocated      = "#1f77b4"
	colorReserved       = "#ff7f0e"
	colorDriver         = "#7f7f7f"
	segmentRow, barSpan = 18.0, 900.0
)

// Save writes the page to a file, whole or not at all (see fileio).
func Save(path string, p Page) error {
	return fileio.Write(path, func(w io.Writer) error { return Write(w, p) })
}

// Write writes the page.
func Write(w io.Writer, p Page) error {
	h := p.History
	if h == nil {
		for _, s := range p.Steps {
			h.Add(s)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>body{font:14px sans-serif;margin:20px;color:#222}h1{font-size:18px}h2{font-size:16px;margin-top:28px}
.legend span{margin-right:18px}.sw{display:inline-block;width:14px;height:4px;vertical-align:middle;margin-right:5px}
svg text{font:11px sans-serif;fill:#444}svg text.band{fill:#fff;pointer-events:none}</style></head><body>
<h1>%s</h1>
`, html.EscapeString(p.Title), html.EscapeString(p.Title))
	fmt.Fprintf(&b, "<p>%d steps", h.Steps())
	if len(h) > 0 && h[0].Count > 1 {
		fmt.Fprintf(&b, " (%d points drawn, each the peak of %d steps)", len(h), h[0].Count)
	}
	b.WriteString(".</p>\n<h2>Memory after each step</h2>\n")
	b.WriteString(`<div class="legend"><span><i class="sw" style="background:` + colorAllocated + `"></i>allocated</span><span><i class="sw" style="background:` + colorReserved + `"></i>reserved</span>`)
	if hasDriver(h) {
		b.WriteString(`<span><i class="sw" style="background:` + colorDriver + `"></i>driver-used</span>`)
	}
	b.WriteString("<span>hover a point for its step</span></div>\n")
	chart(&b, h)
	if len(p.Bands) > 0 || anyBytes(p.Rest) {
		b.WriteString("<h2>Active allocations over the steps</h2>\n")
		rest := make([]uint64, len(h)) // one total a point, whatever was given
		copy(rest, p.Rest)
		timeline(&b, h, p.Bands, rest)
	}
	if len(p.Segments) > 0 {
		fmt.Fprintf(&b, "<h2>Segments %s</h2>\n", html.EscapeString(p.SegmentsAt))
		segmentMap(&b, p.Segments)
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func hasDriver(h History) bool {
	return slices.ContainsFunc(h, func(p Point) bool { return p.Peak.HasDriver })
}

// stepAxis maps steps to x: step n's figures are drawn at n, the left
// edge is before the first step.
type stepAxis struct{ steps int }

func (a stepAxis) x(step float64) float64 {
	return left + step/float64(max(a.steps, 1))*(width-left-right)
}

// roundSteps are the spacings of step numbers, times a power of ten.
var roundSteps = [...]int{1, 2, 5}

// ticks draws the step numbers under a chart whose base line is at y:
// at most ten, at round numbers.
func (a stepAxis) ticks(b *strings.Builder, y float64) {
	every := 1
	for pow, i := 1, 1; a.steps/every > 10; i++ {
		if i == len(roundSteps) {
			i, pow = 0, pow*10
		}
		every = roundSteps[i] * pow
	}
	for n := every; n <= a.steps; n += every {
		x := a.x(float64(n))
		fmt.Fprintf(b, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="#999"/><text x="%.1f" y="%.0f" text-anchor="middle">%d</text>`+"\n", x, y, x, y+4, x, y+15, n)
	}
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="middle">step</text>`+"\n", (left+width-right)/2, y+32)
}

// chart draws the three lines over the steps, with axes: each point at
// its last step, at its peak.
func chart(b *strings.Builder, h History) {
	var top64 uint64
	for _, p := range h {
		top64 = max(top64, p.Peak.Reserved, p.Peak.Allocated, p.Peak.Driver)
	}
	ax := stepAxis{h.Steps()}
	x := func(p Point) float64 { return ax.x(float64(p.First + p.Count - 1)) }
	openSVG(b, "chart", height+20)
	y := axes(b, ax, top64, height)
	line := func(color string, dashed bool, v func(Step) (uint64, bool)) {
		var pts []string
		for _, p := range h {
			if val, ok := v(p.Peak); ok {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(p), y(val)))
			}
		}
		if len(pts) == 0 {
			return
		}
		dash := ""
		if dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(b, `<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>`+"\n", color, dash, strings.Join(pts, " "))
	}
	line(colorDriver, true, func(s Step) (uint64, bool) { return s.Driver, s.HasDriver })
	line(colorReserved, false, func(s Step) (uint64, bool) { return s.Reserved, true })
	line(colorAllocated, false, func(s Step) (uint64, bool) { return s.Allocated, true })
	for _, p := range h {
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" fill-opacity="0.01"><title>%s</title></circle>`+"\n", x(p), y(p.Peak.Reserved), colorReserved, html.EscapeString(pointTip(p)))
	}
	b.WriteString("</svg>\n")
}

// pointTip is a point's hover text: its step (or steps, their peaks
// and the figures after the last) and figures.
func pointTip(p Point) string {
	figures := func(s Step) string {
		t := fmt.Sprintf("allocated %s, reserved %s", allocator.FormatSize(s.Allocated), allocator.FormatSize(s.Reserved))
		if s.HasDriver {
			t += ", driver " + allocator.FormatSize(s.Driver)
		}
		return t
	}
	if p.Count == 1 {
		return fmt.Sprintf("step %d: %s\n%s", p.First, p.Peak.Label, figures(p.Peak))
	}
	return fmt.Sprintf("%s, most reserved at %s\npeak %s\nafter step %d: %s", stepsOf(p), p.Peak.Label, figures(p.Peak), p.First+p.Count-1, figures(p.Last))
}

// openSVG starts an SVG of the chart's width.
func openSVG(b *strings.Builder, id string, h float64) {
	fmt.Fprintf(b, `<svg id="%s" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" xmlns="http://www.w3.org/2000/svg">`+"\n", id, width, h, width, h)
}

// axes draws a chart's axes over the steps and up to top64 bytes, with
// the step numbers and gridlines at a power of two of bytes (at most
// six), and returns where bytes go on it.
func axes(b *strings.Builder, ax stepAxis, top64 uint64, chartHeight float64) func(uint64) float64 {
	top64 = max(top64, 1)
	base := chartHeight - bottom
	y := func(v uint64) float64 { return base - float64(v)/float64(top64)*(base-top) }
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#999"/>`, left, base, width-right, base)
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#999"/>`+"\n", left, top, left, base)
	grid := uint64(1)
	for grid*5 < top64 {
		grid *= 2
	}
	for v := uint64(0); v <= top64; v += grid {
		fmt.Fprintf(b, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text><line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#eee"/>`+"\n",
			left-6, y(v)+4, allocator.FormatSize(v), left, y(v), width-right, y(v))
		if v > top64-grid {
			break // the next would pass 2^64
		}
	}
	ax.ticks(b, base)
	return y
}

// segmentMap draws each segment as a bar of its blocks: allocated blue,
// cached (free) light.
func segmentMap(b *strings.Builder, segs []allocator.SegmentInfo) {
	var biggest uint64 = 1
	for _, s := range segs {
		biggest = max(biggest, s.TotalSize)
	}
	h := segmentRow*float64(len(segs)) + 10
	fmt.Fprintf(b, `<svg id="segments" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" xmlns="http://www.w3.org/2000/svg">`+"\n", left+barSpan+120, h, left+barSpan+120, h)
	for i, s := range segs {
		yy := float64(i) * segmentRow
		pool := "large"
		if s.Small {
			pool = "small"
		}
		fmt.Fprintf(b, `<text x="%.0f" y="%.1f" text-anchor="end">%s %s</text>`+"\n", left-6, yy+12, pool, allocator.FormatSize(s.TotalSize))
		for _, blk := range s.Blocks {
			x0 := left + float64(blk.Address-s.Address)/float64(biggest)*barSpan
			wd := max(float64(blk.Size)/float64(biggest)*barSpan, 0.5)
			fill := "#dbe9f6"
			if blk.State == allocator.StateAllocated {
				fill = colorAllocated
			}
			fmt.Fprintf(b, `<rect x="%.2f" y="%.1f" width="%.2f" height="%.0f" fill="%s" stroke="#fff" stroke-width="0.5"><title>%s %s at +%d</title></rect>`+"\n",
				x0, yy+2, wd, segmentRow-4, fill, html.EscapeString(blk.State), allocator.FormatSize(blk.Size), blk.Address-s.Address)
		}
	}
	b.WriteString("</svg>\n")
}
