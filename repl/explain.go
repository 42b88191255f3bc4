package repl

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
	"github.com/gpumemrepl/gpumemrepl/allocator/device/sim"
	"github.com/gpumemrepl/gpumemrepl/allocator/explain"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
	"github.com/gpumemrepl/gpumemrepl/torchpy"
)

// explainDevice is explain at the prompt: device dev's history as the
// session made it, replayed under the session's settings on a simulated
// device like the session's (its size, limit and CUDA context), its
// first out-of-memory error (or its peak) diagnosed, the candidates
// replayed; the live blocks named by the variables that hold them now
// and the source line that made them; a history that rests on estimates
// says so first. With asJSON the diagnosis is one JSON object.
func (r *Runner) explainDevice(p *pyPrompt, dev int, asJSON bool) (string, error) {
	o, ctx, err := r.Session.ReplaySetup(dev)
	if err != nil {
		return "", err
	}
	s := &snapshot.Snapshot{Device: dev, AllocConf: *o.AllocConf, Events: r.Session.History(dev)}
	rp, err := s.Prepare(fmt.Sprintf("cuda:%d's history", dev))
	if err != nil {
		return "", err
	}
	if err := rp.Resolve(o); err != nil {
		return "", err
	}
	liveNow := liveAtEnd(rp.Trace)
	names := r.blockNames(p, dev, rp, liveNow)
	where := r.allocWhere(dev)
	line := func(op int) string { // a replayed block's as peak has it
		if i := rp.OpEventIndex(op); r.Session.ReplayedFrom(dev, i) != "" {
			return where(i)
		}
		ev, _ := rp.OpEvent(op)
		return sourceLine(ev.Frames.Frames())
	}
	in := explain.Input{
		Trace:       rp.Trace,
		Options:     o,
		NewDevice:   func(total uint64) device.Device { d := sim.New(total); d.SetContextBytes(ctx); return d },
		GPUs:        ExplainGPUs(),
		Interrupted: r.Session.Interrupted,
		StepStart:   func(op int) int { return rp.StatementStart(op, outermost) },
		Where:       line,
		Label: func(op int) string {
			label := line(op)
			switch {
			case !liveNow[op]:
				return label + ", freed since"
			case len(names[op]) > 0:
				return strings.Join(names[op], ", ") + " (" + label + ")"
			}
			return label
		},
	}
	d, err := explain.Explain(in)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	t := r.Session.Tier()
	if asJSON {
		j, err := json.Marshal(struct {
			*explain.Diagnosis
			// Estimated says how the history rests on estimates; left
			// out when it is exact.
			Estimated string `json:"estimated,omitempty"`
		}{d, estimatedText(t)})
		if err != nil {
			return "", err
		}
		b.Write(j)
		b.WriteByte('\n')
		return b.String(), nil
	}
	if !t.Exact() {
		b.WriteString(EstimatedMark + " " + EstimatedText(t) + "\n")
	}
	if err := d.Write(&b); err != nil {
		return "", err
	}
	return b.String(), nil
}

// ExplainGPUs are the presets as explain's candidates of a larger GPU.
func ExplainGPUs() []explain.GPU {
	var gs []explain.GPU
	for _, n := range engine.PresetNames() {
		p := engine.Presets[n]
		gs = append(gs, explain.GPU{Name: n, Total: p.Total, Estimated: engine.ReplayEstimate(p)})
	}
	return gs
}

// blockNames are, by the alloc op of the block that holds them (one of
// live, the ops whose blocks are live now), the module's names of
// tensors on cuda:dev (a leaf's gradient as NAME.grad, a view's
// left to its base).
func (r *Runner) blockNames(p *pyPrompt, dev int, rp *snapshot.Replay, live map[int]bool) map[int][]string {
	type block struct {
		op         int
		start, end uint64
	}
	var blocks []block
	for op := range live {
		if ev, ok := rp.OpEvent(op); ok {
			blocks = append(blocks, block{op, ev.Addr, ev.Addr + max(ev.Size, 1)})
		}
	}
	sort.Slice(blocks, func(i, j int) bool { return blocks[i].start < blocks[j].start })
	out := map[int][]string{}
	add := func(name string, t *engine.Tensor) {
		d, ptr := t.Device(), t.DataPtr()
		if !d.CUDA || d.Index != dev {
			return
		}
		k := sort.Search(len(blocks), func(i int) bool { return blocks[i].end > ptr })
		if k < len(blocks) && blocks[k].start <= ptr {
			out[blocks[k].op] = append(out[blocks[k].op], name)
		}
	}
	var names []string
	tensors := map[string]*engine.Tensor{}
	p.fr.Globals().Items(func(k, v eval.Value) bool {
		name, ok := k.(string)
		t, isTensor := v.(*torchpy.Tensor)
		if ok && isTensor && t.T != nil && !strings.HasPrefix(name, "__") {
			names = append(names, name)
			tensors[name] = t.T
		}
		return true
	})
	sort.Strings(names)
	for _, n := range names {
		add(n, tensors[n])
		if g := r.Session.Grad(tensors[n]); g != nil {
			if t := tensors[n]; t.IsLeaf() && t.StorageBytes() == t.Bytes() { // not a view: its base's .grad
				add(n+".grad", g)
			}
			r.Session.Release(g) // Grad's reference: the leaf keeps its own
		}
	}
	return out
}

// liveAtEnd are the alloc ops of t whose blocks are live at its end.
func liveAtEnd(t *trace.Trace) map[int]bool {
	byID := map[int]int{}
	for i, op := range t.Ops {
		switch op.Op {
		case "alloc":
			byID[op.ID] = i
		case "free":
			delete(byID, op.ID)
		}
	}
	live := map[int]bool{}
	for _, i := range byID {
		live[i] = true
	}
	return live
}

// outermost is a stack's outermost frame: the prompt's statement.
func outermost(f []snapshot.Frame) (snapshot.Frame, bool) {
	if len(f) == 0 {
		return snapshot.Frame{}, false
	}
	return f[len(f)-1], true
}

// sourceLine is where a block was made: the innermost frame, as
// FILE:LINE (and the function, inside one).
func sourceLine(frames []snapshot.Frame) string {
	if len(frames) == 0 {
		return "no source line"
	}
	f := frames[0]
	at := fmt.Sprintf("%s:%d", filepath.Base(f.Filename), f.Line)
	if f.Name != "<module>" {
		at += " in " + f.Name
	}
	return at
}
