package repl

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
	"github.com/gpumemrepl/gpumemrepl/repl/command"
)

// The peak explained: what a device holds at its peak (or now), by
// category, by source line, by name, and its largest holders with what
// would free each.

// Breakdown is one moment of a device explained; its JSON is peak --json.
type Breakdown struct {
	Device     string        `json:"device"`
	When       string        `json:"when"` // "peak" or "now"
	Allocated  uint64        `json:"allocated_bytes"`
	Reserved   uint64        `json:"reserved_bytes"`
	Where      string        `json:"where,omitempty"` // the allocation that reached the peak
	Step       string        `json:"step,omitempty"`  // the step it was in
	Categories []CategoryRow `json:"categories"`
	Cache      CacheRow      `json:"cache"`
	Lines      []GroupRow    `json:"lines"`
	Names      []GroupRow    `json:"names"`
	Holders    []HolderRow   `json:"holders"`
	// Blocks are all the live blocks, by address: what tools compare
	// (PyTorch's memory profiler, block by block).
	Blocks []BlockRow `json:"blocks"`
}

// BlockRow is one live block: Alloc is which allocation of the device
// made it, counted from 0 in the order of the run (the order of
// PyTorch's allocator events and its profiler's), -1 for a block freed
// and waiting for a stream.
type BlockRow struct {
	Alloc     int    `json:"alloc"`
	Bytes     uint64 `json:"bytes"`
	Requested uint64 `json:"requested_bytes"`
	Category  string `json:"category"`
	Name      string `json:"name,omitempty"`
}

// CategoryRow is one category's blocks; Bytes are block sizes (they add
// up to allocated_bytes), Requested what the program asked for.
type CategoryRow struct {
	Category  string `json:"category"`
	Bytes     uint64 `json:"bytes"`
	Requested uint64 `json:"requested_bytes"`
	Blocks    int    `json:"blocks"`
}

// CacheRow is reserved memory that no block holds: the free blocks of
// the segments, and how broken up they are (1 - largest / all).
type CacheRow struct {
	Bytes         uint64  `json:"bytes"`
	FreeBlocks    int     `json:"free_blocks"`
	LargestFree   uint64  `json:"largest_free_bytes"`
	Fragmentation float64 `json:"fragmentation"`
}

// GroupRow is the blocks of one source line or one name.
type GroupRow struct {
	Name   string `json:"name"`
	Bytes  uint64 `json:"bytes"`
	Blocks int    `json:"blocks"`
}

// HolderRow is one of the largest blocks.
type HolderRow struct {
	Name     string   `json:"name"`
	Category string   `json:"category"`
	Bytes    uint64   `json:"bytes"`
	Line     string   `json:"line"`
	Names    []string `json:"names,omitempty"`
	Node     string   `json:"node,omitempty"`
	Free     string   `json:"freed_by"`
}

// topRows is how many lines, names and holders a breakdown lists.
const topRows = 10

// breakdown explains h, a moment of the device whose history is hist;
// where says where each event of it was made (allocWhere).
func breakdown(h *engine.Holdings, when string, hist []snapshot.Event, where func(int) string) Breakdown {
	b := Breakdown{Device: fmt.Sprintf("cuda:%d", h.Device), When: when, Allocated: h.Allocated, Reserved: h.Reserved}
	ordinal := allocOrdinals(hist, h)
	cats := make([]CategoryRow, engine.NumCategories)
	for c := range cats {
		cats[c].Category = engine.Category(c).String()
	}
	lines, names := map[string]*GroupRow{}, map[string]*GroupRow{}
	group := func(m map[string]*GroupRow, k string, size uint64) {
		g := m[k]
		if g == nil {
			g = &GroupRow{Name: k}
			m[k] = g
		}
		g.Bytes += size
		g.Blocks++
	}
	var holders []HolderRow
	for _, one := range h.Holdings {
		c := &cats[one.Category]
		c.Bytes += one.Size
		c.Requested += one.Requested
		c.Blocks++
		line := "freed, waiting for a stream"
		if one.Made >= 0 {
			line = where(one.Made)
		}
		group(lines, line, one.Size)
		if len(one.Names) > 0 {
			group(names, one.Names[0], one.Size)
		}
		holders = append(holders, HolderRow{Name: holderName(one), Category: one.Category.String(), Bytes: one.Size, Line: line, Names: one.Names, Node: one.Node, Free: freedBy(one)})
		b.Blocks = append(b.Blocks, BlockRow{Alloc: ordinal[one.Made], Bytes: one.Size, Requested: one.Requested, Category: one.Category.String(), Name: holderName(one)})
	}
	for _, c := range cats {
		if c.Blocks > 0 {
			b.Categories = append(b.Categories, c)
		}
	}
	for _, seg := range h.Segments {
		for _, blk := range seg.Blocks {
			if blk.State == allocator.StateInactive {
				b.Cache.Bytes += blk.Size
				b.Cache.FreeBlocks++
				b.Cache.LargestFree = max(b.Cache.LargestFree, blk.Size)
			}
		}
	}
	if b.Cache.Bytes > 0 {
		b.Cache.Fragmentation = 1 - float64(b.Cache.LargestFree)/float64(b.Cache.Bytes)
	}
	b.Lines, b.Names = topGroups(lines), topGroups(names)
	slices.SortStableFunc(holders, func(x, y HolderRow) int { return cmp.Compare(y.Bytes, x.Bytes) })
	b.Holders = holders[:min(len(holders), topRows)]
	if ev := lastAlloc(h); ev >= 0 {
		b.Where = where(ev)
	}
	return b
}

// lastAlloc is the history index of the last allocation before h was
// taken: the one that reached the peak; -1 if none.
func lastAlloc(h *engine.Holdings) int {
	last := -1
	for _, one := range h.Holdings {
		last = max(last, one.Made)
	}
	return last
}

// allocOrdinals maps the history index of each of h's blocks' alloc
// events to which allocation of the history it was, counted from 0; -1
// (a block the engine does not know) to -1.
func allocOrdinals(hist []snapshot.Event, h *engine.Holdings) map[int]int {
	out := map[int]int{-1: -1}
	for _, one := range h.Holdings {
		if one.Made >= 0 {
			out[one.Made] = -1
		}
	}
	n := 0
	for i, ev := range hist {
		if ev.Action != "alloc" {
			continue
		}
		if _, ok := out[i]; ok {
			out[i] = n
		}
		n++
	}
	return out
}

// topGroups are the largest groups, largest first (ties by name).
func topGroups(m map[string]*GroupRow) []GroupRow {
	out := make([]GroupRow, 0, len(m))
	for _, g := range m {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(x, y GroupRow) int {
		if c := cmp.Compare(y.Bytes, x.Bytes); c != 0 {
			return c
		}
		return strings.Compare(x.Name, y.Name)
	})
	return out[:min(len(out), topRows)]
}

// holderName is how a block is named: its first name, else the node
// that saved it; "" for neither.
func holderName(h engine.Holding) string {
	switch {
	case len(h.Names) > 0:
		return h.Names[0]
	case h.Node != "":
		return "saved by " + h.Node
	}
	return ""
}

// userLine is where a block was made in the program's own code: the
// innermost frame that is not of the tool's Python library (a module's
// forward in <torch.nn>), as FILE:LINE.
func userLine(frames []snapshot.Frame) string {
	for i, f := range frames {
		if !strings.HasPrefix(f.Filename, "<") || f.Filename == "<stdin>" {
			return sourceLine(frames[i:])
		}
	}
	return sourceLine(frames)
}

// freedBy says what would free a block of its category.
func freedBy(h engine.Holding) string {
	switch {
	case h.Pending:
		return "waits for the streams record_stream named: freed once the program synchronizes them"
	}
	name := "it"
	if len(h.Names) > 0 {
		name = h.Names[0]
	}
	switch h.Category {
	case engine.CatParameters:
		return "the model's weights: a smaller model or dtype (model.to(torch.bfloat16)), or sharding them"
	case engine.CatGradients:
		return "opt.zero_grad(set_to_none=True) frees it; before the forward pass it is not held at the peak"
	case engine.CatOptimizer:
		return "held while the optimizer lives; SGD without momentum keeps none, a lower-precision optimizer less"
	case engine.CatActivations:
		return "freed when backward runs " + h.Node + "; torch.utils.checkpoint on its module or a smaller batch saves less"
	case engine.CatInputs, engine.CatNamed:
		return "del " + strings.Fields(name)[0] + " after its last use frees it"
	case engine.CatTemporaries:
		return "freed when the statement that made it ends; an in-place op or a split expression avoids it"
	case engine.CatWorkspaces:
		return "a library's workspace, kept for the session (cuBLAS: CUBLAS_WORKSPACE_CONFIG sets its size) or freed when its kernel ends"
	case engine.CatLoaded:
		return "replayed by load: freed where the recorded run freed it, or, live at the load's end, by del of the load's name (trace unless named)"
	}
	return ""
}

// writeBreakdown prints b as tables that fit width (0: no limit).
func writeBreakdown(w io.Writer, b Breakdown, width int) {
	var s strings.Builder
	when := "at its peak"
	if b.When == "now" {
		when = "now"
	}
	head := fmt.Sprintf("%s %s: %s allocated (%d bytes), %s reserved", b.Device, when, size(b.Allocated), b.Allocated, size(b.Reserved))
	if b.Where != "" {
		head += ", " + atWhere(b.Where)
	}
	if b.Step != "" {
		head += ", during line " + b.Step
	}
	s.WriteString(head + "\n")
	table := func(title string, rows [][2]string) {
		if len(rows) == 0 {
			return
		}
		s.WriteString(title + "\n")
		for _, r := range rows {
			s.WriteString(tableRow(r[0], r[1], width))
		}
	}
	var rows [][2]string
	for _, c := range b.Categories {
		rows = append(rows, [2]string{c.Category, fmt.Sprintf("%s %5.1f%% %s", size(c.Bytes), share(c.Bytes, b.Allocated), blocks(c.Blocks))})
	}
	rows = append(rows, [2]string{"cache (reserved, not allocated)", size(b.Cache.Bytes) + " in " + strings.Replace(blocks(b.Cache.FreeBlocks), "block", "free block", 1)},
		[2]string{"  the largest free block", fmt.Sprintf("%s (fragmentation %.0f%%)", size(b.Cache.LargestFree), 100*b.Cache.Fragmentation)})
	table("  by category", rows)
	groups := func(g []GroupRow) [][2]string {
		var rows [][2]string
		for _, r := range g {
			rows = append(rows, [2]string{r.Name, size(r.Bytes) + " " + blocks(r.Blocks)})
		}
		return rows
	}
	table("  by source line", groups(b.Lines))
	table("  by name", groups(b.Names))
	if len(b.Holders) > 0 {
		s.WriteString("  largest holders\n")
		for i, h := range b.Holders {
			name := h.Line
			if h.Name != "" {
				name = h.Name + " (" + h.Line + ")"
			}
			s.WriteString(tableRow(fmt.Sprintf("%d. %s", i+1, name), size(h.Bytes)+" "+h.Category, width))
			s.WriteString(command.Wrap("       "+h.Free+"\n", width, "", "       "))
		}
	}
	io.WriteString(w, s.String())
}

// blocks is "1 block" or "N blocks".
func blocks(n int) string {
	if n == 1 {
		return "1 block"
	}
	return fmt.Sprintf("%d blocks", n)
}

// WriteBreakdown writes b as run --peak prints it, its lines whole.
func WriteBreakdown(w io.Writer, b Breakdown) { writeBreakdown(w, b, 0) }

// share is part of whole, in percent.
func share(part, whole uint64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

// nameColumn is the width of a table's first column.
const nameColumn = 44

// tableRow is "    name ... value": the name cut to fit the width.
func tableRow(name, value string, width int) string {
	col := nameColumn
	if width > 0 {
		col = min(col, max(width-4-len(value)-2, 12))
	}
	if r := []rune(name); len(r) > col {
		name = string(r[:col-1]) + "…"
	}
	return fmt.Sprintf("    %-*s  %s\n", col, name, value)
}

// writePeakJSON writes b as one JSON object.
func writePeakJSON(w io.Writer, b Breakdown) {
	j, _ := json.Marshal(struct {
		Peak Breakdown `json:"breakdown"`
	}{b})
	w.Write(append(j, '\n'))
}

// allocWhere says where each event of device dev's history was made:
// the program's own line (userLine), or, for an event a load replayed,
// the recorded run's (FrameLine) with the file it came from, or "from
// snapshot FILE" where the file has no stack. A replayed block is never
// put on the prompt line that loaded it.
func (r *Runner) allocWhere(dev int) func(int) string {
	h := r.Session.History(dev)
	return func(ev int) string {
		var frames []snapshot.Frame
		if ev >= 0 && ev < len(h) {
			frames = h[ev].Frames.Frames()
		}
		src := r.Session.ReplayedFrom(dev, ev)
		switch {
		case src == "":
			return userLine(frames)
		case len(frames) == 0:
			return "from " + src
		}
		return FrameLine(frames) + " (" + src + ")"
	}
}

// atWhere is where as a phrase: "at FILE:LINE", or "from snapshot
// FILE" as it is.
func atWhere(where string) string {
	if strings.HasPrefix(where, "from ") {
		return where
	}
	return "at " + where
}

// peakBreakdown is device dev's holdings at its peak (now: at this
// moment) explained; ok false before it allocated.
func (r *Runner) peakBreakdown(dev int, now bool) (Breakdown, bool, error) {
	get, when := r.Session.PeakHoldings, "peak"
	if now {
		get, when = r.Session.HoldingsNow, "now"
	}
	h, err := get(dev)
	if err != nil || h == nil {
		return Breakdown{}, false, err
	}
	b := breakdown(h, when, r.Session.History(dev), r.allocWhere(dev))
	if !now && dev == 0 {
		b.Step = r.peakStep
	}
	return b, true, nil
}

// nameTensors lets the engine name the tensors p's program reaches:
// the running frames' variables and the module's.
func (r *Runner) nameTensors(p *pyPrompt) {
	r.Session.NameTensors(func(visit func(string, *engine.Tensor, bool)) {
		p.b.NameTensors(func(v func(fn, name string, x eval.Value)) {
			p.in.FrameVars(v)
			if g := p.fr.Globals(); g != nil {
				g.Items(func(k, x eval.Value) bool {
					if name, ok := k.(string); ok {
						v("<module>", name, x)
					}
					return true
				})
			}
		}, visit)
	})
}

// stepPeakEvents are the step's peaks inside it, on each device where
// one rose above the figures after the step: "peak X inside, at LINE".
func (r *Runner) stepPeakEvents(cur engine.Figures) []string {
	var out []string
	for i, d := range cur.Devices {
		peak, at := r.Session.StepPeak(i)
		if at < 0 || peak <= d.Allocated {
			continue
		}
		ev := fmt.Sprintf("peak %s inside, %s", size(peak), atWhere(r.allocWhere(i)(at)))
		if len(cur.Devices) > 1 {
			ev = fmt.Sprintf("cuda:%d %s", i, ev)
		}
		out = append(out, ev)
	}
	return out
}

// notePeakStep remembers the step label when cuda:0's whole-run peak
// rose during it.
func (r *Runner) notePeakStep(label string) {
	if r.Session.DeviceCount() == 0 {
		return
	}
	if a, _ := r.Session.LifetimePeaks(0); a > r.runPeak {
		r.runPeak, r.peakStep = a, label
	}
}

// writeRunPeak ends a run: the whole-run peak of each device used and
// where it was.
func (r *Runner) writeRunPeak() {
	for i := range r.Session.DeviceCount() {
		b, ok, err := r.peakBreakdown(i, false)
		if err != nil || !ok {
			continue
		}
		line := fmt.Sprintf("whole-run peak: %s allocated %s", b.Device, size(b.Allocated))
		if b.Where != "" {
			line += " " + atWhere(b.Where)
		}
		if b.Step != "" {
			line += ", during line " + b.Step
		}
		io.WriteString(r.Out, fitLines(line+"\n", r.Out))
	}
}
