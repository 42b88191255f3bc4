// Package plot writes a self-contained HTML page (no network: its
// script, style and data are inside) of a session's or a replay's
// memory, as memory_viz draws a snapshot and more: the active-memory
// timeline with each allocation a band, stacked in the order made and
// coloured by category, with its name, size, source line and stack on
// hover (click to pin); allocated and reserved over it; the segments
// over time; the steps beside it (click one for the state after it);
// zoom on a range of time; and the peak explained. A history of any
// length draws at once: the largest allocations are drawn one by one
// and the others summed by category at each of a bounded number of
// columns, which the page says.
package plot

import (
	"cmp"
	"container/heap"
	_ "embed"
	"encoding/json"
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
	Peak      uint64 // the most allocated during the step (0: Allocated)
	Reserved  uint64
	Driver    uint64
	HasDriver bool
	// Mark is where the device's allocation record stood after the step
	// (its length): it places the steps on the time axis.
	Mark int
}

// Alloc is one allocation of the record.
type Alloc struct {
	Addr, Size uint64
	// Made and Freed are the positions of its allocation and its free in
	// the record; Freed is negative while it lives.
	Made, Freed int
	Category    int // an index into Page.Categories
	// Name says what holds it (empty: unnamed); Where is its source
	// line and Stack its frames, innermost first, one a line.
	Name, Where, Stack string
}

// Span is one segment of the record, from its allocation to its free.
type Span struct {
	Addr, Size  uint64
	Made, Freed int // Freed negative while it lives
	Stream      uint64
}

// Page is what the page shows.
type Page struct {
	Title string
	// History is the steps, kept compactly (a session's); when it is
	// nil, Steps are.
	History History
	Steps   []Step
	// Events is the length of the record, the time axis.
	Events int
	// Allocs are the record's allocations, in the order made; Spans its
	// segments. Categories name Alloc.Category, with Note saying how they
	// were told.
	Allocs     []Alloc
	Spans      []Span
	Categories []string
	Note       string
	// Segments are the device's segments at the end (SegmentsAt says
	// when that is).
	Segments   []allocator.SegmentInfo
	SegmentsAt string
	// Breakdown is the peak explained (marshalled as JSON), or nil.
	Breakdown any
}

// MaxBands is how many allocations the timeline draws one by one (the
// largest; ties: the longer lived); the others are summed by category.
const MaxBands = 2500

// columns is how many sums of the allocations not drawn one by one the
// page holds: at each, the instant of its stretch of time where they
// were largest.
const columns = 1500

//go:embed page.js
var script string

//go:embed page.css
var style string

// Save writes the page to path as fileio.Write does ("-" is stdout
// where stdout is not nil).
func Save(path string, stdout io.Writer, p Page) error {
	return fileio.Write(path, stdout, func(w io.Writer) error { return Write(w, p) })
}

// data is the page's JSON: what page.js draws.
type data struct {
	Title      string        `json:"title"`
	Events     int           `json:"events"`
	Allocs     int           `json:"allocs"` // in the record
	Steps      []jsonStep    `json:"steps"`
	StepSpan   int           `json:"step_span"` // steps a point covers
	Strings    []string      `json:"strings"`
	Bands      [][]int64     `json:"bands"` // [addr, size, made, freed, category, name, where, stack] (strings by index)
	Rest       restData      `json:"rest"`
	Spans      [][]int64     `json:"spans"` // [addr, size, made, freed, stream]
	Categories []string      `json:"categories"`
	Note       string        `json:"note,omitempty"`
	Segments   []jsonSegment `json:"segments"`
	SegmentsAt string        `json:"segments_at"`
	Breakdown  any           `json:"breakdown,omitempty"`
}

type jsonStep struct {
	First     int     `json:"first"`
	Count     int     `json:"count"`
	Label     string  `json:"label"`
	Allocated uint64  `json:"allocated"` // after the last step
	Reserved  uint64  `json:"reserved"`
	Peak      uint64  `json:"peak"` // most allocated after any of its steps
	Driver    *uint64 `json:"driver,omitempty"`
	Mark      int     `json:"mark"`
}

// restData is the allocations not drawn one by one: at each column,
// its time and the bytes of each category.
type restData struct {
	Count int        `json:"count"`
	At    []int      `json:"at"`
	Bytes [][]uint64 `json:"bytes"` // per column, per category
}

type jsonSegment struct {
	Addr   uint64      `json:"addr"`
	Size   uint64      `json:"size"`
	Small  bool        `json:"small"`
	Stream uint64      `json:"stream"`
	Blocks [][3]uint64 `json:"blocks"` // [offset, size, state: 0 free, 1 allocated, 2 pending]
}

// Write writes the page.
func Write(w io.Writer, p Page) error {
	h := p.History
	if h == nil {
		for _, s := range p.Steps {
			h.Add(s)
		}
	}
	d := data{Title: p.Title, Events: p.Events, Allocs: len(p.Allocs), Categories: p.Categories, Note: p.Note, SegmentsAt: p.SegmentsAt, Breakdown: p.Breakdown, Steps: []jsonStep{}, Bands: [][]int64{}, Spans: [][]int64{}, Segments: []jsonSegment{}}
	if d.Events == 0 && len(h) > 0 {
		d.Events = h[len(h)-1].Mark
	}
	if len(h) > 0 {
		d.StepSpan = h[0].Count
	}
	for _, pt := range h {
		s := jsonStep{First: pt.First, Count: pt.Count, Label: pt.Peak.Label, Allocated: pt.Last.Allocated, Reserved: pt.Last.Reserved, Peak: max(pt.Peak.Peak, pt.Peak.Allocated), Mark: pt.Mark}
		if pt.Last.HasDriver {
			v := pt.Last.Driver
			s.Driver = &v
		}
		d.Steps = append(d.Steps, s)
	}
	strs := map[string]int{}
	intern := func(s string) int64 {
		if s == "" {
			return -1
		}
		i, ok := strs[s]
		if !ok {
			i = len(d.Strings)
			strs[s] = i
			d.Strings = append(d.Strings, s)
		}
		return int64(i)
	}
	kept := keep(p.Allocs, MaxBands)
	for i, a := range p.Allocs {
		if kept[i] {
			d.Bands = append(d.Bands, []int64{int64(a.Addr), int64(a.Size), int64(a.Made), int64(a.Freed), int64(a.Category), intern(a.Name), intern(a.Where), intern(a.Stack)})
		}
	}
	d.Rest = sumRest(p.Allocs, kept, d.Events, len(p.Categories))
	for _, s := range p.Spans {
		d.Spans = append(d.Spans, []int64{int64(s.Addr), int64(s.Size), int64(s.Made), int64(s.Freed), int64(s.Stream)})
	}
	for _, s := range p.Segments {
		js := jsonSegment{Addr: s.Address, Size: s.TotalSize, Small: s.Small, Stream: s.Stream}
		for _, b := range s.Blocks {
			state := uint64(0)
			switch b.State {
			case allocator.StateAllocated:
				state = 1
			case allocator.StatePendingFree:
				state = 2
			}
			js.Blocks = append(js.Blocks, [3]uint64{b.Address - s.Address, b.Size, state})
		}
		d.Segments = append(d.Segments, js)
	}
	j, err := json.Marshal(d) // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	title := html.EscapeString(p.Title)
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>%s</title>
<style>%s</style></head><body>
<h1>%s</h1>
<div id="summary"></div>
<div id="app"><div id="steps-pane"><h2>Steps</h2><ol id="steps"></ol></div>
<div id="main"><div id="toolbar"></div><div id="legend"></div>
<h2>Active memory over time</h2><p class="hint">Each band is one allocation, stacked in the order made, coloured by what it is for; the orange line is reserved memory. Hover for its name, size, line and stack; click to pin it; drag across to zoom.</p>
<canvas id="timeline"></canvas>
<h2>Segments over time</h2><canvas id="segtime"></canvas>
<div id="detail"></div>
<h2 id="segments-title">Segments</h2><canvas id="segmap"></canvas>
<div id="breakdown"></div></div></div>
<div id="tip"></div>
<script id="data" type="application/json">%s</script>
<script>%s</script>
</body></html>
`, title, style, title, j, script)
	_, err = io.WriteString(w, b.String())
	return err
}

// keep marks the limit largest allocations (ties: the longer lived,
// then the earlier).
func keep(allocs []Alloc, limit int) []bool {
	kept := make([]bool, len(allocs))
	if len(allocs) <= limit {
		for i := range kept {
			kept[i] = true
		}
		return kept
	}
	h := &largest{allocs: allocs}
	for i := range allocs {
		heap.Push(h, i)
		if h.Len() > limit {
			heap.Pop(h)
		}
	}
	for _, i := range h.idx {
		kept[i] = true
	}
	return kept
}

// largest is a min-heap of allocation indexes: its root is the first to
// give way to a larger one.
type largest struct {
	allocs []Alloc
	idx    []int
}

func (h *largest) Len() int { return len(h.idx) }
func (h *largest) Less(i, j int) bool {
	a, b := h.allocs[h.idx[i]], h.allocs[h.idx[j]]
	if a.Size != b.Size {
		return a.Size < b.Size
	}
	if la, lb := lifespan(a), lifespan(b); la != lb {
		return la < lb
	}
	return a.Made > b.Made
}
func (h *largest) Swap(i, j int) { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *largest) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *largest) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

func lifespan(a Alloc) int {
	if a.Freed < 0 {
		return int(^uint(0) >> 1)
	}
	return a.Freed - a.Made
}

// sumRest sums the allocations not kept, by category, at columns
// instants: in each stretch of events, the one where their total is
// largest (so no peak of theirs is lost).
func sumRest(allocs []Alloc, kept []bool, events, cats int) restData {
	r := restData{At: []int{}, Bytes: [][]uint64{}}
	type change struct {
		t    int
		size int64
		cat  int
	}
	var changes []change
	for i, a := range allocs {
		if kept[i] {
			continue
		}
		r.Count++
		changes = append(changes, change{a.Made, int64(a.Size), a.Category})
		if a.Freed >= 0 {
			changes = append(changes, change{a.Freed, -int64(a.Size), a.Category})
		}
	}
	if r.Count == 0 || events == 0 {
		return r
	}
	slices.SortStableFunc(changes, func(a, b change) int { return cmp.Compare(a.t, b.t) })
	per := max((events+columns-1)/columns, 1)
	cur := make([]int64, max(cats, 1))
	var total int64
	best, bestAt := int64(-1), 0
	var bestBytes []uint64
	next := 0
	for t := range events {
		for ; next < len(changes) && changes[next].t <= t; next++ {
			c := changes[next]
			cur[c.cat] += c.size
			total += c.size
		}
		if total > best {
			best, bestAt = total, t
			bestBytes = make([]uint64, len(cur))
			for i, v := range cur {
				bestBytes[i] = uint64(v)
			}
		}
		if (t+1)%per == 0 || t == events-1 {
			r.At = append(r.At, bestAt)
			r.Bytes = append(r.Bytes, bestBytes)
			best = -1
		}
	}
	return r
}
