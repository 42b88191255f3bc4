package engine

// Backward across streams, as PyTorch 2.11's autograd engine does it
// (testdata/pyrules/streams_backward.py, streams_grad.py): each node
// runs on the stream its forward op ran on (a leaf's AccumulateGrad on
// the stream current when a forward first used the leaf); a gradient
// that goes to a node of another stream is record_stream'ed to that
// stream, so its free waits for it; a second gradient for the same input
// is summed on the taking node's stream, which waits for both producers
// and takes both tensors (record_stream); the taking node waits for the
// last stream that wrote its input; and at the end the caller's stream
// waits for every stream a leaf's gradient was written on. Waiting is a
// join of the streams' clocks; only record_stream and the streams
// allocations land on change what the allocator sees.

// gradFlow is the stream bookkeeping of one backward: the caller's
// streams, and for each input of each node waiting for its gradients
// the stream that last wrote it and the point it had then reached (an
// InputBuffer's ready stream and ready event).
type gradFlow struct {
	s      *Session
	caller []uint64 // each device's current stream when backward began
	ready  map[*node][]readyMark
	leaves map[Stream]bool // streams leaves' gradients were written on
}

// readyMark is where one input's gradient was last written.
type readyMark struct {
	set    bool
	stream uint64
	event  streamClock
}

// newGradFlow starts the bookkeeping of a backward called now.
func (s *Session) newGradFlow() *gradFlow {
	f := &gradFlow{s: s, ready: map[*node][]readyMark{}, leaves: map[Stream]bool{}}
	for _, g := range s.gpus {
		f.caller = append(f.caller, g.streams.current)
	}
	return f
}

// checkGraphStreams refuses a graph whose nodes are on several devices
// and use a stream other than the default: which stream a gradient
// crossing devices is summed on is not recorded.
func checkGraphStreams(start *node, deps map[*node]int) error {
	devices, side := map[Device]bool{start.device: true}, start.stream != 0
	for n := range deps {
		devices[n.device] = true
		side = side || n.stream != 0
	}
	if side && len(devices) > 1 {
		return NotModelledError("backward through a graph on several devices that uses streams other than the default")
	}
	return nil
}

// onStream makes n's device's current stream n's stream until the
// returned function restores the one before, as the engine's stream
// guard does around a node.
func (f *gradFlow) onStream(dev Device, h uint64) func() {
	if !dev.CUDA || dev.Index >= len(f.s.gpus) {
		return func() {}
	}
	st := &f.s.gpus[dev.Index].streams
	prev := st.current
	st.current = h
	return func() { st.current = prev }
}

// event is the point every stream had reached when stream h recorded an
// event (what a later wait on it waits for).
func (f *gradFlow) event(dev Device, h uint64) streamClock {
	c := streamClock{}
	c.join(f.s.gpus[dev.Index].streams.clock(h))
	return c
}

// wait makes stream h of dev wait for event.
func (f *gradFlow) wait(dev Device, h uint64, event streamClock) {
	f.s.gpus[dev.Index].streams.clock(h).join(event)
}

// add is InputBuffer::add of g, made on stream producer, to input out
// of node to; accumulate adds it to the gradient already there, on the
// stream current when it is called.
func (f *gradFlow) add(to *node, out int, g *Tensor, producer uint64, have func() *Tensor, accumulate func() (bool, error)) (bool, error) {
	dev := g.Device()
	if !dev.CUDA {
		return accumulate()
	}
	marks := f.ready[to]
	if len(marks) <= out {
		marks = append(marks, make([]readyMark, out+1-len(marks))...)
		f.ready[to] = marks
	}
	consumer := to.stream
	if to.leaf != nil && consumer != producer {
		f.s.accStreamMismatch = true
	}
	r := marks[out]
	if !r.set { // the first gradient: it waits in the buffer
		if consumer != producer {
			if err := f.s.RecordStream(g, Stream{Device: dev.Index, Handle: consumer}); err != nil {
				return false, err
			}
		}
		marks[out] = readyMark{set: true, stream: producer, event: f.event(dev, producer)}
		return accumulate()
	}
	if consumer != producer {
		f.wait(dev, consumer, f.event(dev, producer))
		if err := f.s.RecordStream(g, Stream{Device: dev.Index, Handle: consumer}); err != nil {
			return false, err
		}
	}
	if consumer != r.stream {
		f.wait(dev, consumer, r.event)
		if err := f.s.RecordStream(have(), Stream{Device: dev.Index, Handle: consumer}); err != nil {
			return false, err
		}
	}
	restore := f.onStream(dev, consumer)
	kept, err := accumulate()
	restore()
	marks[out] = readyMark{set: true, stream: consumer, event: f.event(dev, consumer)}
	return kept, err
}

// take is what the engine does before n runs: n's stream waits for the
// stream that last wrote each of its inputs.
func (f *gradFlow) take(n *node) {
	for _, r := range f.ready[n] {
		if r.set && r.stream != n.stream && n.device.CUDA {
			f.wait(n.device, n.stream, r.event)
		}
	}
	delete(f.ready, n)
}

// leaf notes that a leaf's gradient was written (or captured) on n's
// stream.
func (f *gradFlow) leaf(n *node) {
	if n.device.CUDA {
		f.leaves[Stream{Device: n.device.Index, Handle: n.stream}] = true
	}
}

// finish is the end of backward: each device's caller stream waits for
// the streams leaves' gradients were written on.
func (f *gradFlow) finish() {
	for x := range f.leaves {
		if x.Device < len(f.caller) && f.caller[x.Device] != x.Handle {
			f.wait(Device{CUDA: true, Index: x.Device}, f.caller[x.Device], f.event(Device{CUDA: true, Index: x.Device}, x.Handle))
		}
	}
}

// AccumulateGradStreamMismatch reports whether a backward since the last
// call handed a leaf's AccumulateGrad, made on one stream, a gradient
// made on another, as when a forward used the leaf on two streams (on
// which PyTorch warns once a process).
func (s *Session) AccumulateGradStreamMismatch() bool {
	m := s.accStreamMismatch
	s.accStreamMismatch = false
	return m
}
