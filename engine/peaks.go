package engine

import (
	"errors"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// foldPeaks keeps the allocator's peaks before they are reset, so that
// LifetimePeaks outlives torch.cuda.reset_peak_memory_stats.
func (g *gpu) foldPeaks() {
	st := g.stats()
	g.peakAllocated = max(g.peakAllocated, uint64(st.AllocatedBytes[0].Peak))
	g.peakReserved = max(g.peakReserved, uint64(st.ReservedBytes[0].Peak))
}

// LifetimePeaks are device i's highest allocated and reserved bytes
// since the session began, whatever the program reset: what a GPU must
// hold for the program to run (gpumemrepl fit).
func (s *Session) LifetimePeaks(i int) (allocated, reserved uint64) {
	g := s.gpus[i]
	g.foldPeaks()
	return g.peakAllocated, g.peakReserved
}

// OOMRecord is where an allocation ran out of memory and what PyTorch
// said.
type OOMRecord struct {
	Message string           // the allocator's text, as torch.OutOfMemoryError's
	Device  int              // the device that ran out
	Frames  []snapshot.Frame // the code running then, innermost first (none when nothing records frames)
}

// noteOOM keeps the session's first out-of-memory error, and device g's
// limit at its first.
func (s *Session) noteOOM(g *gpu, err error) {
	if !g.oomSeen {
		g.oomSeen = true
		if l, ok := g.alloc.Limit(); ok {
			g.oomLimit = &l
		}
	}
	if s.firstOOM != nil {
		return
	}
	r := &OOMRecord{Message: err.Error()}
	var oom *allocator.OutOfMemoryError
	if errors.As(err, &oom) {
		r.Device = oom.Device
	}
	if s.frames != nil {
		r.Frames = s.frames(nil)
	}
	s.firstOOM = r
}

// FirstOOM is the session's first out-of-memory error, caught or not;
// nil when every allocation succeeded.
func (s *Session) FirstOOM() *OOMRecord { return s.firstOOM }
