package engine

import (
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// What a device's memory holds, by category: the peak explained.
//
// Every live block of a device's allocator is one Holding, put in one
// Category, so the categories of a moment add up to its allocated bytes
// exactly. The engine knows what it made a storage for (a library
// workspace, an optimizer's state, a leaf's .grad) and which storages
// autograd saved; the front end, through NameTensors, names the tensors
// its program can reach, which tells parameters and inputs apart.

// Category is what an allocation is for.
type Category uint8

// The categories, in the order reports list them.
const (
	CatParameters  Category = iota // leaves that require grad, modules' parameters (frozen too) and buffers
	CatGradients                   // a leaf's .grad
	CatOptimizer                   // an optimizer's state
	CatActivations                 // saved by an autograd node for backward
	CatInputs                      // named tensors outside autograd's graph (data, targets)
	CatNamed                       // other tensors a name holds (outputs of ops)
	CatTemporaries                 // held by no name: the statement's intermediate values
	CatWorkspaces                  // cuBLAS, cuDNN and CUB workspaces, reduction buffers
	CatLoaded                      // replayed by load from a snapshot or trace: the recorded run's blocks
	NumCategories
)

var categoryNames = [NumCategories]string{"parameters", "gradients", "optimizer state", "activations saved for backward", "inputs", "other named tensors", "temporaries", "kernel workspaces", "loaded from a snapshot or trace"}

func (c Category) String() string { return categoryNames[c] }

// role is what the engine made a storage for, when it knows.
type role uint8

const (
	roleNone      role = iota
	roleWorkspace      // a library's workspace or a kernel's scratch
	roleOptimizer      // an optimizer's state
	roleGrad           // a leaf's .grad
	roleParam          // a leaf that requires grad
	roleLoaded         // replayed by LoadHistory
)

// Holding is one live block of a device.
type Holding struct {
	Addr, Size uint64 // the block (Size counts in allocated bytes)
	Requested  uint64 // the bytes asked for
	Category   Category
	// Made is the index in History(dev) of the block's alloc event (-1
	// for a block the engine does not know: freed, waiting for a stream).
	Made int
	// Node is the autograd node that saved it (CatActivations).
	Node string
	// Names are the front end's names of the tensors over it.
	Names []string
	// Pending marks a block freed by the program that waits for the
	// streams it was used on (record_stream).
	Pending bool
}

// Holdings is what a device holds at one moment.
type Holdings struct {
	Device              int
	Allocated, Reserved uint64
	// Event is how long History(dev) was at the moment (its last event
	// is the alloc that made the peak).
	Event    int
	Holdings []Holding // by address
	// Segments are the device's segments then (the cache is their free
	// blocks).
	Segments []allocator.SegmentInfo
}

// peakWatch follows a device's peaks of allocated bytes: the step's and
// the session's, whose holdings it takes.
type peakWatch struct {
	stepPeak uint64
	stepAt   int // History index of the alloc that made stepPeak; -1 for none
	runPeak  uint64
	// pending says the session's peak rose since it was last taken:
	// it is taken before the next free (until then memory only grew) or
	// when the front end settles the step.
	pending bool
	atPeak  *Holdings
	// freed is, by the index of its alloc event, what each freed
	// storage was for as far as the engine knows (sticky), plus one: 0
	// for an event that is no freed storage's alloc.
	freed []uint8
}

// NameTensors sets how the front end names the tensors its program can
// reach: f calls visit for each (a module's parameters as
// model.fc1.weight, an optimizer's state, a frame's locals; member
// marks a module's parameter or buffer, a frozen weight or BatchNorm's
// running_mean among them), and the engine reads their storages, grads
// and autograd state.
func (s *Session) NameTensors(f func(visit func(name string, t *Tensor, member bool))) { s.namer = f }

// notePeak is called after each allocation on g.
func (s *Session) notePeak(g *gpu) {
	cur := uint64(g.alloc.Stats().AllocatedBytes[0].Current)
	if cur > g.watch.stepPeak {
		g.watch.stepPeak, g.watch.stepAt = cur, len(g.history.Events)-1
	}
	if cur > g.watch.runPeak {
		g.watch.runPeak, g.watch.pending = cur, true
	}
}

// settle takes g's holdings at the session's peak if it rose since they
// were last taken: before a free, or at the end of a step.
func (s *Session) settle(g *gpu, dev int) {
	if g.watch.pending {
		g.watch.pending = false
		h := s.holdings(g, dev)
		g.watch.atPeak = &h
	}
}

// EndStep settles every device's peak: the front end calls it when a
// step ends, with the step's names still bound.
func (s *Session) EndStep() {
	for i, g := range s.gpus {
		if g.alloc != nil {
			s.settle(g, i)
		}
	}
}

// StepPeak is device dev's most allocated bytes since BeginStep and the
// index in History(dev) of the alloc event that reached it (-1 when it
// allocated nothing above where the step began).
func (s *Session) StepPeak(dev int) (uint64, int) {
	g := s.gpus[dev]
	return g.watch.stepPeak, g.watch.stepAt
}

// beginStepPeaks starts each device's step peak where it stands.
func (s *Session) beginStepPeaks() {
	for _, g := range s.gpus {
		g.watch.stepAt = -1
		g.watch.stepPeak = 0
		if g.alloc != nil {
			g.watch.stepPeak = uint64(g.alloc.Stats().AllocatedBytes[0].Current)
		}
	}
}

// PeakHoldings is what device dev held at the session's highest
// allocated bytes (the first time it was reached); nil before it
// allocated.
func (s *Session) PeakHoldings(dev int) (*Holdings, error) {
	g, err := s.gpu(dev)
	if err != nil || g.alloc == nil {
		return nil, err
	}
	s.settle(g, dev)
	return g.watch.atPeak, nil
}

// HoldingsNow is what device dev holds now; nil before it allocated.
func (s *Session) HoldingsNow(dev int) (*Holdings, error) {
	g, err := s.gpu(dev)
	if err != nil || g.alloc == nil {
		return nil, err
	}
	h := s.holdings(g, dev)
	return &h, nil
}

// names is what the front end's walk says of g's storages.
type names map[*storage]*storageNames

// storageNames is what the walk says of one storage.
type storageNames struct {
	names  []string
	params bool // a leaf that requires grad, or a module's parameter or buffer, is over it
	grads  bool // a leaf's .grad is over it
	inputs bool // a tensor outside autograd's graph is over it
}

// maxNames is how many names a holding keeps.
const maxNames = 4

func (s *Session) nameStorages(dev int) names {
	n := make(names, s.namedLast)
	if s.namer == nil {
		return n
	}
	add := func(st *storage, name string) *storageNames {
		sn := n[st]
		if sn == nil {
			sn = &storageNames{}
			n[st] = sn
		}
		if len(sn.names) < maxNames && !slices.Contains(sn.names, name) {
			sn.names = append(sn.names, name)
		}
		return sn
	}
	s.namer(func(name string, t *Tensor, member bool) {
		if t == nil || t.number || t.st == nil || !t.st.device.CUDA || t.st.device.Index != dev {
			return
		}
		sn := add(t.st, name)
		switch {
		case t.slot != nil:
			sn.params = true
			if g := t.slot.grad; g != nil && g.st != nil {
				add(g.st, name+".grad").grads = true
			}
		case member:
			sn.params = true
		case t.fn == nil:
			sn.inputs = true
		}
	})
	s.namedLast = len(n)
	return n
}

// holdings is what g holds now: each live block, in its category.
func (s *Session) holdings(g *gpu, dev int) Holdings {
	st := g.alloc.Stats()
	h := Holdings{Device: dev, Allocated: uint64(st.AllocatedBytes[0].Current), Reserved: uint64(st.ReservedBytes[0].Current), Event: len(g.history.Events), Segments: g.alloc.Snapshot()}
	nm := s.nameStorages(dev)
	n := 0
	for _, seg := range h.Segments {
		n += len(seg.Blocks) - seg.FreeBlocks()
	}
	h.Holdings = make([]Holding, 0, n)
	for _, seg := range h.Segments {
		for _, b := range seg.Blocks {
			if b.State == allocator.StateInactive {
				continue
			}
			one := Holding{Addr: b.Address, Size: b.Size, Requested: b.RequestedSize, Made: -1, Category: CatTemporaries}
			if stg := g.live[b.Address]; stg != nil && b.State == allocator.StateAllocated {
				sn := nm[stg]
				if sn == nil {
					sn = &storageNames{}
				}
				one.Made, one.Names = stg.made, sn.names
				one.Category = category(stg, sn)
				if one.Category == CatActivations {
					one.Node = stg.savedBy
				}
			} else {
				one.Pending = true
			}
			h.Holdings = append(h.Holdings, one)
		}
	}
	return h
}

// category is what st is for: what the engine made it for first, then
// what holds it.
func category(st *storage, sn *storageNames) Category {
	switch {
	case st.role == roleWorkspace:
		return CatWorkspaces
	case st.role == roleLoaded:
		return CatLoaded
	case sn.params:
		return CatParameters
	case st.role == roleGrad || sn.grads:
		return CatGradients
	case st.role == roleOptimizer:
		return CatOptimizer
	case sn.inputs:
		return CatInputs
	case st.saved > 0:
		return CatActivations
	case len(sn.names) > 0:
		return CatNamed
	}
	return CatTemporaries
}

// noteFreed keeps what a freed storage was for.
func (w *peakWatch) noteFreed(st *storage) {
	if st.made >= len(w.freed) {
		w.freed = append(w.freed, make([]uint8, st.made+1-len(w.freed))...)
	}
	w.freed[st.made] = uint8(sticky(st)) + 1
}

// sticky is what the engine alone knows st was for: what it made it
// for, or that autograd saved it; CatTemporaries for anything else.
func sticky(st *storage) Category {
	switch {
	case st.role == roleWorkspace:
		return CatWorkspaces
	case st.role == roleParam:
		return CatParameters
	case st.role == roleGrad:
		return CatGradients
	case st.role == roleOptimizer:
		return CatOptimizer
	case st.role == roleLoaded:
		return CatLoaded
	case st.savedBy != "":
		return CatActivations
	}
	return CatTemporaries
}

// AllocCategories are, for each alloc event of History(dev) (by index),
// what the engine alone knows its storage was for: made as a parameter,
// a .grad, an optimizer's state or a workspace, replayed by a load, or saved by autograd at
// some time; CatTemporaries otherwise (the front end's names tell a
// named tensor apart, PeakHoldings at the peak). ok is false for an
// index that is no alloc of the engine's.
func (s *Session) AllocCategories(dev int) func(ev int) (Category, bool) {
	g := s.gpus[dev]
	live := map[int]*storage{}
	for _, st := range g.live {
		live[st.made] = st
	}
	return func(ev int) (Category, bool) {
		if st, ok := live[ev]; ok {
			return sticky(st), true
		}
		if ev >= 0 && ev < len(g.watch.freed) && g.watch.freed[ev] > 0 {
			return Category(g.watch.freed[ev] - 1), true
		}
		return 0, false
	}
}
