// Package plot writes a self-contained HTML page (no network, no script)
// of a session's or a replay's memory: allocated, reserved and
// driver-used over the steps, each step's command on hover, and the
// device's segments and blocks at one step.
package plot

import (
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/engine/outfile"
)

// Step is one point of the chart.
type Step struct {
	Label     string // the command or op
	Allocated uint64
	Reserved  uint64
	Driver    uint64
	HasDriver bool
}

// Page is what the page shows.
type Page struct {
	Title      string
	Steps      []Step
	Segments   []allocator.SegmentInfo
	SegmentsAt string // which step the segments are of
}

// maxPoints bounds the points drawn: longer histories keep, per bucket,
// the step with the most reserved memory (peaks stay visible).
const maxPoints = 2000

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

// Save writes the page to a file, whole or not at all (see outfile).
func Save(path string, p Page) error {
	return outfile.Write(path, func(w io.Writer) error { return Write(w, p) })
}

// Write writes the page.
func Write(w io.Writer, p Page) error {
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>body{font:14px sans-serif;margin:20px;color:#222}h1{font-size:18px}h2{font-size:16px;margin-top:28px}
.legend span{margin-right:18px}.sw{display:inline-block;width:14px;height:4px;vertical-align:middle;margin-right:5px}
svg text{font:11px sans-serif;fill:#444}</style></head><body>
<h1>%s</h1>
`, html.EscapeString(p.Title), html.EscapeString(p.Title))
	steps := downsample(p.Steps)
	b.WriteString(`<div class="legend"><span><i class="sw" style="background:` + colorAllocated + `"></i>allocated</span><span><i class="sw" style="background:` + colorReserved + `"></i>reserved</span>`)
	if hasDriver(steps) {
		b.WriteString(`<span><i class="sw" style="background:` + colorDriver + `"></i>driver-used</span>`)
	}
	fmt.Fprintf(&b, "</div>\n<p>%d steps", len(p.Steps))
	if len(steps) < len(p.Steps) {
		fmt.Fprintf(&b, " (%d drawn: the peak of each stretch)", len(steps))
	}
	b.WriteString("; hover a point for its step.</p>\n")
	chart(&b, steps)
	if len(p.Segments) > 0 {
		fmt.Fprintf(&b, "<h2>Segments %s</h2>\n", html.EscapeString(p.SegmentsAt))
		segmentMap(&b, p.Segments)
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func hasDriver(steps []Step) bool {
	for _, s := range steps {
		if s.HasDriver {
			return true
		}
	}
	return false
}

func downsample(steps []Step) []Step {
	if len(steps) <= maxPoints {
		return steps
	}
	per := (len(steps) + maxPoints - 1) / maxPoints
	var out []Step
	for i := 0; i < len(steps); i += per {
		best := i
		for k := i; k < min(i+per, len(steps)); k++ {
			if steps[k].Reserved > steps[best].Reserved {
				best = k
			}
		}
		out = append(out, steps[best])
	}
	return out
}

// chart draws the three lines over the steps, with axes.
func chart(b *strings.Builder, steps []Step) {
	var top64 uint64 = 1
	for _, s := range steps {
		top64 = max(top64, s.Reserved, s.Allocated, s.Driver)
	}
	x := func(i int) float64 {
		if len(steps) < 2 {
			return left
		}
		return left + float64(i)*(width-left-right)/float64(len(steps)-1)
	}
	y := func(v uint64) float64 { return height - bottom - float64(v)/float64(top64)*(height-top-bottom) }
	fmt.Fprintf(b, `<svg id="chart" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" xmlns="http://www.w3.org/2000/svg">`+"\n", width, height, width, height)
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#999"/>`, left, height-bottom, width-right, height-bottom)
	fmt.Fprintf(b, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#999"/>`+"\n", left, top, left, height-bottom)
	for k := 0; k <= 4; k++ {
		v := top64 * uint64(k) / 4
		fmt.Fprintf(b, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text><line x1="%.0f" y1="%.1f" x2="%.0f" y2="%.1f" stroke="#eee"/>`+"\n",
			left-6, y(v)+4, allocator.FormatSize(v), left, y(v), width-right, y(v))
	}
	fmt.Fprintf(b, `<text x="%.0f" y="%.0f" text-anchor="middle">step</text>`+"\n", (left+width-right)/2, height-8)
	line := func(color string, dashed bool, v func(Step) (uint64, bool)) {
		var pts []string
		for i, s := range steps {
			if val, ok := v(s); ok {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(val)))
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
	for i, s := range steps {
		tip := fmt.Sprintf("%s\nallocated %s, reserved %s", s.Label, allocator.FormatSize(s.Allocated), allocator.FormatSize(s.Reserved))
		if s.HasDriver {
			tip += ", driver " + allocator.FormatSize(s.Driver)
		}
		fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="4" fill="%s" fill-opacity="0.01"><title>%s</title></circle>`+"\n", x(i), y(s.Reserved), colorReserved, html.EscapeString(tip))
	}
	b.WriteString("</svg>\n")
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
