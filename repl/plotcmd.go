package repl

import (
	"fmt"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/plot"
)

// recordStep keeps cuda:0's figures after a step, under label, for plot,
// with where cuda:0's history stood then, which places the steps on the
// page's time axis.
func (r *Runner) recordStep(label string, cur engine.Figures) {
	if len(cur.Devices) == 0 {
		return
	}
	d := cur.Devices[0]
	peak, _ := r.Session.StepPeak(0)
	r.history.Add(plot.Step{Label: label, Allocated: d.Allocated, Peak: max(peak, d.Allocated), Reserved: d.Reserved, Driver: d.DriverUsed, HasDriver: d.DriverKnown, Mark: len(r.Session.History(0))})
}

// plotTo writes the page of the session's cuda:0: its steps, every
// allocation of its history with what it was for, its segments over
// time and now, and its peak explained.
func (r *Runner) plotTo(path string) error {
	segs, _, err := r.Session.Segments(0)
	if err != nil {
		return err
	}
	p := plot.Page{Title: "gpumemrepl: " + r.File + ": cuda:0's memory", History: r.history, Segments: segs, SegmentsAt: "of cuda:0 now"}
	for c := range engine.NumCategories {
		p.Categories = append(p.Categories, engine.Category(c).String())
	}
	events := r.Session.History(0)
	p.Events = len(events)
	if b, ok, err := r.peakBreakdown(0, false); err == nil && ok {
		p.Breakdown = b
	}
	p.Allocs, p.Spans = r.sessionAllocs(events)
	p.Note = "What a block is for is exact for the blocks live at the peak (the program's names then); for the others, what the engine made it for (a parameter, a .grad, an optimizer's state, a workspace) or that autograd saved it, else a temporary when it lived within one step and a named tensor when longer."
	return plot.Save(path, nil, p)
}

// sessionAllocs are cuda:0's allocations and segments from its history,
// each allocation with its category, names, source line and stack.
func (r *Runner) sessionAllocs(events []snapshot.Event) ([]plot.Alloc, []plot.Span) {
	atPeak := map[int]engine.Holding{}
	if h, _ := r.Session.PeakHoldings(0); h != nil {
		for _, one := range h.Holdings {
			if one.Made >= 0 {
				atPeak[one.Made] = one
			}
		}
	}
	nowNames := map[int][]string{}
	if h, _ := r.Session.HoldingsNow(0); h != nil {
		for _, one := range h.Holdings {
			if one.Made >= 0 {
				nowNames[one.Made] = one.Names
			}
		}
	}
	sticky := r.Session.AllocCategories(0)
	where := r.allocWhere(0)
	var allocs []plot.Alloc
	var spans []plot.Span
	live, segLive := map[uint64]int{}, map[uint64]int{}
	for i, ev := range events {
		switch ev.Action {
		case "alloc":
			live[ev.Addr] = len(allocs)
			frames := ev.Frames.Frames()
			allocs = append(allocs, plot.Alloc{Addr: ev.Addr, Size: ev.Size, Made: i, Freed: -1, Where: where(i), Stack: stackText(frames)})
		case "free_completed":
			if k, ok := live[ev.Addr]; ok {
				allocs[k].Freed = i
				delete(live, ev.Addr)
			}
		case "segment_alloc":
			segLive[ev.Addr] = len(spans)
			spans = append(spans, plot.Span{Addr: ev.Addr, Size: ev.Size, Made: i, Freed: -1, Stream: ev.Stream})
		case "segment_free":
			if k, ok := segLive[ev.Addr]; ok {
				spans[k].Freed = i
				delete(segLive, ev.Addr)
			}
		}
	}
	for k := range allocs {
		a := &allocs[k]
		if one, ok := atPeak[a.Made]; ok {
			a.Category, a.Name = int(one.Category), holderName(one)
			continue
		}
		c, _ := sticky(a.Made)
		if c == engine.CatTemporaries && r.livedAcrossSteps(*a, len(events)) {
			c = engine.CatNamed
		}
		a.Category = int(c)
		if names := nowNames[a.Made]; len(names) > 0 {
			a.Name = names[0]
		}
	}
	return allocs, spans
}

// AllocCategories is what each allocation of cuda:0's history was for,
// in the order made, as the page colours it: exact for the blocks live
// at the peak; for the others what the engine made them for or that
// autograd saved them, else a temporary when they lived within one step
// and a named tensor when longer.
func (r *Runner) AllocCategories() []string {
	allocs, _ := r.sessionAllocs(r.Session.History(0))
	out := make([]string, len(allocs))
	for i, a := range allocs {
		out[i] = engine.Category(a.Category).String()
	}
	return out
}

// livedAcrossSteps reports whether a outlived the step that made it.
func (r *Runner) livedAcrossSteps(a plot.Alloc, end int) bool {
	freed := a.Freed
	if freed < 0 {
		freed = end
	}
	for _, p := range r.history {
		if p.Mark > a.Made {
			return freed >= p.Mark
		}
	}
	return false
}

// stackText is a stack, one frame a line, innermost first.
func stackText(frames []snapshot.Frame) string {
	var b strings.Builder
	for i, f := range frames {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s:%d in %s", f.Filename, f.Line, f.Name)
	}
	return b.String()
}
