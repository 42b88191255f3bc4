package snapshot

import "github.com/gpumemrepl/gpumemrepl/allocator/device"

// Playback is a device that hands out the addresses the recording's
// driver gave: the next segment allocation of the size the recording
// allocated next gets the recorded address. The allocator breaks ties
// between equal free blocks by address, so with these the replay makes
// the recording's choices. Memory is still taken from (and accounted
// by) the device underneath; an allocation the recording did not make
// gets that device's own address.
type Playback struct {
	device.Device
	next  []Event           // the recorded segment_alloc events still to come
	inner map[uint64]uint64 // address handed out → the device's own
}

// NewPlayback plays the recording's segment addresses over dev: those of
// the preload of a late-starting history first.
func (r *Replay) NewPlayback(dev device.Device) *Playback {
	return &Playback{Device: dev, inner: map[uint64]uint64{}, next: r.segmentAllocs}
}

// Malloc implements device.Device.
func (p *Playback) Malloc(size uint64) (uint64, error) {
	ptr, err := p.Device.Malloc(size)
	if err != nil {
		return 0, err
	}
	out := ptr
	if len(p.next) > 0 && p.next[0].Size == size {
		if _, live := p.inner[p.next[0].Addr]; !live {
			out = p.next[0].Addr
		}
		p.next = p.next[1:]
	}
	p.inner[out] = ptr
	return out, nil
}

// Free implements device.Device.
func (p *Playback) Free(ptr uint64) error {
	inner, ok := p.inner[ptr]
	if !ok {
		inner = ptr
	}
	delete(p.inner, ptr)
	return p.Device.Free(inner)
}
