package engine

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/device"
	"github.com/gpumemrepl/gpumemrepl/allocator/device/sim"
	"github.com/gpumemrepl/gpumemrepl/allocator/host"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// Preset describes a simulated GPU.
type Preset struct {
	Name  string // the preset's own name (--preset)
	Model string // the GPU's name, as torch.cuda.get_device_name says it
	Total uint64 // cuDeviceTotalMem
	// ContextBytes is what a PyTorch process's CUDA context takes.
	ContextBytes uint64
	// ComputeMajor and ComputeMinor are the compute capability (the
	// major number sizes the cuBLAS workspace).
	ComputeMajor, ComputeMinor int
	PeerAccess                 bool // whether two of them reach each other's memory (P2P)
	// SMs and ThreadsPerSM are the multiprocessor count and the most
	// threads one runs at once: they size a reduction's grid.
	SMs, ThreadsPerSM int
	// ContextMeasured is whether ContextBytes was measured on this GPU
	// with PyTorch 2.11; else it is the H200's, taken (fit marks it).
	ContextMeasured bool
}

// h200Context is the CUDA context of a PyTorch 2.11 process on the H200
// once it has run a kernel (testdata/truth/README.md).
const h200Context = 639631360

// Presets are the simulated GPUs by name. The H200 is measured with
// PyTorch 2.11. The others' totals are cuDeviceTotalMem as CUDA's
// deviceQuery printed it in published runs (the driver version in
// brackets; the figure moves by a few MiB between drivers); their
// contexts were not measured and are the H200's (--context-bytes sets
// one). GeForce RTX 40 cards have no peer-to-peer access; the others do
// (NVLink or PCIe). Multiprocessors and threads per multiprocessor are
// each GPU's published figures (the H200's as PyTorch reports them:
// scripts/probe_reduce.py), as are the names get_device_name gives and
// the compute capabilities.
var Presets = map[string]Preset{
	"h200":      {"h200", "NVIDIA H200", sim.H200Total, h200Context, 9, 0, true, 132, 2048, true},
	"h100":      {"h100", "NVIDIA H100 80GB HBM3", 85017755648, h200Context, 9, 0, true, 132, 2048, false},       // [13.0]
	"a100-80gb": {"a100-80gb", "NVIDIA A100-SXM4-80GB", 85100068864, h200Context, 8, 0, true, 108, 2048, false},  // [12.5]
	"a100-40gb": {"a100-40gb", "NVIDIA A100-SXM4-40GB", 42298834944, h200Context, 8, 0, true, 108, 2048, false},  // [12.2]
	"rtx4090":   {"rtx4090", "NVIDIA GeForce RTX 4090", 25250627584, h200Context, 8, 9, false, 128, 1536, false}, // [13.0]
	"t4":        {"t4", "Tesla T4", 15642329088, h200Context, 7, 5, true, 40, 1024, false},                       // [12.4]
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
	// HostBudget is how many bytes of live host tensors are real memory
	// of this process at the end of a step (0: DefaultHostBudget); past
	// it they are counted, not allocated (hostbudget.go).
	HostBudget uint64
	// HostTotal is the simulated machine's host memory: a host tensor
	// that would take live host tensors past it fails with PyTorch's
	// DefaultCPUAllocator error (0: this machine's MemTotal).
	HostTotal uint64
	// Backend is where CUDA tensors live: "sim" (the default), "cuda"
	// (the GPUs of this machine, an error when there are none) or "auto"
	// (the GPUs when one is usable, else simulated devices, with a
	// Notice saying so).
	Backend string
	// Strict refuses to estimate: an op with no recorded rule for its
	// arguments fails, as before the tool could estimate, instead of
	// going on by a general rule (tiers.go).
	Strict bool
	// ForceGeneral runs the named table ops ("all": every one the
	// general rule covers) by the general rule instead of their recorded
	// rules: to measure the general rule's error against the recordings
	// (general.go). Not for users: cmd sets it from GPUMEMREPL_FORCE_GENERAL.
	ForceGeneral []string
	// DriverAddresses has the simulated device take the address space
	// the CUDA driver takes for itself as the program runs (the engine
	// reports what makes it: driverevents.go), which decides which of
	// two equal free blocks PyTorch's best fit takes
	// (testdata/segments/README.md). The binary turns it on for every
	// simulated run (run, the prompt, fit, diff); --driver-addresses=false
	// turns it off for run and the prompt.
	DriverAddresses bool
	// PlacementUnmodelled says the user turned DriverAddresses off on a
	// simulated device (--driver-addresses=false): the first segment it
	// makes is an estimate, since where two equal free blocks tie,
	// PyTorch's best fit may take the other (driverevents.go).
	PlacementUnmodelled bool
	// Calibration names calibration files: recordings of convolutions
	// made on the user's GPU (scripts/calibrate.py), read at the start
	// and exact over the built-in tables (calibration.go).
	Calibration []string
}

type gpu struct {
	b     backend
	dev   device.Device        // the memory under alloc
	alloc *allocator.Allocator // nil until the device is first used
	ctx   uint64               // driver-used when the context was made: its cost
	// history is the device's memory history, as
	// torch.cuda.memory._record_memory_history keeps it, for snapshot save.
	history snapshot.Recorder
	// peakAllocated and peakReserved hold the allocator's peaks from
	// before its last reset (LifetimePeaks).
	peakAllocated, peakReserved uint64
	// oomSeen and oomLimit are whether the device has run out of memory
	// and the per-process limit in force the first time (explain replays
	// under it, whatever the program set after).
	oomSeen  bool
	oomLimit *uint64
	streams  streamState // its streams and events (streams.go)
	// live is the engine's storages on the device by address, and watch
	// its peaks (holdings.go).
	live  map[uint64]*storage
	watch peakWatch
	// loads are the spans of history that LoadHistory replayed (load.go).
	loads []loadSpan
}

// Session is one REPL session's state.
type Session struct {
	// frames, when set, appends the stack of the code running (file,
	// line, function, innermost first) for each allocation and free
	// the history records.
	frames func([]snapshot.Frame) []snapshot.Frame
	// stacks are the history's stacks, one each (stamp), by their key
	// (made in stackKey), and lastFrames and lastStack the one stamp gave
	// last; frameBuf is where frames appends (the two swap, so that a
	// stack that repeats allocates nothing).
	stacks     map[string]snapshot.Stack
	stackKey   []byte
	lastFrames []snapshot.Frame
	frameBuf   []snapshot.Frame
	lastStack  snapshot.Stack
	namer      func(visit func(name string, t *Tensor, buffer bool)) // NameTensors
	namedLast  int                                                   // how many storages the namer's last walk named
	firstOOM   *OOMRecord                                            // the session's first out-of-memory error (FirstOOM)
	opts       Options
	cfg        allocator.Config
	gpus       []*gpu
	current    int             // torch.cuda.current_device()
	peers      map[[2]int]bool // (from, to) device pairs whose first copy has run
	hostLive   uint64          // bytes of live host storages
	host       hostBudget      // which of them are real memory (hostbudget.go)
	defaults   defaults        // the default dtype and device (defaults.go)
	// replaying, while LoadHistory replays, is the recorded stack of the
	// op being replayed, which its events take (load.go).
	replaying *snapshot.Stack
	// pinned is the caching host allocator (made at the first pinned
	// tensor), and pinnedBufs the host memory of its blocks.
	pinned     *host.Allocator
	pinnedBufs map[*host.Block]*hostBuf
	// pinnedUses are the streams whose non-blocking copies used each
	// live pinned block; pinnedWaits the points a freed one waits for.
	pinnedUses  map[*host.Block][]Stream
	pinnedWaits map[*host.Block][]pinnedMark
	events      []string
	notice      string
	tiers       tiers // the estimates made, and where the figures stand (tiers.go)
	// placementNoted: the estimate of Options.PlacementUnmodelled made
	placementNoted bool
	// hostLargest is the largest host storage made, hostThreads whether
	// an op has run on the host's intra-op threads: what may leave room
	// above a CUDA context created now (driverevents.go's contextCreated).
	hostLargest uint64
	hostThreads bool
	// reporting is set while the tool's own report runs the program's
	// code (Reporting).
	reporting bool
	// Autograd: whether ops record graphs, the last node's sequence
	// number, whether backward is running (it has a thread, and so cuBLAS
	// workspaces, of its own); inference is torch.inference_mode's,
	// which marks the storages made under it.
	gradEnabled bool
	inference   bool
	seq         int
	inBackward  bool
	// accStreamMismatch is set when a backward handed a leaf's
	// AccumulateGrad a gradient made on another stream (PyTorch warns).
	accStreamMismatch bool
	// interrupted is set by Interrupt, from another goroutine, and
	// cleared by BeginStep.
	interrupted atomic.Bool
	// families is the op families' own state (families.go), which the
	// core does not read.
	families
	// retaining is set while a backward keeps its graph (retain_graph);
	// warnings are what ops warned since the front end last took them
	// (TakeWarnings).
	retaining bool
	warnings  []string
}

// errInterrupted is the error of a call stopped by Interrupt (Ctrl-C):
// KeyboardInterrupt, with no message, as Python raises it.
var errInterrupted = &Error{Kind: KeyboardInterrupt}

// Interrupt stops the running call at its next chunk of host or device
// work: it fails with KeyboardInterrupt and, like every failing call, leaves
// no new tensor behind. It may be called from any goroutine.
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
	if o.TotalBytes != 0 && o.TotalBytes <= o.Preset.ContextBytes {
		return nil, fmt.Errorf("a simulated GPU of %d bytes has no room beside its %d-byte CUDA context", o.TotalBytes, o.Preset.ContextBytes)
	}
	s := &Session{opts: o, cfg: cfg, gradEnabled: true}
	s.host = newHostBudget(o.HostBudget, o.HostTotal)
	s.defaults = defaults{dtype: Float32, device: CPU}
	if err := s.familiesStart(); err != nil {
		return nil, err
	}
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

func (g *gpu) stats() allocator.Stats {
	if g.alloc == nil {
		return allocator.Stats{MaxSplitSize: -1}
	}
	return g.alloc.Stats()
}

// CurrentDevice is the device torch.cuda.set_device chose (0 at first):
// what `cuda` means.
func (s *Session) CurrentDevice() int { return s.current }

// errConfigFrozen is SetAllocConf's error once a device is in use.
var errConfigFrozen = errors.New("alloc_conf: the allocator config is read once, when CUDA is first used, and CUDA is in use already (set PYTORCH_CUDA_ALLOC_CONF or --alloc-conf, or run alloc_conf before the first CUDA command)")

// SetAllocConf sets PYTORCH_CUDA_ALLOC_CONF, before the first CUDA use.
func (s *Session) SetAllocConf(conf string) error {
	for _, g := range s.gpus {
		if g.alloc != nil {
			return errConfigFrozen
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
		return nil, Errorf(AcceleratorError, "CUDA error: invalid device ordinal: cuda:%d (this session has %d device(s))", i, len(s.gpus))
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
		g.alloc, g.dev = allocator.New(log, i, s.cfg), dev
		g.streams.s, g.streams.g = s, g
		g.alloc.SetStreamEvents(&g.streams)
		s.contextCreated(i)
		if used, ok := g.b.driverUsed(); ok {
			g.ctx = used
			s.event("CUDA context created on cuda:%d: %s of device memory before any tensor", i, allocator.FormatSize(used))
		} else {
			s.event("CUDA context created on cuda:%d (its size is n/a without NVML)", i)
		}
	}
	return g, nil
}

func (s *Session) event(format string, args ...any) {
	s.events = append(s.events, fmt.Sprintf(format, args...))
}

// copyTo makes a copy of x on dev.
func (s *Session) copyTo(x *Tensor, dev Device) (*Tensor, error) {
	st, err := s.newStorage(dev, x.Bytes(), false)
	if err == nil {
		if err = s.copyBytes(st, x.st, x.offset*x.DType.Size, readBytes(x)); err != nil {
			s.release(st)
		}
	}
	if err != nil {
		return nil, err
	}
	y := &Tensor{Shape: x.Shape, DType: x.DType, st: st}
	st.vals = elementValues(x)
	return y, nil
}

// elementValues are the known values of x's elements, for a copy of x:
// nil when they are unknown, or when x is a strided view (its elements
// are not a range of its storage's).
func elementValues(x *Tensor) knownValues {
	switch {
	case !x.IsContiguous():
		return nil
	case len(x.st.vals) > 1: // a value an element: the view's own
		return x.st.vals[x.offset : x.offset+x.Numel()]
	}
	return x.st.vals // none, or one for every element
}

// readBytes is how many bytes of its storage, from its offset, a copy
// of x reads as one range: its elements' bytes when it is contiguous;
// for a strided or expanded view (PyTorch copies one element by element
// in a kernel, never past its storage) the range from its first element
// to its last, at most as many. The tool keeps no element's value in
// device memory, so the copy's bytes need not be in the view's order.
func readBytes(x *Tensor) uint64 {
	n := x.Bytes()
	if end, ok := extent(x.Shape, x.Strides(), x.offset); ok && !x.IsContiguous() {
		n = min(n, (end-x.offset)*x.DType.Size)
	}
	return n
}

// copyBytes copies n bytes of src from byte off into dst, wherever each
// is, in chunks, so that an interrupt stops it. A meta storage has no
// bytes to give; into one, nothing is copied. A copy that reaches past
// either storage is refused on every device, as the CUDA driver refuses
// it (cuMemcpy: CUDA_ERROR_INVALID_VALUE), so that the simulated device
// fails where the real one would.
func (s *Session) copyBytes(dst, src *storage, off, n uint64) error {
	switch {
	case src.device.Meta && !dst.device.Meta:
		return ErrNoData
	case dst.device.Meta:
		return nil
	case off > src.bytes || n > src.bytes-off || n > dst.bytes:
		return Refusef(RuntimeError, "internal error: a copy of %d bytes from byte %d of a %d-byte storage into a %d-byte one reaches past the storage (the CUDA driver refuses it: CUDA_ERROR_INVALID_VALUE)", n, off, src.bytes, dst.bytes)
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
			s.host.written(dst)
			return nil
		}
		b := s.gpus[src.device.Index].b
		return s.chunked(n, func(o, end uint64) error { return b.copyOut(dst.host.mem[o:end], src.ptr+off+o) })
	case dst.host != nil && src.host != nil:
		return s.chunked(n, func(o, end uint64) error { copy(dst.host.mem[o:end], src.host.mem[off+o:off+end]); return nil })
	case dst.host == nil:
		s.host.written(dst)
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

// newStorage takes n bytes on dev, on its current stream; fill writes
// them (zeros), as every constructor but empty does, and a copy leaves
// them to the copy.
func (s *Session) newStorage(dev Device, n uint64, fill bool) (*storage, error) {
	return s.newStorageOn(dev, s.currentStream(dev), n, fill)
}

// newStorageOn is newStorage on a CUDA stream (a loaded history's).
func (s *Session) newStorageOn(dev Device, stream, n uint64, fill bool) (*storage, error) {
	st := &storage{device: dev, bytes: n, refs: 1, stream: stream, inference: s.inference}
	if err := s.storageMade(st); err != nil {
		return nil, err
	}
	if dev.Meta { // shapes and dtypes only: no memory anywhere
		return st, nil
	}
	if !dev.CUDA {
		if s.hostLive+n > s.host.total || s.hostLive+n < n {
			if s.host.refused == 0 {
				s.host.refused, s.host.refusedLive = n, s.hostLive
			}
			return nil, &hostAllocError{bytes: n}
		}
		s.hostLive += n
		s.hostLargest = max(s.hostLargest, n)
		s.host.grew(s.hostLive)
		if !s.opts.FakeHost {
			s.host.add(st, fill)
		}
		return st, nil
	}
	g, err := s.initGPU(dev.Index)
	if err != nil {
		return nil, err
	}
	if n == 0 { // PyTorch's allocator takes no block for no bytes
		return st, nil
	}
	g.history.Stream = stream
	s.stamp(g)
	refused := g.alloc.DeviceRefusals()
	p, err := g.alloc.MallocOn(stream, n)
	if err != nil {
		g.history.Add("oom", 0, n)
		s.noteOOM(g, err)
		if cerr := s.noteRefusals(dev, g, refused, n); cerr != nil {
			return nil, cerr
		}
		return nil, err
	}
	err = s.noteRefusals(dev, g, refused, n)
	if err == nil {
		err = s.notePlacement(dev, n)
	}
	if err != nil {
		if ferr := g.alloc.Free(p); ferr != nil {
			return nil, ferr
		}
		return nil, err
	}
	g.history.Add("alloc", p, n)
	g.streams.point(stream)
	st.ptr, st.made = p, len(g.history.Events)-1
	if g.live == nil {
		g.live = map[uint64]*storage{}
	}
	g.live[p] = st
	s.notePeak(g)
	if fill && n > 0 {
		if err := g.b.zero(p, n); err != nil {
			s.release(st)
			return nil, fmt.Errorf("cuda:%d: %w", dev.Index, err)
		}
	}
	return st, nil
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
			s.settle(g, st.device.Index)
			delete(g.live, st.ptr)
			g.watch.noteFreed(st)
			g.history.Stream = st.stream
			s.stamp(g)
			g.history.Add("free_requested", st.ptr, st.bytes)
			// The engine only frees what it allocated: no error.
			if waiting, _ := g.alloc.FreeWaiting(st.ptr); !waiting {
				g.history.Add("free_completed", st.ptr, st.bytes)
			} else {
				s.event("the %s block of cuda:%d just freed waits for the streams record_stream named: reused once the program synchronizes them (on a GPU, behind short kernels, often sooner; the tool cannot know)", allocator.FormatSize(st.bytes), st.device.Index)
			}
		}
	} else if st.pinned != nil {
		s.releasePinned(st)
	} else if !st.mapped && !st.device.Meta {
		if st.host != nil {
			st.host.free()
		} else {
			s.host.drop(st)
		}
		s.hostLive -= st.bytes
	}
	return true
}

// viewShape is the shape x.view(want) gives a tensor of numel elements:
// want, its one -1 inferred.
func viewShape(numel uint64, want []int64) ([]int64, error) {
	n, known, infer := int64(numel), int64(1), -1
	shape := append([]int64(nil), want...)
	for i, d := range shape {
		switch {
		case d == -1 && infer >= 0:
			return nil, Errorf(RuntimeError, "only one dimension can be inferred")
		case d == -1:
			infer = i
		case d < 0:
			return nil, Errorf(RuntimeError, "invalid shape dimension %d", d)
		default:
			known *= d
		}
	}
	if n == known || infer >= 0 && known > 0 && n%known == 0 {
		if infer >= 0 {
			if known == 0 {
				return nil, Errorf(RuntimeError, "cannot reshape tensor of 0 elements into shape %s because the unspecified dimension size -1 can be any value and is ambiguous", dimList(want))
			}
			shape[infer] = n / known
		}
		return shape, nil
	}
	return nil, Errorf(RuntimeError, "shape '%s' is invalid for input of size %d", dimList(want), n)
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
