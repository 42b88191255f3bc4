package engine

import (
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// The engine's Go API. A *Tensor handed out by these methods is one
// reference (a TensorImpl, in PyTorch's terms): it keeps its storage and
// its autograd node alive until Release. The front end owns the
// handles; names, lists and other Python references are its business.

// BeginStep starts a step: the events, estimates and output of the last
// one are cleared. A pending interrupt stays: one that came between the line
// being read and its step starting is the step's (ClearInterrupt).
func (s *Session) BeginStep() {
	s.events = s.events[:0]
	s.tiers.beginStep()
	s.beginStepPeaks()
	s.hooksNoted = false
}

// warn is an op's warning, as PyTorch's TORCH_WARN gives it (a
// UserWarning): the front end issues it after the op (TakeWarnings).
func (s *Session) warn(msg string) { s.warnings = append(s.warnings, msg) }

// TakeWarnings are the warnings ops gave since the last call, in order.
func (s *Session) TakeWarnings() []string {
	w := s.warnings
	s.warnings = nil
	return w
}

// ClearInterrupt forgets a pending interrupt: the prompt calls it as it
// starts to read a line, so that one from the last command does not
// stop the next.
func (s *Session) ClearInterrupt() { s.interrupted.Store(false) }

// EventsSince are what the session did since BeginStep, in words, in
// order, but the first i: what a report after each statement of a loop
// has not shown yet, without copying what it has (a 100,000-iteration
// loop copied them all every iteration).
func (s *Session) EventsSince(i int) []string {
	return slices.Clone(s.events[min(i, len(s.events)):])
}

// Eventf adds an event of the front end's (a name bound, a value freed).
func (s *Session) Eventf(format string, args ...any) { s.event(format, args...) }

// TensorSpec describes a new tensor made by a factory.
type TensorSpec struct {
	// Op is the factory: zeros, ones, full, tensor (filled, so written),
	// empty, rand or randn (values unknown; rand and randn write).
	Op           string
	Shape        []int64
	DType        DType
	Device       Device
	RequiresGrad bool
	// Values are full's fill value, or tensor's elements.
	Values []float64
	// Pinned puts a CPU tensor in pinned host memory (pin_memory=True).
	Pinned bool
}

// NewTensor makes a tensor as a factory does.
func (s *Session) NewTensor(sp TensorSpec) (*Tensor, error) {
	if err := checkSize(sp.Shape, sp.DType.Size); err != nil {
		return nil, err
	}
	t := &Tensor{Shape: sp.Shape, DType: sp.DType}
	var st *storage
	var err error
	switch {
	case sp.Pinned && sp.Device.CUDA:
		err = errors.New("Only dense CPU tensors can be pinned")
	case sp.Pinned:
		st, err = s.newPinnedStorage(t.Bytes())
	default:
		st, err = s.newStorage(sp.Device, t.Bytes(), sp.Op != "empty")
	}
	if err != nil {
		return nil, err
	}
	t.st = st
	if sp.Op == "zeros" || sp.Op == "ones" || sp.Op == "full" {
		s.kernelOn(sp.Op, t) // the fill
	}
	if !isComplex(sp.DType) { // the tool keeps no complex values
		st.vals = createValues(sp.Op, sp.Values)
	}
	if sp.RequiresGrad {
		t.slot = newGradSlot()
		st.role = roleParam
	}
	return t, nil
}

// Release drops the reference t is. It reports the bytes and device of
// t's storage when this was its last reference (the storage is freed),
// and ok false otherwise.
func (s *Session) Release(t *Tensor) (bytes uint64, dev Device, ok bool) {
	if s.dropTensor(t) {
		return t.st.bytes, t.st.device, true
	}
	return 0, Device{}, false
}

// To is a copy of t on dev (t.to(dev) when t is elsewhere).
func (s *Session) To(t *Tensor, dev Device) (*Tensor, error) {
	return s.copyTo(t, dev)
}

// Scalar stands for a Python number among an op's arguments.
func Scalar() *Tensor { return &Tensor{number: true} }

// Backward is t.backward(retain_graph=retainGraph): with it, the saved
// tensors stay and the graph can run again.
func (s *Session) Backward(t *Tensor, retainGraph bool) error {
	s.inBackward = true
	defer func() { s.inBackward = false }()
	return s.backward(t, retainGraph)
}

// SetRequiresGrad is t.requires_grad_(): t becomes a leaf that requires
// grad.
func (s *Session) SetRequiresGrad(t *Tensor) error {
	if t.fn != nil {
		return Errorf(RuntimeError, "you can only change requires_grad flags of leaf variables.")
	}
	if t.slot == nil {
		t.slot = newGradSlot()
		t.st.role = roleParam
	}
	return nil
}

// Grad is another reference to t's .grad, or nil when it has none.
func (s *Session) Grad(t *Tensor) *Tensor {
	if t.slot == nil || t.slot.grad == nil {
		return nil
	}
	return share(t.slot.grad)
}

// SetGradEnabled sets whether ops record graphs (torch.set_grad_enabled)
// and returns what it was.
func (s *Session) SetGradEnabled(on bool) bool {
	was := s.gradEnabled
	s.gradEnabled = on
	return was
}

// GradEnabled reports whether ops record graphs.
func (s *Session) GradEnabled() bool { return s.gradEnabled }

// SetInferenceMode sets whether torch.inference_mode is on (ops record
// no graphs and make inference tensors) and returns what it was.
func (s *Session) SetInferenceMode(on bool) bool {
	was := s.inference
	s.inference = on
	return was
}

// InferenceMode reports whether torch.inference_mode is on.
func (s *Session) InferenceMode() bool { return s.inference }

func gradOf(p *Tensor) *Tensor {
	if p.slot == nil {
		return nil
	}
	return p.slot.grad
}

// EmptyCache is torch.cuda.empty_cache(), on every device.
func (s *Session) EmptyCache() error {
	for i, g := range s.gpus {
		if g.alloc != nil {
			if err := g.alloc.EmptyCache(); err != nil {
				return fmt.Errorf("cuda:%d: %w", i, err)
			}
		}
	}
	return nil
}

// SetDevice is torch.cuda.set_device(i): it becomes the current device,
// and its CUDA context is made (cudaSetDevice does that).
func (s *Session) SetDevice(i int) error {
	if _, err := s.initGPU(i); err != nil {
		return err
	}
	s.current = i
	return nil
}

// MemorySummary is torch.cuda.memory_summary(i).
func (s *Session) MemorySummary(i int) (string, error) {
	g, err := s.gpu(i)
	if err != nil {
		return "", err
	}
	st := g.stats()
	return st.Summary(i, false), nil
}

// MemoryStats is torch.cuda.memory_stats(i): every key and its value,
// in allocator.StatKeys order; empty before the device is used.
func (s *Session) MemoryStats(i int) (map[string]int64, error) {
	g, err := s.gpu(i)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	if g.alloc == nil {
		return out, nil
	}
	var v [allocator.NumStatKeys]int64
	st := g.stats()
	st.Values(&v)
	for k, key := range allocator.StatKeys {
		out[key] = v[k]
	}
	return out, nil
}

// MemoryStat is one memory_stats() key of device i (0 before the device
// is used): what torch.cuda.memory_allocated and its kin return.
func (s *Session) MemoryStat(i int, key string) (int64, error) {
	g, err := s.gpu(i)
	if err != nil {
		return 0, err
	}
	k := slices.Index(allocator.StatKeys, key)
	if k < 0 {
		return 0, fmt.Errorf("no memory_stats key %q", key)
	}
	var v [allocator.NumStatKeys]int64
	st := g.stats()
	st.Values(&v)
	return v[k], nil
}

// ResetPeak is torch.cuda.reset_peak_memory_stats(i).
func (s *Session) ResetPeak(i int) error {
	g, err := s.initGPU(i)
	if err != nil {
		return err
	}
	g.foldPeaks()
	g.alloc.ResetPeakStats()
	return nil
}

// SetFraction is torch.cuda.set_per_process_memory_fraction(f, i).
func (s *Session) SetFraction(f float64, i int) error {
	g, err := s.initGPU(i)
	if err != nil {
		return err
	}
	return g.alloc.SetMemoryFraction(f)
}

// Segments are device i's memory_snapshot() and, with expandable
// segments, their mapped ranges (nothing before the device is used).
func (s *Session) Segments(i int) ([]allocator.SegmentInfo, []allocator.ExpandableInfo, error) {
	g, err := s.gpu(i)
	if err != nil || g.alloc == nil {
		return nil, nil, err
	}
	return g.alloc.Snapshot(), g.alloc.Expandable(), nil
}

// DeviceCount is the number of the session's GPUs.
func (s *Session) DeviceCount() int { return len(s.gpus) }

// GPUName is device i's name (torch.cuda.get_device_name).
func (s *Session) GPUName(i int) string { return s.gpus[i].b.name() }

// DescribeGPU says what device i is and, on a real GPU, what NVML says
// of it.
func (s *Session) DescribeGPU(i int) string { return s.gpus[i].b.describe() }

// SaveSnapshot writes device dev's snapshot and history to path, as
// torch.cuda.memory._dump_snapshot does.
func (s *Session) SaveSnapshot(path string, dev int) error {
	f, err := s.snapshotFile(dev)
	if err != nil {
		return err
	}
	if err := f.Save(path, nil); err != nil {
		return err
	}
	s.event("wrote %s: %d segments, %d events of cuda:%d's history (open it at pytorch.org/memory_viz)", path, len(f.Segments), len(f.Events), dev)
	return nil
}

// SnapshotObjects is device dev's snapshot and history as the Python
// objects torch.cuda.memory._snapshot() returns (snapshot.File.Objects):
// what SaveSnapshot pickles.
func (s *Session) SnapshotObjects(dev int) (any, error) {
	f, err := s.snapshotFile(dev)
	if err != nil {
		return nil, err
	}
	return f.Objects(), nil
}

// snapshotFile is device dev's segments now and its history.
func (s *Session) snapshotFile(dev int) (*snapshot.File, error) {
	g, err := s.gpu(dev)
	if err != nil {
		return nil, err
	}
	var segs []allocator.SegmentInfo
	if g.alloc != nil {
		segs = g.alloc.Snapshot()
	}
	return &snapshot.File{Device: dev, Segments: segs, Events: g.history.Events, AllocConf: s.opts.AllocConf}, nil
}

// History is device i's memory history so far (for snapshots).
func (s *Session) History(i int) []snapshot.Event { return s.gpus[i].history.Events }

// Describe says what t is: size, dtype, shape, device and autograd state.
func (t *Tensor) Describe() string { return describe(t) }

// describe is t in a few words: its size, dtype, shape and device, and
// where it stands in the graph.
func describe(t *Tensor) string {
	d := fmt.Sprintf("%s %s %s on %s", allocator.FormatSize(t.Bytes()), t.DType.Name, dimList(t.Shape), t.Device())
	switch {
	case t.fn != nil:
		d += ", grad_fn=<" + className(t.fn.name) + ">"
	case t.slot != nil:
		d += ", requires_grad"
		if t.slot.grad != nil {
			d += ", .grad " + allocator.FormatSize(t.slot.grad.Bytes())
		}
	}
	return d
}

// Repr is print(t): PyTorch's format where the values are known. A
// CUDA tensor's print takes and frees what PyTorch's formatter does on
// its GPU (print_temps.go), and fails where that is not modelled or the
// GPU is out of memory.
func (s *Session) Repr(t *Tensor) (string, error) {
	if err := s.printTemps(t); err != nil {
		return "", err
	}
	return repr(t), nil
}

// SharesStorage reports whether another tensor holds t's storage (a
// view; the references of tensors saved for backward do not count).
func (t *Tensor) SharesStorage() bool { return t.st.refs-t.st.saved > 1 }

// Version is t's version counter: the in-place writes to its storage
// (Tensor._version).
func (t *Tensor) Version() int { return t.st.version }

// SameStorage reports whether t and u are over one storage.
func (t *Tensor) SameStorage(u *Tensor) bool { return t.st == u.st }

// GradFn is the name of the node that made t ("" for a leaf).
func (t *Tensor) GradFn() string {
	if t.fn == nil {
		return ""
	}
	return t.fn.name
}

// NameNode gives the node that made t the name PyTorch's C++ gives it
// where a composite reaches the op by another overload (pairwise
// distance's at::norm: NormBackward1); nothing for a leaf.
func (t *Tensor) NameNode(name string) {
	if t.fn != nil {
		t.fn.name = name
	}
}

// RequiresGrad reports whether t takes part in autograd.
func (t *Tensor) RequiresGrad() bool { return t.requiresGrad() }

// IsLeaf reports whether t was made by no recorded op.
func (t *Tensor) IsLeaf() bool { return t.fn == nil }

// IsInference reports whether t is an inference tensor
// (Tensor.is_inference): its memory was made under
// torch.inference_mode; a view made there of another tensor is not one.
func (t *Tensor) IsInference() bool { return t.st.inference }

// Interrupted reports whether the user asked to stop (Ctrl-C) since the
// step began: long loops of the front end poll it.
func (s *Session) Interrupted() bool { return s.interrupted.Load() }

// RecordFrames makes each allocation and free of the history carry the
// stack f appends to the slice it is given then (the Python front end's
// file, line and function, innermost first), as PyTorch's
// _record_memory_history(stacks="python") does.
func (s *Session) RecordFrames(f func([]snapshot.Frame) []snapshot.Frame) { s.frames = f }

// stamp gives the history the stack of the code running now; the
// events of one stack share one Stack (a loop's allocations are many,
// its stacks few). The stacks remembered for sharing are forgotten past
// maxSharedStacks (a generated script of a million lines has a million,
// each of a line's few events): one met again after is made again.
func (s *Session) stamp(g *gpu) {
	if s.replaying != nil {
		g.history.Frames = *s.replaying
		return
	}
	if s.frames == nil {
		return
	}
	fr := s.frames(s.frameBuf[:0])
	if slices.Equal(fr, s.lastFrames) {
		s.frameBuf = fr
		g.history.Frames = s.lastStack
		return
	}
	key := s.stackKey[:0]
	for _, f := range fr {
		key = append(key, f.Filename...)
		key = strconv.AppendInt(append(key, 0), int64(f.Line), 10)
		key = append(append(append(key, 0), f.Name...), 0)
	}
	s.stackKey = key
	st, ok := s.stacks[string(key)]
	if !ok {
		if s.stacks == nil || len(s.stacks) >= maxSharedStacks {
			s.stacks = map[string]snapshot.Stack{}
		}
		st = snapshot.NewStack(fr...)
		s.stacks[string(key)] = st
	}
	s.lastFrames, s.frameBuf, s.lastStack = fr, s.lastFrames, st
	g.history.Frames = st
}

// maxSharedStacks bounds the stacks stamp remembers.
const maxSharedStacks = 1 << 16
