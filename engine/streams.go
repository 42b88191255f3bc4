package engine

import (
	"fmt"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// CUDA streams and events, as the caching allocator sees them: each
// allocation is made on the device's current stream and its block
// serves that stream only; a block used on another stream
// (Tensor.record_stream) waits at its free for an event on each of
// those streams.
//
// The tool runs no kernels, so it cannot know when a stream's work
// finishes on a GPU. Each stream's work is counted in points: an
// allocation made on it, a non-blocking copy and torch.cuda._sleep each
// add one (an op that allocates nothing adds none); an event marks the
// point its stream has reached. Work is done once the program has waited
// for it (torch.cuda.synchronize(), Stream.synchronize(),
// Event.synchronize() of an event at or after its point, empty_cache for
// the allocator's own events) and pending until then. Measured on the
// H200 (scripts/probe_streams.py, testdata/pyrules/streams_probe.txt):
// behind a long kernel (torch.cuda._sleep, 0.5 s) a free waits until
// such a synchronize, as modelled, and an Event recorded before the free
// with no work after it lets the block go once synchronized; behind a
// short kernel (an elementwise op on 32 MiB) PyTorch reused the block at
// once without a synchronize, 18 times out of 18, where the tool still
// waits.

// Stream is one CUDA stream of a device, as torch.cuda.Stream names it.
type Stream struct {
	Device int
	// Handle is cuda_stream: 0 for the default stream. The driver's
	// handles of the others are heap addresses that change from run to
	// run; the tool numbers them 1 to 128 in the order of those
	// addresses (poolOrder), which is the order of the caching
	// allocator's pools.
	Handle   uint64
	Priority int
}

// ID is the stream's stream_id, as PyTorch packs it: 0 for the default
// stream; for a pooled one its slot, then its priority level plus one,
// then a 1 that marks it PyTorch's own (slot·32 + (level+1)·2 + 1).
func (x Stream) ID() int64 {
	if x.Handle == 0 {
		return 0
	}
	slot, level := pooled(x.Handle)
	return int64(slot<<5 | (level+1)<<1 | 1)
}

// poolOrder is the order of the driver's handles of PyTorch's pooled
// streams, each stream named by when PyTorch creates it (4·slot +
// level: all 128 at the first pooled stream asked for, slot by slot,
// priority 0 to -3 within a slot), in runs of consecutive names. It is
// the same in every process that makes its first stream before other
// CUDA work (three on the H200, and the 34 streams of
// testdata/pyrules/streams_probe.txt, another day), and holds in
// streams_empty.py's empty_cache; after a product (cuBLAS's handles
// first) the driver's heap hands out other addresses, in another order
// each run (two runs), which the tool cannot know
// (scripts/probe_stream_handles.py, testdata/pyrules/streams_handles.txt).
var poolOrder = [][2]int{{26, 29}, {36, 36}, {0, 25}, {58, 61}, {30, 35}, {79, 79}, {37, 57}, {123, 126}, {62, 78}, {122, 122}, {80, 121}, {127, 127}}

// handleOf is the tool's handle of each pooled stream by when PyTorch
// creates it; createdOf, by handle less one, is its inverse.
var handleOf, createdOf = poolHandles()

func poolHandles() (handles, created [streamLevels * streamsPerPool]int) {
	h := 0
	for _, run := range poolOrder {
		for c := run[0]; c <= run[1]; c++ {
			h++
			handles[c], created[h-1] = h, c
		}
	}
	return handles, created
}

// pooled is the slot and priority level of the pooled stream numbered h.
func pooled(h uint64) (slot, level int) {
	c := createdOf[h-1]
	return c / streamLevels, c % streamLevels
}

// Stream pools as PyTorch 2.11 keeps them on the H200 (measured:
// torch.cuda.Stream.priority_range() is (0, -3), Stream() hands out 32
// streams per priority round robin, the 33rd the first again).
const (
	streamsPerPool = 32
	lowestPriority = -3
	streamLevels   = 1 - lowestPriority
)

// EventMark is where a recorded torch.cuda.Event stands: the point of
// every stream's work that the work queued before it follows.
type EventMark struct {
	Device int
	Stream uint64
	clock  streamClock
}

// streamClock maps a stream's handle to a point of its work: a vector
// clock, so that waiting for a stream that itself waited for another
// carries that wait along.
type streamClock map[uint64]uint64

// join raises c to every point of o.
func (c streamClock) join(o streamClock) {
	for k, v := range o {
		c[k] = max(c[k], v)
	}
}

// streamState is one device's streams: the current one, the next pool
// slot of each priority, each stream's clock, and how far the host knows
// each has run. It is the device allocator's StreamEvents.
type streamState struct {
	s       *Session
	g       *gpu
	current uint64
	next    [streamLevels]int
	clocks  map[uint64]streamClock
	done    map[uint64]uint64
}

func (st *streamState) clock(h uint64) streamClock {
	if st.clocks == nil {
		st.clocks, st.done = map[uint64]streamClock{}, map[uint64]uint64{}
	}
	c := st.clocks[h]
	if c == nil {
		c = streamClock{}
		st.clocks[h] = c
	}
	return c
}

// point advances stream h's work by one point and returns it.
func (st *streamState) point(h uint64) uint64 {
	c := st.clock(h)
	c[h]++
	return c[h]
}

// reach records that the host knows every stream has run to c.
func (st *streamState) reach(c streamClock) {
	for k, v := range c {
		st.done[k] = max(st.done[k], v)
	}
}

// Record is the allocator's event at a pending free: the point stream h
// has reached (an event adds no work of its own).
func (st *streamState) Record(h uint64) uint64 { return st.clock(h)[h] }

// Done reports whether the host has waited for stream h past event.
func (st *streamState) Done(h, event uint64) bool { return st.done[h] >= event }

// Wait is cudaEventSynchronize of the allocator's event.
func (st *streamState) Wait(h, event uint64) { st.done[h] = max(st.done[h], event) }

// FreeCompleted records the history's free_completed of a pending free.
func (st *streamState) FreeCompleted(h, ptr, requested uint64) {
	st.g.history.Stream = h
	st.s.stamp(st.g)
	st.g.history.Add("free_completed", ptr, requested)
	st.s.event("the %s block freed after record_stream is back in its pool: the streams it waited for were synchronized", allocator.FormatSize(requested))
}

// streams returns device i's stream state, its allocator made.
func (s *Session) streams(i int) (*streamState, error) {
	g, err := s.initGPU(i)
	if err != nil {
		return nil, err
	}
	return &g.streams, nil
}

// NewStream is torch.cuda.Stream(device, priority): the next stream of
// PyTorch's pool for that priority (clamped to 0 through -3, as PyTorch
// does). Its device's CUDA context is made, as PyTorch's lazy init makes
// it.
func (s *Session) NewStream(device, priority int) (Stream, error) {
	st, err := s.streams(device)
	if err != nil {
		return Stream{}, err
	}
	priority = min(max(priority, lowestPriority), 0)
	level := -priority
	slot := st.next[level]
	st.next[level] = (slot + 1) % streamsPerPool
	return Stream{Device: device, Handle: uint64(handleOf[streamLevels*slot+level]), Priority: priority}, nil
}

// CurrentStream is torch.cuda.current_stream(device).
func (s *Session) CurrentStream(device int) (Stream, error) {
	g, err := s.gpu(device)
	if err != nil {
		return Stream{}, err
	}
	h := g.streams.current
	return Stream{Device: device, Handle: h, Priority: streamPriority(h)}, nil
}

// streamPriority is the priority of the stream numbered h.
func streamPriority(h uint64) int {
	if h == 0 {
		return 0
	}
	_, level := pooled(h)
	return -level
}

// SetStream is torch.cuda.set_stream: x becomes its device's current
// stream, on which that device's allocations are made, and its device
// the current device (as PyTorch's set_stream does).
func (s *Session) SetStream(x Stream) error {
	st, err := s.streams(x.Device)
	if err != nil {
		return err
	}
	st.current = x.Handle
	s.current = x.Device
	return nil
}

// currentStream is the stream device dev allocates on now.
func (s *Session) currentStream(dev Device) uint64 {
	if !dev.CUDA || dev.Index < 0 || dev.Index >= len(s.gpus) {
		return 0
	}
	return s.gpus[dev.Index].streams.current
}

// SyncStream is Stream.synchronize(): the host waits for all of x's work
// queued so far (and for what it waited for).
func (s *Session) SyncStream(x Stream) error {
	st, err := s.streams(x.Device)
	if err != nil {
		return err
	}
	st.reach(st.clock(x.Handle))
	s.completePinned()
	return nil
}

// SyncDevice is torch.cuda.synchronize(device): every stream of the
// device has finished its work, and so has every non-blocking copy.
func (s *Session) SyncDevice(device int) error {
	g, err := s.gpu(device)
	if err != nil {
		return err
	}
	for _, c := range g.streams.clocks {
		g.streams.reach(c)
	}
	s.completePinned()
	return nil
}

// WaitStream is x.wait_stream(y): x's later work follows all of y's
// queued so far.
func (s *Session) WaitStream(x, y Stream) error {
	if x.Device != y.Device {
		return NotModelledError("wait_stream across devices")
	}
	st, err := s.streams(x.Device)
	if err != nil {
		return err
	}
	st.clock(x.Handle).join(st.clock(y.Handle))
	return nil
}

// RecordEvent is Event.record(x): the event marks x's work queued so far.
func (s *Session) RecordEvent(x Stream) (EventMark, error) {
	st, err := s.streams(x.Device)
	if err != nil {
		return EventMark{}, err
	}
	c := streamClock{}
	c.join(st.clock(x.Handle))
	return EventMark{Device: x.Device, Stream: x.Handle, clock: c}, nil
}

// WaitEvent is x.wait_event(e) (and e.wait(x)): x's later work follows e.
func (s *Session) WaitEvent(x Stream, e EventMark) error {
	if x.Device != e.Device {
		return NotModelledError("waiting for an event of another device")
	}
	st, err := s.streams(x.Device)
	if err != nil {
		return err
	}
	st.clock(x.Handle).join(e.clock)
	return nil
}

// SyncEvent is Event.synchronize(): the host waits for e's work.
func (s *Session) SyncEvent(e EventMark) {
	s.gpus[e.Device].streams.reach(e.clock)
	s.completePinned()
}

// EventDone reports whether the host has waited for e's work, which is
// when the tool knows it done (Event.query()); known is false when it
// has not, and the answer would be the GPU's timing.
func (s *Session) EventDone(e EventMark) (known bool) {
	st := &s.gpus[e.Device].streams
	for k, v := range e.clock {
		if st.done[k] < v {
			return false
		}
	}
	return true
}

// StreamIdle reports whether the host knows x has no work left
// (Stream.query()): true when the program waited for all of its work, or
// it has none; false when the answer would be the GPU's timing.
func (s *Session) StreamIdle(x Stream) bool {
	st := &s.gpus[x.Device].streams
	for k, v := range st.clocks[x.Handle] {
		if st.done[k] < v {
			return false
		}
	}
	return true
}

// Sleep is torch.cuda._sleep(cycles): a kernel on the current stream
// that only takes time: one point of work, pending until a synchronize.
func (s *Session) Sleep() error {
	st, err := s.streams(s.current)
	if err != nil {
		return err
	}
	st.point(st.current)
	return nil
}

// RecordStream is Tensor.record_stream(x): the tensor's block is used on
// x, so its free waits for x's work queued until then.
func (s *Session) RecordStream(t *Tensor, x Stream) error {
	if !t.Device().CUDA {
		return fmt.Errorf("Could not run 'aten::record_stream' with arguments from the 'CPU' backend")
	}
	if t.st.bytes == 0 {
		return nil
	}
	g := s.gpus[t.Device().Index]
	return g.alloc.RecordStream(t.st.ptr, x.Handle)
}
