package repl

import (
	"fmt"

	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/plot"
)

// recordStep keeps cuda:0's figures after a step, under label, for plot,
// with where cuda:0's history stood then, which places the timeline's
// allocations among the steps.
func (r *Runner) recordStep(label string, cur engine.Figures) {
	if len(cur.Devices) == 0 {
		return
	}
	d := cur.Devices[0]
	r.history.Add(plot.Step{Label: label, Allocated: d.Allocated, Reserved: d.Reserved, Driver: d.DriverUsed, HasDriver: d.DriverKnown, Mark: len(r.Session.History(0))})
}

// plotTo writes the session's history, cuda:0's allocations over it and
// its segments now as an HTML page.
func (r *Runner) plotTo(path string) error {
	segs, _, err := r.Session.Segments(0)
	if err != nil {
		return err
	}
	marks := make([]int, len(r.history))
	for i, p := range r.history {
		marks[i] = p.Mark
	}
	tl, err := r.Session.Timeline(0, plot.MaxBands, marks)
	if err != nil {
		return err
	}
	bands := make([]plot.Band, len(tl.Kept))
	for i, l := range tl.Kept {
		bands[i] = plot.Band{Size: l.Size, Made: l.Made, Freed: l.Freed, Function: l.Frame.Name}
		if l.Frame.Filename != "" {
			bands[i].Source = fmt.Sprintf("%s:%d", l.Frame.Filename, l.Frame.Line)
		}
	}
	return plot.Save(path, plot.Page{Title: "gpumemrepl: " + r.File + ": cuda:0's memory", History: r.history, Bands: bands, Rest: tl.Rest, Segments: segs, SegmentsAt: "of cuda:0 now"})
}
