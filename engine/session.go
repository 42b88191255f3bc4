package engine

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/device/sim"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
	"github.com/gpumemrepl/gpumemrepl/engine/outfile"
)

// Preset describes a simulated GPU.
type Preset struct {
	Name         string
	Total        uint64 // cuDeviceTotalMem
	ContextBytes uint64 // what a PyTorch process's CUDA context takes
	ComputeMajor int    // compute capability major (sizes the cuBLAS workspace)
	PeerAccess   bool   // whether two of them reach each other's memory (P2P)
	// SMs and ThreadsPerSM are the multiprocessor count and the most
	// threads one runs at once: they size a reduction's grid.
	SMs, ThreadsPerSM int
}

// h200Context is the CUDA context of a PyTorch 2.11 process on the H200
// once it has run a kernel (../shared/truth/README.md).
const h200Context = 639631360

// Presets are the simulated GPUs by name. The H200 is measured with
// PyTorch 2.11. The others' totals are cuDeviceTotalMem as CUDA's
// deviceQuery printed it in published runs (the driver version in
// brackets; the figure moves by a few MiB between drivers); their
// contexts were not measured and are the H200's (--context-bytes sets
// one). GeForce RTX 40 cards have no peer-to-peer access; the others do
// (NVLink or PCIe). Multiprocessors and threads per multiprocessor are
// each GPU's published figures (the H200's as PyTorch reports them:
// scripts/probe_reduce.py).
var Presets = map[string]Preset{
	"h200":      {"h200", sim.H200Total, h200Context, 9, true, 132, 2048},
	"h100":      {"h100", 85017755648, h200Context, 9, true, 132, 2048},      // H100 80GB HBM3 [13.0]
	"a100-80gb": {"a100-80gb", 85100068864, h200Context, 8, true, 108, 2048}, // A100-SXM4-80GB [12.5]
	"a100-40gb": {"a100-40gb", 42298834944, h200Context, 8, true, 108, 2048}, // A100-SXM4-40GB [12.2]
	"rtx4090":   {"rtx4090", 25250627584, h200Context, 8, false, 128, 1536},  // GeForce RTX 4090 [13.0]
	"t4":        {"t4", 15642329088, h200Context, 7, true, 40, 1024},         // Tesla T4 [12.4]
}

// PresetNames lists the presets, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(Presets))
	for n := range Presets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Options configure a session.
type Options struct {
	Preset     Preset
	TotalBytes uint64 // overrides the preset's total when set
	Devices    int    // number of simulated devices (default 1)
	AllocConf  string // PYTORCH_CUDA_ALLOC_CONF
	// FakeHost keeps host tensors as plain bookkeeping (no real memory)
	// and reports RSS as the bytes of live host tensors: the documented
	// deterministic mode for golden tests.
	FakeHost bool
	// Backend is where CUDA tensors live: "sim" (the default), "cuda"
	// (the GPUs of this machine, an error when there are none) or "auto"
	// (the GPUs when one is usable, else simulated devices, with a
	// Notice saying so).
	Backend string
}

type gpu struct {
	b     backend
	alloc *allocator.Allocator // nil until the device's first CUDA command
	ctx   uint64               // driver-used when the context was made: its cost
	// history is the device's memory history, as
	// torch.cuda.memory._record_memory_history keeps it, for snapshot save.
	history snapshot.Recorder
}

// Session is one REPL session's state.
type Session struct {
	// frames, when set, gives the stack of the code running (file,
	// line, function, innermost first) for each allocation and free
	// the history records.
	frames     func() []snapshot.Frame
	opts       Options
	cfg        allocator.Config
	gpus       []*gpu
	current    int             // torch.cuda.current_device()
	peers      map[[2]int]bool // (from, to) device pairs whose first copy has run
	vars       map[string]*Tensor
	hostLive   uint64 // bytes of live host storages
	events     []string
	out        strings.Builder
	segments   []allocator.SegmentInfo
	expandable []allocator.ExpandableInfo
	notice     string
	objs       map[string]any // modules, optimizers and numbers, by name
	// Autograd: whether ops record graphs, the grad modes of enclosing
	// with-blocks, the last node's sequence number, whether backward is
	// running (it has a thread, and so cuBLAS workspaces, of its own).
	gradEnabled bool
	gradStack   []bool
	seq         int
	inBackward  bool
	workspaces  map[workspaceKey]*storage
	// interrupted is set by Interrupt, from another goroutine, and
	// cleared when a command starts.
	interrupted atomic.Bool
}

// ErrInterrupted is a command stopped by Interrupt (Ctrl-C).
var ErrInterrupted = errors.New("KeyboardInterrupt")

// Interrupt stops the running command at its next chunk of host or
// device work: it fails with ErrInterrupted and, like every failing
// command, binds and frees nothing. It may be called from any goroutine.
func (s *Session) Interrupt() { s.interrupted.Store(true) }

// NewSession returns an empty session.
func NewSession(o Options) (*Session, error) {
	if o.Devices <= 0 {
		o.Devices = 1
	}
	if o.Preset.Name == "" {
		o.Preset = Presets["h200"]
	}
	cfg, err := allocator.ParseConfig(o.AllocConf)
	if err != nil {
		return nil, err
	}
	s := &Session{opts: o, cfg: cfg, vars: map[string]*Tensor{}, objs: map[string]any{}, gradEnabled: true, workspaces: map[workspaceKey]*storage{}}
	var bs []backend
	switch o.Backend {
	case "", "sim":
	case "cuda", "auto":
		bs, err = cudaBackends()
		if err != nil && o.Backend == "cuda" {
			return nil, err
		}
		if err != nil {
			s.notice = fmt.Sprintf("%v; using a simulated %s", err, o.Preset.Name)
		}
	default:
		return nil, fmt.Errorf("unknown backend %q (sim, cuda or auto)", o.Backend)
	}
	if bs == nil {
		bs = simBackends(o)
	}
	for _, b := range bs {
		s.gpus = append(s.gpus, &gpu{b: b})
	}
	return s, nil
}

func simBackends(o Options) []backend {
	total := o.Preset.Total
	if o.TotalBytes != 0 {
		total = o.TotalBytes
	}
	bs := make([]backend, o.Devices)
	for i := range bs {
		bs[i] = &simBackend{dev: sim.New(total), preset: o.Preset, ctx: o.Preset.ContextBytes}
	}
	return bs
}

// Notice says, when the session asked for a real GPU with "auto" and got
// simulated devices, why; empty otherwise.
func (s *Session) Notice() string { return s.notice }

// Simulated reports whether the session's devices are simulated.
func (s *Session) Simulated() bool {
	_, ok := s.gpus[0].b.(*simBackend)
	return ok
}

// EvalError is a command that failed at a position of its input.
type EvalError struct {
	Pos Pos
	Err error
}

func (e *EvalError) Error() string { return e.Err.Error() }
func (e *EvalError) Unwrap() error { return e.Err }

// Result is what a command did.
type Result struct {
	Events []string // tensors created or freed, in words
	Output string   // text the command prints (memory_summary, vars, …)
	// Segments is the device's memory_snapshot(), for map.
	Segments []allocator.SegmentInfo
	// Expandable lists the expandable segments' ranges, for map.
	Expandable []allocator.ExpandableInfo
	// Elapsed is the command's wall time (device work included: fills and
	// copies wait for the GPU).
	Elapsed time.Duration
}

func (s *Session) exec(c Command) error {
	switch c := c.(type) {
	case *Nop:
	case *Assign:
		v, err := s.evalValue(c.X)
		if err != nil {
			return err
		}
		s.bind(c.Name, v)
	case *Eval:
		v, err := s.evalValue(c.X)
		if err != nil {
			return err
		}
		if t, ok := v.(*Tensor); ok {
			s.drop(t, "the result")
		}
	case *Del:
		for _, n := range c.Names {
			if _, ok := s.lookup(n.Name); !ok {
				return nameError(n)
			}
		}
		for _, n := range c.Names {
			s.unbind(n.Name)
		}
	case *Backward:
		t, err := s.eval(c.X)
		if err != nil {
			return err
		}
		s.inBackward = true
		err = s.backward(t)
		s.inBackward = false
		s.dropTensor(t)
		if err != nil {
			return &EvalError{Pos: c.At, Err: err}
		}
	case *ZeroGrad:
		v, ok := s.lookup(c.Target.Name)
		switch v := v.(type) {
		case *Module:
			s.zeroGrad(v.parameters(), c.SetToNone)
		case *Optimizer:
			s.zeroGrad(v.Params, c.SetToNone)
		default:
			if !ok {
				return nameError(c.Target)
			}
			return &EvalError{Pos: c.Target.At, Err: fmt.Errorf("AttributeError: %s has no attribute 'zero_grad'", c.Target.Name)}
		}
	case *Step:
		o, ok := s.objs[c.Opt.Name].(*Optimizer)
		if _, bound := s.lookup(c.Opt.Name); !bound {
			return nameError(c.Opt)
		}
		if !ok {
			return &EvalError{Pos: c.Opt.At, Err: fmt.Errorf("AttributeError: %s is not an optimizer", c.Opt.Name)}
		}
		if err := s.step(o); err != nil {
			return &EvalError{Pos: c.Opt.At, Err: err}
		}
	case *GradMode:
		if c.Block {
			s.gradStack = append(s.gradStack, s.gradEnabled)
		}
		s.gradEnabled = c.Enabled
		if c.Body != nil {
			err := s.exec(c.Body)
			s.exec(&EndBlock{}) //nolint:errcheck // cannot fail
			return err
		}
	case *EndBlock:
		if n := len(s.gradStack); n > 0 {
			s.gradEnabled = s.gradStack[n-1]
			s.gradStack = s.gradStack[:n-1]
		}
	case *Print:
		if n, ok := c.X.(*Name); ok {
			if v, ok := s.objs[n.Name].(float64); ok {
				fmt.Fprintln(&s.out, v)
				break
			}
		}
		t, err := s.eval(c.X)
		if err != nil {
			return err
		}
		if t.number {
			s.out.WriteString("(a Python number; its value is not computed)\n")
		} else {
			s.out.WriteString(repr(t) + "\n")
		}
		s.dropTensor(t)
	case *SnapshotSave:
		g, err := s.gpu(c.Device)
		if err != nil {
			return err
		}
		var segs []allocator.SegmentInfo
		if g.alloc != nil {
			segs = g.alloc.Snapshot()
		}
		save := func(tmp string) error { return snapshot.Save(tmp, c.Device, segs, g.history.Events, s.opts.AllocConf) }
		if err := outfile.WritePath(c.Path, save); err != nil {
			return &EvalError{Pos: c.At, Err: err}
		}
		s.event("wrote %s: %d segments, %d events of cuda:%d's history (open it at pytorch.org/memory_viz)", c.Path, len(segs), len(g.history.Events), c.Device)
	case *Load:
		l, err := s.load(c)
		if err != nil {
			return &EvalError{Pos: c.At, Err: err}
		}
		s.bind(c.Name, l)
	case *RequiresGrad:
		t, ok := s.vars[c.X.Name]
		if !ok {
			return nameError(c.X)
		}
		if t.fn != nil {
			return &EvalError{Pos: c.X.At, Err: errors.New("RuntimeError: you can only change requires_grad flags of leaf variables.")}
		}
		if t.slot == nil {
			t.slot = &gradSlot{}
		}
	case *EmptyCache:
		for i, g := range s.gpus {
			if g.alloc != nil {
				if err := g.alloc.EmptyCache(); err != nil {
					return fmt.Errorf("cuda:%d: %w", i, err)
				}
			}
		}
	case *SetDevice:
		if _, err := s.initGPU(c.Device); err != nil {
			return err
		}
		s.current = c.Device
	case *CurrentDevice:
		fmt.Fprintf(&s.out, "%d\n", s.current)
	case *MemorySummary:
		g, err := s.gpu(c.Device)
		if err != nil {
			return err
		}
		st := g.stats()
		s.out.WriteString(st.Summary(c.Device, false))
	case *MemoryStats:
		g, err := s.gpu(c.Device)
		if err != nil {
			return err
		}
		var v [allocator.NumStatKeys]int64
		st := g.stats()
		st.Values(&v)
		if c.Key != "" { // 0 before CUDA is initialised, as in PyTorch
			fmt.Fprintf(&s.out, "%d\n", v[slices.Index(allocator.StatKeys, c.Key)])
			break
		}
		if g.alloc == nil {
			s.out.WriteString("{}\n") // CUDA not initialised
			break
		}
		for i, k := range allocator.StatKeys {
			fmt.Fprintf(&s.out, "%s: %d\n", k, v[i])
		}
	case *ResetPeak:
		g, err := s.initGPU(c.Device)
		if err != nil {
			return err
		}
		g.alloc.ResetPeakStats()
	case *SetFraction:
		g, err := s.initGPU(c.Device)
		if err != nil {
			return err
		}
		return g.alloc.SetMemoryFraction(c.Fraction)
	case *AllocConf:
		return s.setAllocConf(c.Conf)
	case *Vars:
		s.listVars()
	case *GPUs:
		for i, g := range s.gpus {
			fmt.Fprintf(&s.out, "cuda:%d  %s\n", i, g.b.describe())
		}
	case *Map:
		g, err := s.gpu(c.Device)
		if err != nil {
			return err
		}
		if g.alloc != nil {
			s.segments = g.alloc.Snapshot()
			s.expandable = g.alloc.Expandable()
		}
	default:
		return fmt.Errorf("unknown command %T", c)
	}
	return nil
}

func (g *gpu) stats() allocator.Stats {
	if g.alloc == nil {
		return allocator.Stats{MaxSplitSize: -1}
	}
	return g.alloc.Stats()
}

// CurrentDevice is the device torch.cuda.set_device chose (0 at first):
// what `cuda` means.
func (s *Session) CurrentDevice() int { return s.current }

// ErrConfigFrozen is returned by alloc_conf once a device is in use.
var ErrConfigFrozen = errors.New("alloc_conf: the allocator config is read once, when CUDA is first used, and CUDA is in use already (set PYTORCH_CUDA_ALLOC_CONF or --alloc-conf, or run alloc_conf before the first CUDA command)")

func (s *Session) setAllocConf(conf string) error {
	for _, g := range s.gpus {
		if g.alloc != nil {
			return ErrConfigFrozen
		}
	}
	cfg, err := allocator.ParseConfig(conf)
	if err != nil {
		return err
	}
	s.cfg, s.opts.AllocConf = cfg, conf
	return nil
}

func (s *Session) gpu(i int) (*gpu, error) {
	if i < 0 || i >= len(s.gpus) {
		return nil, fmt.Errorf("CUDA error: invalid device ordinal: cuda:%d (this session has %d device(s))", i, len(s.gpus))
	}
	return s.gpus[i], nil
}

// initGPU returns device i, creating its CUDA context and allocator on
// first use.
func (s *Session) initGPU(i int) (*gpu, error) {
	g, err := s.gpu(i)
	if err != nil {
		return nil, err
	}
	if g.alloc == nil {
		dev, err := g.b.open()
		if err != nil {
			return nil, fmt.Errorf("cuda:%d: %w", i, err)
		}
		log := snapshot.NewSegmentLog(dev)
		log.OnEvent = g.history.Add
		if !s.opts.FakeHost { // real microsecond times; the golden tests keep numbered ones
			g.history.Now = func() int64 { return time.Now().UnixMicro() }
		}
		g.alloc = allocator.New(log, i, s.cfg)
		if used, ok := g.b.driverUsed(); ok {
			g.ctx = used
			s.event("CUDA context created on cuda:%d: %s of device memory before any tensor", i, allocator.FormatSize(used))
		} else {
			s.event("CUDA context created on cuda:%d (its size is n/a without NVML)", i)
		}
	}
	return g, nil
}

func nameError(n *Name) error {
	return &EvalError{Pos: n.At, Err: fmt.Errorf("NameError: name '%s' is not defined", n.Name)}
}

func (s *Session) event(format string, args ...any) {
	s.events = append(s.events, fmt.Sprintf(format, args...))
}

func describe(t *Tensor) string {
	d := fmt.Sprintf("%s %s %s on %s", allocator.FormatSize(t.Bytes()), t.DType.Name, dimList(t.Shape), t.Device())
	switch {
	case t.fn != nil:
		d += ", grad_fn=<" + t.fn.name + ">"
	case t.slot != nil:
		d += ", requires_grad"
		if t.slot.grad != nil {
			d += ", .grad " + allocator.FormatSize(t.slot.grad.Bytes())
		}
	}
	return d
}

// eval returns a tensor that holds its own reference to its storage.
func (s *Session) eval(e Expr) (*Tensor, error) {
	switch e := e.(type) {
	case *handle:
		return share(e.t), nil
	case *Name:
		switch v := s.objs[e.Name].(type) {
		case float64:
			return &Tensor{number: true}, nil
		case nil:
		default:
			return nil, &EvalError{Pos: e.At, Err: fmt.Errorf("TypeError: %s is a %T, not a tensor", e.Name, v)}
		}
		t, ok := s.vars[e.Name]
		if !ok {
			return nil, nameError(e)
		}
		return share(t), nil
	case *Number:
		return &Tensor{number: true}, nil
	case *Op:
		return s.evalOp(e)
	case *Call:
		m, ok := s.objs[e.Fn.Name].(*Module)
		if !ok {
			if _, isTensor := s.vars[e.Fn.Name]; !isTensor {
				return nil, nameError(e.Fn)
			}
			return nil, &EvalError{Pos: e.Fn.At, Err: fmt.Errorf("TypeError: 'Tensor' object is not callable")}
		}
		x, err := s.tensorArg(e.Arg, e.At, "a module call")
		if err != nil {
			return nil, err
		}
		y, err := s.callModule(m, x)
		s.dropTensor(x)
		if err != nil {
			return nil, &EvalError{Pos: e.At, Err: err}
		}
		return y, nil
	case *Create:
		t := &Tensor{Shape: e.Shape, DType: e.DType}
		if err := checkSize(e.Shape, e.DType.Size); err != nil {
			return nil, &EvalError{Pos: e.At, Err: err}
		}
		st, err := s.newStorage(e.Device, t.Bytes(), e.Op != "empty")
		if err != nil {
			return nil, &EvalError{Pos: e.At, Err: err}
		}
		t.st = st
		st.vals = createValues(e)
		if e.RequiresGrad {
			t.slot = &gradSlot{}
		}
		return t, nil
	case *To:
		x, err := s.tensorArg(e.X, e.At, "to")
		if err != nil {
			return nil, err
		}
		if x.Device() == e.Device {
			return x, nil
		}
		return s.copyTo(x, e.Device, e.At)
	case *View:
		x, err := s.tensorArg(e.X, e.At, "view")
		if err != nil {
			return nil, err
		}
		shape, err := viewShape(x, e)
		if err != nil {
			s.dropTensor(x)
			return nil, &EvalError{Pos: e.At, Err: err}
		}
		if e.Index >= 0 {
			x.offset += uint64(e.Index) * numel(shape)
		}
		x.Shape = shape
		return x, nil
	case *Clone:
		x, err := s.tensorArg(e.X, e.At, "clone")
		if err != nil {
			return nil, err
		}
		return s.copyTo(x, x.Device(), e.At)
	}
	return nil, fmt.Errorf("unknown expression %T", e)
}

// tensorArg evaluates e, which must be a tensor, not a number.
func (s *Session) tensorArg(e Expr, at Pos, what string) (*Tensor, error) {
	x, err := s.eval(e)
	if err == nil && x.number {
		err = &EvalError{Pos: at, Err: fmt.Errorf("TypeError: %s needs a tensor, not a number", what)}
	}
	return x, err
}

// copyTo makes a copy of the temporary x on dev and drops x.
func (s *Session) copyTo(x *Tensor, dev Device, at Pos) (*Tensor, error) {
	st, err := s.newStorage(dev, x.Bytes(), false)
	if err == nil {
		if err = s.copyBytes(st, x.st, x.offset*x.DType.Size, x.Bytes()); err != nil {
			s.release(st)
		}
	}
	if err != nil {
		s.dropTensor(x)
		return nil, &EvalError{Pos: at, Err: err}
	}
	y := &Tensor{Shape: x.Shape, DType: x.DType, st: st}
	st.vals = x.st.vals
	if len(st.vals) > 1 { // the copy holds the view's elements only
		st.vals = st.vals[x.offset : x.offset+x.Numel()]
	}
	s.dropTensor(x)
	return y, nil
}

// copyBytes copies n bytes of src from byte off into dst, wherever each
// is, in chunks, so that an interrupt stops it.
func (s *Session) copyBytes(dst, src *storage, off, n uint64) error {
	switch {
	case dst.device.CUDA && src.device.CUDA:
		to, from := s.gpus[dst.device.Index].b, s.gpus[src.device.Index].b
		if err := s.peer(src.device, dst.device); err != nil {
			return err
		}
		return s.chunked(n, func(o, end uint64) error { return to.copyDevice(dst.ptr+o, from, src.ptr+off+o, end-o) })
	case dst.device.CUDA:
		if src.host == nil { // FakeHost: no bytes to copy
			return nil
		}
		b := s.gpus[dst.device.Index].b
		return s.chunked(n, func(o, end uint64) error { return b.copyIn(dst.ptr+o, src.host.mem[off+o:off+end]) })
	case src.device.CUDA:
		if dst.host == nil {
			return nil
		}
		b := s.gpus[src.device.Index].b
		return s.chunked(n, func(o, end uint64) error { return b.copyOut(dst.host.mem[o:end], src.ptr+off+o) })
	case dst.host != nil && src.host != nil:
		return s.chunked(n, func(o, end uint64) error { copy(dst.host.mem[o:end], src.host.mem[off+o:off+end]); return nil })
	}
	return nil
}

// peer enables device from's access to device to's memory before the
// first copy between them, as PyTorch does, and says which way the bytes
// will go.
func (s *Session) peer(from, to Device) error {
	pair := [2]int{from.Index, to.Index}
	if from == to || s.peers[pair] {
		return nil
	}
	ok, err := s.gpus[from.Index].b.enablePeer(s.gpus[to.Index].b)
	if err != nil {
		return fmt.Errorf("%s: enabling peer access to %s: %w", from, to, err)
	}
	if s.peers == nil {
		s.peers = map[[2]int]bool{}
	}
	s.peers[pair] = true
	if ok {
		s.event("peer access from %s to %s enabled: copies go device to device", from, to)
	} else {
		s.event("no peer access from %s to %s: the driver stages copies through host memory", from, to)
	}
	return nil
}

// newStorage takes n bytes on dev; fill writes them (zeros), as every
// constructor but empty does, and a copy leaves them to the copy.
func (s *Session) newStorage(dev Device, n uint64, fill bool) (*storage, error) {
	return s.newStorageOn(dev, 0, n, fill)
}

// newStorageOn is newStorage on a CUDA stream (a loaded history's).
func (s *Session) newStorageOn(dev Device, stream, n uint64, fill bool) (*storage, error) {
	st := &storage{device: dev, bytes: n, refs: 1, stream: stream}
	if !dev.CUDA {
		if avail, ok := memAvailable(); ok && n > avail {
			return nil, &HostAllocError{Bytes: n}
		}
		if !s.opts.FakeHost {
			h, err := s.newHostBuf(n, fill)
			if err != nil {
				return nil, err
			}
			st.host = h
		}
		s.hostLive += n
		return st, nil
	}
	g, err := s.initGPU(dev.Index)
	if err != nil {
		return nil, err
	}
	g.history.Stream = stream
	s.stamp(g)
	p, err := g.alloc.MallocOn(stream, n)
	if err != nil {
		g.history.Add("oom", 0, n)
		return nil, err
	}
	g.history.Add("alloc", p, n)
	st.ptr = p
	if fill && n > 0 {
		if err := g.b.zero(p, n); err != nil {
			s.release(st)
			return nil, fmt.Errorf("cuda:%d: %w", dev.Index, err)
		}
	}
	return st, nil
}

// drop releases a tensor that goes away, and says so when its storage is
// freed.
func (s *Session) drop(t *Tensor, who string) {
	if s.dropTensor(t) {
		s.event("freed %s (%s on %s)", who, allocator.FormatSize(t.st.bytes), t.Device())
	}
}

// release drops one reference and frees the storage with the last; it
// reports whether it freed.
func (s *Session) release(st *storage) bool {
	if st == nil {
		return false
	}
	st.refs--
	if st.refs > 0 {
		return false
	}
	if st.device.CUDA {
		if st.bytes > 0 {
			g := s.gpus[st.device.Index]
			g.history.Stream = st.stream
			s.stamp(g)
			g.history.Add("free_requested", st.ptr, st.bytes)
			g.alloc.Free(st.ptr) //nolint:errcheck // the engine only frees what it allocated
			g.history.Add("free_completed", st.ptr, st.bytes)
		}
	} else {
		if st.host != nil {
			st.host.free()
		}
		s.hostLive -= st.bytes
	}
	return true
}

func (s *Session) listVars() {
	names := s.Names()
	if len(names) == 0 {
		s.out.WriteString("no tensors\n")
		return
	}
	for _, n := range names {
		t, ok := s.vars[n]
		if !ok {
			s.out.WriteString(fmt.Sprintf("%-8s %s\n", n, describeObj(s.objs[n])))
			continue
		}
		var shared []string
		for _, m := range names {
			if u, ok := s.vars[m]; ok && m != n && u.st == t.st {
				shared = append(shared, m)
			}
		}
		line := fmt.Sprintf("%-8s %s", n, describe(t))
		if t.StorageBytes() > t.Bytes() {
			line += fmt.Sprintf(", a view keeping a %s storage alive", allocator.FormatSize(t.StorageBytes()))
		}
		if len(shared) > 0 {
			line += " (storage shared with " + strings.Join(shared, ", ") + ")"
		}
		s.out.WriteString(line + "\n")
	}
}

// describeObj says what a module, optimizer or number is and holds.
func describeObj(v any) string {
	switch v := v.(type) {
	case *Module:
		ps := v.parameters()
		var grads []*Tensor
		for _, p := range ps {
			if p.slot.grad != nil {
				grads = append(grads, p.slot.grad)
			}
		}
		d := fmt.Sprintf("%s: %s of parameters", v, allocator.FormatSize(paramBytes(ps)))
		if len(ps) > 0 {
			d += " on " + ps[0].Device().String()
		}
		if len(grads) > 0 {
			d += fmt.Sprintf(", %s of .grad", allocator.FormatSize(paramBytes(grads)))
		}
		return d
	case *Optimizer:
		var state []*Tensor
		for _, st := range v.state {
			state = append(state, st...)
		}
		return fmt.Sprintf("%s over %d parameters, %s of state", v.Kind, len(v.Params), allocator.FormatSize(paramBytes(state)))
	}
	return fmt.Sprint(v)
}

// Names lists the bound names, sorted.
func (s *Session) Names() []string {
	names := make([]string, 0, len(s.vars)+len(s.objs))
	for n := range s.vars {
		names = append(names, n)
	}
	for n := range s.objs {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// viewShape is the shape of x[i] or x.view(...).
func viewShape(x *Tensor, v *View) ([]int64, error) {
	if v.Index >= 0 {
		if len(x.Shape) == 0 || v.Index >= x.Shape[0] {
			return nil, fmt.Errorf("IndexError: index %d is out of bounds for dimension 0 with size %d", v.Index, firstDim(x.Shape))
		}
		return x.Shape[1:], nil
	}
	n, known, infer := int64(x.Numel()), int64(1), -1
	shape := append([]int64(nil), v.Shape...)
	for i, d := range shape {
		if d == -1 && infer < 0 {
			infer = i
			continue
		}
		known *= d
	}
	if infer >= 0 && known > 0 {
		shape[infer] = n / known
		known *= shape[infer]
	}
	if known != n {
		return nil, fmt.Errorf("RuntimeError: shape '%s' is invalid for input of size %d", dimList(v.Shape), n)
	}
	return shape, nil
}

func dimList(s []int64) string { return "[" + joinDims(s, ", ") + "]" }

// joinDims writes a shape's dimensions with sep between them.
func joinDims(s []int64, sep string) string {
	d := make([]string, len(s))
	for i, v := range s {
		d[i] = fmt.Sprint(v)
	}
	return strings.Join(d, sep)
}

func firstDim(s []int64) int64 {
	if len(s) == 0 {
		return 0
	}
	return s[0]
}
