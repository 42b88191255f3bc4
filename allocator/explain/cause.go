package explain

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// Cause is why an allocation ran out of memory.
type Cause int

// The causes, in the order they are told apart.
const (
	NoOOM         Cause = iota // none: the history never ran out of memory
	LiveTensors                // the live blocks and the request exceed what the device can give
	Fraction                   // the per-process limit, not the device, refuses: the device has room
	OtherStream                // the free memory is cached for another stream
	Fragmentation              // enough is free, but not in one piece that fits
)

var causeNames = [...]string{"none", "live_tensors", "fraction", "other_stream", "fragmentation"}

// String is the cause's name in --json: none, live_tensors, fraction,
// other_stream or fragmentation.
func (c Cause) String() string { return causeNames[c] }

// MarshalText writes the cause by name.
func (c Cause) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a cause by name.
func (c *Cause) UnmarshalText(b []byte) error {
	for i, n := range causeNames {
		if n == string(b) {
			*c = Cause(i)
			return nil
		}
	}
	return fmt.Errorf("explain: no cause %q", b)
}

// Holder is the live blocks of one holder (a variable, a stack frame)
// at the point explained.
type Holder struct {
	Label  string `json:"label"`
	Bytes  uint64 `json:"bytes"`
	Blocks int    `json:"blocks"`
}

// Pinned is a segment that live blocks keep from being returned to the
// driver while it holds free memory.
type Pinned struct {
	Address      uint64 `json:"address"`
	Stream       uint64 `json:"stream"`
	TotalBytes   uint64 `json:"total_bytes"`
	AllocBytes   uint64 `json:"allocated_bytes"`
	FreeBytes    uint64 `json:"free_bytes"`
	LargestFree  uint64 `json:"largest_free_bytes"`
	LiveBlocks   int    `json:"live_blocks"`
	FreeBlocks   int    `json:"free_blocks"`
	ExpandableOf bool   `json:"expandable"`
}

// Point is the allocator's state at the op explained: the first
// allocation that ran out of memory, or the op at the peak of reserved
// memory.
type Point struct {
	Op         int `json:"op"`
	Allocation int `json:"allocation"` // its ordinal among the program's allocations; -1 at a peak
	// RequestedBytes is what the failing allocation asked for (0 at a
	// peak); SegmentBytes the segment the allocator then asked the
	// device for; Stream its stream.
	RequestedBytes uint64 `json:"requested_bytes"`
	SegmentBytes   uint64 `json:"segment_bytes"`
	Stream         uint64 `json:"stream"`
	Message        string `json:"message,omitempty"`
	AllocatedBytes uint64 `json:"allocated_bytes"`
	ReservedBytes  uint64 `json:"reserved_bytes"`
	// LimitBytes is the per-process limit, when one is set.
	LimitBytes       *uint64 `json:"limit_bytes"`
	DeviceTotalBytes uint64  `json:"device_total_bytes"`
	DeviceFreeBytes  uint64  `json:"device_free_bytes"`
	// CapacityBytes is the most the process could hold there: the limit,
	// or what it reserves plus what the device has free.
	CapacityBytes uint64 `json:"capacity_bytes"`
	// CachedFreeBytes is reserved but unallocated memory; those of the
	// request's own stream and pool, and of other streams, apart.
	CachedFreeBytes      uint64 `json:"cached_free_bytes"`
	StreamFreeBytes      uint64 `json:"stream_free_bytes"`
	OtherStreamFreeBytes uint64 `json:"other_stream_free_bytes"`
	// LargestFreeBytes is the largest free block the request could have
	// used (its stream, its pool).
	LargestFreeBytes uint64 `json:"largest_free_bytes"`
}

// diagnose replays the history under its own settings to its first
// out-of-memory error, or to its peak, and reads the cause there.
func diagnose(in Input) (*Diagnosis, error) {
	t, o := in.Trace, in.Options
	base, err := in.replayAll(t, o)
	if err != nil {
		return nil, err
	}
	d := &Diagnosis{Conf: o.Conf(t), Recorded: result(Change{}, o.Conf(t), base)}
	at := base.peakOp
	if base.first != nil {
		at = base.first.Op
	}
	st, err := in.replayTo(t, o, at)
	if err != nil {
		return nil, err
	}
	d.At = point(t, at, base.first, st)
	for _, op := range t.Ops[at+1:] {
		if op.Op == "alloc" {
			d.AllocsAfter++
		}
	}
	label := func(op int) string { return fmt.Sprintf("op %d", op) }
	if in.Label != nil {
		label = in.Label
	}
	d.Holders = holders(in.Trace, st.live, label, maxHolders)
	if in.Category != nil {
		d.Categories = holders(in.Trace, st.live, in.Category, 0)
	}
	d.Pinned = pinned(st.segs)
	d.Cause = classify(d.At, st.oom)
	if d.Cause == LiveTensors || d.Cause == Fraction {
		d.DeficitBytes = d.At.AllocatedBytes + d.At.RequestedBytes - d.At.CapacityBytes
	}
	return d, nil
}

// point reads the figures at op at from the state after it.
func point(t *trace.Trace, at int, first *trace.OOM, st *state) Point {
	p := Point{Op: at, Allocation: -1, Stream: t.Ops[at].Stream,
		AllocatedBytes: uint64(st.stats.AllocatedBytes[0].Current),
		ReservedBytes:  uint64(st.stats.ReservedBytes[0].Current)}
	if first != nil {
		p.Allocation, p.RequestedBytes, p.Message = first.Allocation, first.RequestedBytes, first.Message
	}
	if e := st.oom; e != nil {
		p.SegmentBytes, p.DeviceTotalBytes, p.DeviceFreeBytes = e.AllocSize, e.DeviceTotal, e.DeviceFree
		p.AllocatedBytes, p.ReservedBytes = e.Allocated, e.Reserved
		p.CapacityBytes = e.Reserved + e.DeviceFree
		if e.HasLimit {
			limit := e.Allowed
			p.LimitBytes, p.CapacityBytes = &limit, limit
		}
	}
	small := p.RequestedBytes > 0 && p.RequestedBytes <= allocator.MiB // PyTorch's kSmallSize: the small pool's
	for _, s := range st.segs {
		for _, b := range s.Blocks {
			if b.State != allocator.StateInactive {
				continue
			}
			p.CachedFreeBytes += b.Size
			if s.Stream != p.Stream {
				p.OtherStreamFreeBytes += b.Size
				continue
			}
			p.StreamFreeBytes += b.Size
			if s.Small == small {
				p.LargestFreeBytes = max(p.LargestFreeBytes, b.Size)
			}
		}
	}
	return p
}

// classify tells the cause apart from the figures at an out-of-memory
// error: the live blocks and the request cannot fit in what the process
// may hold (and the device has room for them but the limit refuses:
// the fraction); they would fit but for memory cached for other
// streams; else they would fit and the free memory is in pieces.
func classify(p Point, oom *allocator.OutOfMemoryError) Cause {
	switch need := p.AllocatedBytes + p.RequestedBytes; {
	case oom == nil:
		return NoOOM
	case need > p.CapacityBytes && p.LimitBytes != nil && need <= p.ReservedBytes+p.DeviceFreeBytes:
		return Fraction
	case need > p.CapacityBytes:
		return LiveTensors
	case need+p.OtherStreamFreeBytes > p.CapacityBytes:
		return OtherStream
	}
	return Fragmentation
}

// holders groups the live blocks by label, largest first (ties by
// label), at most most of them (0: all).
func holders(t *trace.Trace, live []int, label func(op int) string, most int) []Holder {
	by := map[string]*Holder{}
	for _, op := range live {
		label := label(op)
		h := by[label]
		if h == nil {
			h = &Holder{Label: label}
			by[label] = h
		}
		h.Bytes += t.Ops[op].Size
		h.Blocks++
	}
	out := make([]Holder, 0, len(by))
	for _, h := range by {
		out = append(out, *h)
	}
	slices.SortFunc(out, func(a, b Holder) int {
		if a.Bytes != b.Bytes {
			return compareDesc(a.Bytes, b.Bytes)
		}
		return strings.Compare(a.Label, b.Label)
	})
	if most > 0 {
		out = out[:min(len(out), most)]
	}
	return out
}

// maxHolders and maxPinned bound the holders and pinned segments told.
const (
	maxHolders = 5
	maxPinned  = 5
)

// pinned lists the segments that hold free memory and live blocks, the
// most free memory first (ties by address).
func pinned(segs []allocator.SegmentInfo) []Pinned {
	var out []Pinned
	for _, s := range segs {
		p := Pinned{Address: s.Address, Stream: s.Stream, TotalBytes: s.TotalSize, AllocBytes: s.AllocatedSize, ExpandableOf: s.Expandable}
		for _, b := range s.Blocks {
			if b.State == allocator.StateInactive {
				p.FreeBlocks++
				p.FreeBytes += b.Size
				p.LargestFree = max(p.LargestFree, b.Size)
			} else {
				p.LiveBlocks++
			}
		}
		if p.FreeBlocks > 0 && p.LiveBlocks > 0 {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b Pinned) int {
		if a.FreeBytes != b.FreeBytes {
			return compareDesc(a.FreeBytes, b.FreeBytes)
		}
		return compareDesc(b.Address, a.Address)
	})
	return out[:min(len(out), maxPinned)]
}

// compareDesc orders larger first.
func compareDesc(a, b uint64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}
