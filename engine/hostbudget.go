package engine

import (
	"math"
	"time"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// Host tensors are real memory of this process (RSS moves as in
// PyTorch: the seed experiments' point) up to a budget, and past it
// counted, not allocated: a 70B model built on the host as most scripts
// build it would take the machine's memory for no figure the tool shows.
// A host storage gets its memory at the end of the step that made it
// (its pages written when PyTorch's would be: a fill, a copy into it),
// and only when the live host tensors then fit the budget; one made and
// freed within a step never takes any, so a statement that builds a
// model on the host and moves it to the GPU leaves RSS where it was.
// What the program would need is still checked against the simulated
// machine's host memory (HostTotal): past it, PyTorch's
// DefaultCPUAllocator error.

// DefaultHostBudget is the budget on a machine of memTotal bytes: a
// quarter of its memory, at most 4 GiB (4 GiB when the machine's memory
// cannot be read).
func DefaultHostBudget(memTotal uint64) uint64 {
	if memTotal == 0 {
		return 4 << 30
	}
	return min(4<<30, memTotal/4)
}

// hostBudget is the state of a session's host memory.
type hostBudget struct {
	budget, total uint64
	// pending are the live host storages with no memory yet (counted),
	// and how they get it.
	pending map[*storage]pendingHost
	counted uint64 // their bytes
	// peak and stepPeak are the most bytes of live host tensors so far,
	// and since the step began.
	peak, stepPeak uint64
	told           bool // a step report has said that some were counted
	// refused is the first host allocation refused at total (0: none),
	// and refusedLive the live host tensors' bytes then.
	refused, refusedLive uint64
	// avail is memAvailable as read at availAt, less what settleHost
	// has given since (known false: it could not be read).
	avail   uint64
	known   bool
	availAt time.Time
}

// availFor is memAvailable for storages of n bytes: read again unless
// they are small beside the last reading, taken within 10 ms (a script
// of a million short lines read /proc/meminfo a million times, a tenth
// of its time); what is given comes off it.
func (h *hostBudget) availFor(n uint64) (uint64, bool) {
	if !h.known || n > h.avail/8 || time.Since(h.availAt) > 10*time.Millisecond {
		h.avail, h.known = memAvailable()
		h.availAt = time.Now()
	}
	return h.avail, h.known
}

// pendingHost is how a counted host storage gets memory: its pages
// written (a fill, a copy into it) or not (empty); never, once an
// interrupt stopped the writing (it stays counted until freed).
type pendingHost struct{ written, kept bool }

// grew notes the live host tensors' bytes after one was made.
func (h *hostBudget) grew(live uint64) {
	h.peak = max(h.peak, live)
	h.stepPeak = max(h.stepPeak, live)
}

// newHostBudget is the host of a session: budget and total as given, or
// their defaults from this machine.
func newHostBudget(budget, total uint64) hostBudget {
	machine, _, _ := readMemInfo(memInfoPath())
	if budget == 0 {
		budget = DefaultHostBudget(machine)
	}
	if total == 0 {
		total = machine
	}
	if total == 0 {
		total = math.MaxUint64
	}
	return hostBudget{budget: budget, total: total, pending: map[*storage]pendingHost{}}
}

func (h *hostBudget) add(st *storage, written bool) {
	h.pending[st] = pendingHost{written: written}
	h.counted += st.bytes
}

func (h *hostBudget) drop(st *storage) {
	if _, ok := h.pending[st]; ok {
		delete(h.pending, st)
		h.counted -= st.bytes
	}
}

// written marks a storage with no memory yet as written (a copy went
// into it): its pages are resident once it has memory.
func (h *hostBudget) written(st *storage) {
	if p, ok := h.pending[st]; ok {
		p.written = true
		h.pending[st] = p
	}
}

// settleHost gives the host storages made since the last step their
// memory, when the live ones fit the budget and this machine has the
// memory (else they stay counted); the first step that leaves some
// counted says so. An interrupt stops it: what is left stays counted.
func (s *Session) settleHost() {
	h := &s.host
	if len(h.pending) > 0 && s.hostLive <= h.budget {
		interrupted := false
		avail, known := h.availFor(h.counted) // read once: each storage taken comes off it
		for st, p := range h.pending {
			if interrupted {
				h.pending[st] = pendingHost{kept: true}
				continue
			}
			if p.kept || known && st.bytes > avail {
				continue
			}
			avail -= min(avail, st.bytes)
			buf, err := s.newHostBuf(st.bytes, p.written)
			if err == errInterrupted {
				interrupted = true
				h.pending[st] = pendingHost{kept: true}
				continue
			}
			if err != nil {
				continue
			}
			st.host = buf
			h.drop(st)
		}
		h.avail = avail
		if interrupted {
			s.event("writing host memory was interrupted (KeyboardInterrupt): %s of host tensors left counted, not resident", allocator.FormatSize(h.counted))
		}
	}
	if h.stepPeak > h.budget && !h.told {
		h.told = true
		s.event("host: host tensors reached %s in this step and hold %s now; past the %s budget (--host-budget) they are counted, not allocated: the host figure is this process's real memory without them", allocator.FormatSize(h.stepPeak), allocator.FormatSize(s.hostLive), allocator.FormatSize(h.budget))
	}
	h.stepPeak = s.hostLive
}

// HostPeak is the most bytes of live host tensors the program has held:
// what it needs of the machine's memory, counted or resident.
func (s *Session) HostPeak() uint64 { return s.host.peak }

// HostRefused is the first host allocation the simulated machine's
// memory refused (PyTorch's DefaultCPUAllocator error): its bytes, the
// live host tensors' bytes then, and that memory (--host-total); ok is
// false when none was refused.
func (s *Session) HostRefused() (asked, live, total uint64, ok bool) {
	h := &s.host
	return h.refused, h.refusedLive, h.total, h.refused > 0
}

// HostBudget is the session's budget of real host memory.
func (s *Session) HostBudget() uint64 { return s.host.budget }
