package snapshot

import (
	"fmt"

	"github.com/gpumemrepl/gpumemrepl/allocator/device"
)

// SegmentEvent is one segment the allocator took from or gave back to
// the device, as a memory snapshot's trace records it.
type SegmentEvent struct {
	Action string // "segment_alloc", "segment_free", "segment_map", "segment_unmap"
	Size   uint64
}

// String is the event as the check reports it: action and size.
func (e SegmentEvent) String() string { return fmt.Sprintf("%s %d", e.Action, e.Size) }

// SegmentLog is a device that records the segment events of the
// allocator above it.
type SegmentLog struct {
	device.Device
	Events []SegmentEvent
	// OnEvent, when set, hears each event with its address.
	OnEvent func(action string, addr, size uint64)
	sizes   map[uint64]uint64
}

func (l *SegmentLog) add(action string, addr, size uint64) {
	l.Events = append(l.Events, SegmentEvent{action, size})
	if l.OnEvent != nil {
		l.OnEvent(action, addr, size)
	}
}

// NewSegmentLog wraps dev.
func NewSegmentLog(dev device.Device) *SegmentLog {
	return &SegmentLog{Device: dev, sizes: map[uint64]uint64{}}
}

// Malloc implements device.Device.
func (l *SegmentLog) Malloc(size uint64) (uint64, error) {
	p, err := l.Device.Malloc(size)
	if err == nil {
		l.sizes[p] = size
		l.add("segment_alloc", p, size)
	}
	return p, err
}

// Free implements device.Device.
func (l *SegmentLog) Free(ptr uint64) error {
	err := l.Device.Free(ptr)
	if err == nil {
		l.add("segment_free", ptr, l.sizes[ptr])
		delete(l.sizes, ptr)
	}
	return err
}

// MapPages implements device.Device.
func (l *SegmentLog) MapPages(ptr, size uint64) error {
	err := l.Device.MapPages(ptr, size)
	if err == nil {
		l.add("segment_map", ptr, size)
	}
	return err
}

// UnmapPages implements device.Device.
func (l *SegmentLog) UnmapPages(ptr, size uint64) error {
	err := l.Device.UnmapPages(ptr, size)
	if err == nil {
		l.add("segment_unmap", ptr, size)
	}
	return err
}
