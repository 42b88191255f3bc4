package explain

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// Change is one candidate change to how a history runs: settings added
// to its PYTORCH_CUDA_ALLOC_CONF, an empty_cache() call, a larger GPU.
type Change struct {
	// Settings are PYTORCH_CUDA_ALLOC_CONF options added to (or
	// overriding) the history's own, like "expandable_segments:True".
	Settings []string `json:"settings,omitempty"`
	// EmptyCacheBefore is the op before which torch.cuda.empty_cache()
	// is called; nil: none.
	EmptyCacheBefore *int `json:"empty_cache_before_op,omitempty"`
	// EmptyCacheWhere is where in the program that op is (a source
	// line), when known.
	EmptyCacheWhere string `json:"empty_cache_before,omitempty"`
	// GPU is a larger GPU the history runs on, with its own settings and
	// memory fraction; nil: its own.
	GPU *GPU `json:"gpu,omitempty"`
}

// String says the change in a few words.
func (c Change) String() string {
	var parts []string
	if c.EmptyCacheBefore != nil {
		parts = append(parts, c.emptyCache())
	}
	parts = append(parts, c.Settings...)
	if c.GPU != nil {
		parts = append(parts, fmt.Sprintf("a %s (%s)", c.GPU.Name, allocator.FormatSize(c.GPU.Total)))
	}
	if len(parts) == 0 {
		return "as recorded"
	}
	return strings.Join(parts, " + ")
}

// emptyCache says where the change calls empty_cache().
func (c Change) emptyCache() string {
	s := fmt.Sprintf("empty_cache() before op %d", *c.EmptyCacheBefore)
	if c.EmptyCacheWhere != "" {
		s += " (" + c.EmptyCacheWhere + ")"
	}
	return s
}

// sweeps are the values tried for the settings that take one, each from
// the least change to the most: a larger max_split_size_mb splits more
// blocks, as the default (unlimited) does; a higher
// garbage_collection_threshold collects later, as the default (never)
// does.
var (
	maxSplitMiBFloor = uint64(32) // the smallest swept: PyTorch refuses 20 MiB and below
	maxSplitValues   = 8
	gcThresholds     = []string{"0.9", "0.8", "0.7", "0.6"}
)

// Candidates are the changes tried, in order of size: one change before
// two; within one, the empty_cache() call before the failing step, then
// expandable_segments:True, then max_split_size_mb from the largest
// value down, then garbage_collection_threshold from the highest down
// (with a per-process limit only: PyTorch collects only under one);
// then two changes (empty_cache() with expandable segments, expandable
// segments with garbage_collection_threshold:0.8); last the next larger
// GPU of in.GPUs, with the history's own settings. A setting the
// history has already is not tried.
func Candidates(in Input, d *Diagnosis) []Change {
	cfg, _ := allocator.ParseConfig(d.Conf)
	limited := d.At.LimitBytes != nil || in.Options.LimitBytes != nil || in.Trace.MemoryFraction != nil || cfg.MemoryFraction < 1
	step := emptyCacheOp(in, d)
	where := ""
	if step != nil && in.Where != nil {
		where = in.Where(*step)
	}
	const expandable = "expandable_segments:True"
	var out []Change
	if step != nil {
		out = append(out, Change{EmptyCacheBefore: step, EmptyCacheWhere: where})
	}
	if !cfg.ExpandableSegments {
		out = append(out, Change{Settings: []string{expandable}})
	}
	for _, mib := range maxSplitSweep(in.Trace, cfg) {
		out = append(out, Change{Settings: []string{fmt.Sprintf("max_split_size_mb:%d", mib)}})
	}
	if limited {
		for _, g := range gcThresholds {
			out = append(out, Change{Settings: []string{"garbage_collection_threshold:" + g}})
		}
	}
	if !cfg.ExpandableSegments {
		if step != nil {
			out = append(out, Change{Settings: []string{expandable}, EmptyCacheBefore: step, EmptyCacheWhere: where})
		}
		if limited {
			out = append(out, Change{Settings: []string{expandable, "garbage_collection_threshold:0.8"}})
		}
	}
	if g := nextGPU(in); g != nil {
		out = append(out, Change{GPU: g})
	}
	return out
}

// maxSplitSweep is the max_split_size_mb values worth trying, largest
// first: powers of two from 32 MiB below the history's largest request
// (a limit above every request changes nothing) and below the one the
// history has, at most maxSplitValues of them.
func maxSplitSweep(t *trace.Trace, cfg allocator.Config) []uint64 {
	var largest uint64
	for _, op := range t.Ops {
		if op.Op == "alloc" {
			largest = max(largest, op.Size)
		}
	}
	var out []uint64
	for mib := maxSplitMiBFloor; mib*allocator.MiB < largest && mib*allocator.MiB < cfg.MaxSplitSize; mib *= 2 {
		out = append(out, mib)
	}
	slices.Reverse(out)
	return out[:min(len(out), maxSplitValues)]
}

// emptyCacheOp is where the empty_cache() candidate calls it: at the
// start of the step in.StepStart names, else just after the last free
// before the op explained; nil when that is the history's first op.
func emptyCacheOp(in Input, d *Diagnosis) *int {
	at := -1
	if in.StepStart != nil {
		at = in.StepStart(d.At.Op)
	}
	if at < 0 {
		at = 0
		for i := d.At.Op - 1; i >= 0; i-- {
			if in.Trace.Ops[i].Op == "free" {
				at = i + 1
				break
			}
		}
	}
	if at <= 0 || at > d.At.Op {
		return nil
	}
	return &at
}

// nextGPU is the smallest of in.GPUs larger than the history's device;
// nil when none is.
func nextGPU(in Input) *GPU {
	total := trace.NewDevice(in.Trace, in.Options).TotalMemory()
	var best *GPU
	for i, g := range in.GPUs {
		if g.Total > total && (best == nil || g.Total < best.Total) {
			best = &in.GPUs[i]
		}
	}
	return best
}

// try replays the whole history under change c.
func try(in Input, c Change) (Result, error) {
	t, o := in.Trace, in.Options
	conf := o.Conf(t)
	if len(c.Settings) > 0 {
		conf = strings.Trim(conf+","+strings.Join(c.Settings, ","), ",")
	}
	o.AllocConf = &conf
	if c.EmptyCacheBefore != nil {
		var err error
		if t, err = withEmptyCache(t, *c.EmptyCacheBefore); err != nil {
			return Result{}, err
		}
	}
	if c.GPU != nil {
		t, o = onGPU(t, o, *c.GPU)
	}
	r, err := in.replayAll(t, o)
	if _, refused := errors.AsType[*allocator.ConfigError](err); refused {
		return Result{Change: c, Conf: conf, Error: err.Error()}, nil
	}
	if err != nil {
		return Result{}, err
	}
	if at := c.EmptyCacheBefore; at != nil && r.first != nil && r.first.Op > *at {
		r.first.Op-- // the op's index in the history as recorded
	}
	res := result(c, conf, r)
	res.TotalBytes = trace.NewDevice(t, o).TotalMemory()
	return res, nil
}

// withEmptyCache is t with an empty_cache op before op at.
func withEmptyCache(t *trace.Trace, at int) (*trace.Trace, error) {
	ops := slices.Insert(slices.Clone(t.Ops), at, trace.Op{Op: "empty_cache"})
	u, err := trace.New(t.Path, t.AllocConf, ops)
	if err != nil {
		return nil, err
	}
	u.MemoryFraction, u.LimitBytes, u.TotalMemory, u.Device, u.Start = t.MemoryFraction, t.LimitBytes, t.TotalMemory, t.Device, t.Start
	if at < t.Start {
		u.Start++
	}
	return u, nil
}

// onGPU is t and o moved to GPU g, with the history's memory fraction of
// g's memory.
func onGPU(t *trace.Trace, o trace.Options, g GPU) (*trace.Trace, trace.Options) {
	u := *t
	if o.LimitBytes != nil {
		f := float64(*o.LimitBytes) / float64(trace.NewDevice(t, o).TotalMemory())
		u.MemoryFraction, o.LimitBytes = &f, nil
	}
	o.TotalBytes = g.Total
	return &u, o
}
