package repl

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/plot"
)

// recordStep keeps cuda:0's figures after a step, under label, for plot.
func (r *Runner) recordStep(label string, cur engine.Figures) {
	if len(cur.Devices) == 0 {
		return
	}
	d := cur.Devices[0]
	r.history = append(r.history, plot.Step{Label: label, Allocated: d.Allocated, Reserved: d.Reserved, Driver: d.DriverUsed, HasDriver: d.DriverKnown})
}

// plotTo writes the session's history and cuda:0's segments now as an
// HTML page.
func (r *Runner) plotTo(path string) error {
	res, err := r.Session.Exec(&engine.Map{Device: 0})
	if err != nil {
		return err
	}
	return plot.Save(path, plot.Page{Title: "gpumemrepl: " + r.File, Steps: r.history, Segments: res.Segments, SegmentsAt: "of cuda:0 now"})
}
