package torchpy

import (
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/python/eval"
)

// cudaStreams declares torch.cuda's streams and events in m: Stream,
// StreamContext and Event are Python classes (streamsSource) over the
// engine's streams, reached through the private functions declared here.
func (b *Binding) cudaStreams(in *eval.Interp, m *eval.ModuleObj) error {
	b.fn(m, "_stream_new", "", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := b.cudaIndex(args[:1], nil)
		if err != nil {
			return nil, err
		}
		p, ok := args[1].(int64)
		if !ok {
			return nil, in.Raise(eval.TypeErrorType, "'%s' object cannot be interpreted as an integer", in.TypeName(args[1]))
		}
		s, err := b.S.NewStream(i, int(p))
		if err != nil {
			return nil, b.pyErr(err)
		}
		return streamTuple(in, s), nil
	})
	b.fn(m, "_stream_current", "", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if i, ok := args[0].(int64); ok && (i < 0 || i >= int64(b.S.DeviceCount())) {
			return nil, in.Raise(eval.RuntimeErrorType, "Device index value %d is out of index range [0, %d)", i, b.S.DeviceCount())
		}
		i, err := b.cudaIndex(args, nil)
		if err != nil {
			return nil, err
		}
		s, err := b.S.CurrentStream(i)
		if err != nil {
			return nil, b.pyErr(err)
		}
		return streamTuple(in, s), nil
	})
	b.streamFn(m, "_stream_set", func(s engine.Stream) (eval.Value, error) { return eval.None, b.pyErr(b.S.SetStream(s)) })
	b.streamFn(m, "_stream_synchronize", func(s engine.Stream) (eval.Value, error) { return eval.None, b.pyErr(b.S.SyncStream(s)) })
	b.streamFn(m, "_stream_query", func(s engine.Stream) (eval.Value, error) {
		if !b.S.StreamIdle(s) {
			return nil, b.timing("Stream.query() of a stream whose work the program has not waited for")
		}
		return true, nil
	})
	b.streamFn(m, "_event_record", func(s engine.Stream) (eval.Value, error) {
		e, err := b.S.RecordEvent(s)
		if err != nil {
			return nil, b.pyErr(err)
		}
		b.marks = append(b.marks, e)
		return int64(len(b.marks)), nil
	})
	b.fn(m, "_stream_wait", "", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		x, y := streamArg(args[0], args[1]), streamArg(args[2], args[3])
		return eval.None, b.pyErr(b.S.WaitStream(x, y))
	})
	b.fn(m, "_event_wait", "", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return eval.None, b.pyErr(b.S.WaitEvent(streamArg(args[0], args[1]), b.mark(args[2])))
	})
	b.fn(m, "_event_synchronize", "", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		b.S.SyncEvent(b.mark(args[0]))
		return eval.None, nil
	})
	b.fn(m, "_event_query", "", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if !b.S.EventDone(b.mark(args[0])) {
			return nil, b.timing("Event.query() of an event the program has not waited for")
		}
		return true, nil
	})
	b.fn(m, "_sleep", "_sleep(cycles): a kernel on the current stream that only takes time (its work is pending until a synchronize)", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		if _, err := in.ArgSpec("_sleep", args, kw, 1, "cycles"); err != nil {
			return nil, err
		}
		return eval.None, b.pyErr(b.S.Sleep())
	})
	b.fn(m, "synchronize", "synchronize(device=None): the host waits for the device's streams: the allocator's events behind them complete at its next malloc, pinned blocks behind a copy can be reused", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		i, err := b.cudaIndex(args, kw)
		if err != nil {
			return nil, err
		}
		return eval.None, b.pyErr(b.S.SyncDevice(i))
	})
	fr := in.ModuleFrame("<torch.cuda>", m.Dict)
	defer in.Release(fr)
	return in.ExecSource(fr, "<torch.cuda>", streamsSource)
}

// streamFn declares a private function of (device index, handle).
func (b *Binding) streamFn(m *eval.ModuleObj, name string, f func(engine.Stream) (eval.Value, error)) {
	b.fn(m, name, "", func(in *eval.Interp, _ eval.Value, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		return f(streamArg(args[0], args[1]))
	})
}

// streamArg is the engine's stream of a Stream's device_index and
// cuda_stream, which streamsSource passes as ints.
func streamArg(index, handle eval.Value) engine.Stream {
	i, _ := index.(int64)
	h, _ := handle.(int64)
	return engine.Stream{Device: int(i), Handle: uint64(h)}
}

// streamTuple is what streamsSource makes a Stream of.
func streamTuple(in *eval.Interp, s engine.Stream) eval.Value {
	return in.NewTuple([]eval.Value{int64(s.Device), int64(s.Handle), int64(s.Priority), s.ID()})
}

// mark is the event an Event's number names.
func (b *Binding) mark(v eval.Value) engine.EventMark {
	n, _ := v.(int64)
	return b.marks[n-1]
}

// timing is the error of a question whose answer is the GPU's timing,
// which the tool, running no kernels, does not have.
func (b *Binding) timing(what string) error {
	return b.in.Raise(eval.NotImplementedErrType, "%s depends on GPU timing, which is not modelled by gpumemrepl (it runs no kernels); synchronize first", what)
}

func init() {
	tensorMethod("record_stream", "record_stream(stream): the tensor is used on stream, so its block is not reused until stream's work queued before its free is done", func(b *Binding, t *Tensor, args []eval.Value, kw []eval.KeywordArg) (eval.Value, error) {
		a, err := b.in.ArgSpec("record_stream", args, kw, 1, "s")
		if err != nil {
			return nil, err
		}
		if b.in.TypeName(a[0]) != "Stream" {
			return nil, b.in.Raise(eval.RuntimeErrorType, "unknown parameter type")
		}
		idx, err := b.in.GetAttr(a[0], "device_index")
		if err != nil {
			return nil, err
		}
		h, err := b.in.GetAttr(a[0], "cuda_stream")
		if err != nil {
			return nil, err
		}
		if !t.T.Device().CUDA {
			return nil, b.in.Raise(eval.NotImplementedErrType, "Could not run 'aten::record_stream' with arguments from the 'CPU' backend.")
		}
		return eval.None, b.pyErr(b.S.RecordStream(t.T, streamArg(idx, h)))
	})
}

// streamsSource is torch.cuda's Stream, StreamContext, Event and the
// functions over them, as PyTorch 2.11 defines them in Python, over the
// private functions of cudaStreams.
const streamsSource = `

class Stream:
    """A CUDA stream: allocations made while it is current are its blocks, which serve it alone."""

    def __init__(self, device=None, priority=0, **kwargs):
        self.device_index, self.cuda_stream, self.priority, self.stream_id = _stream_new(device, priority)
        self.device_type = 1
        self._context = None

    @property
    def device(self):
        import torch
        return torch.device('cuda', self.device_index)

    @staticmethod
    def priority_range():
        return (0, -3)

    def query(self):
        return _stream_query(self.device_index, self.cuda_stream)

    def synchronize(self):
        _stream_synchronize(self.device_index, self.cuda_stream)

    def wait_stream(self, stream):
        _stream_wait(self.device_index, self.cuda_stream, stream.device_index, stream.cuda_stream)

    def wait_event(self, event):
        event.wait(self)

    def record_event(self, event=None):
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __enter__(self):
        import torch
        if self._context is None:
            self._context = []
        if current_stream(self.device_index) == self:
            self._context.append(None)
            return self
        prev_device = torch.cuda.current_device()
        if self.device_index != prev_device:
            torch.cuda.set_device(self.device_index)
        prev = current_stream(self.device_index)
        _stream_set(self.device_index, self.cuda_stream)
        self._context.append((prev_device, prev))
        return self

    def __exit__(self, *exc):
        import torch
        top = self._context.pop()
        if top is None:
            return
        prev_device, prev = top
        _stream_set(prev.device_index, prev.cuda_stream)
        if self.device_index != prev_device:
            torch.cuda.set_device(prev_device)

    def __ne__(self, o):
        # torch.Stream's comparison answers False for None whatever the
        # operator; another type's fields it reads are not a Stream's
        if o is None:
            return False
        return not self == o

    def __eq__(self, o):
        if isinstance(o, Stream):
            return self.device_index == o.device_index and self.cuda_stream == o.cuda_stream
        return False

    def __hash__(self):
        return self.cuda_stream * 128 + self.device_index

    def __repr__(self):
        return f'<torch.cuda.Stream device=cuda:{self.device_index} cuda_stream={self.cuda_stream:#x}>'


def _as_stream(index, handle, priority, stream_id):
    s = object.__new__(Stream)
    s.device_index, s.cuda_stream, s.priority, s.stream_id = index, handle, priority, stream_id
    s.device_type, s._context = 1, None
    return s


class ExternalStream(Stream):
    """A stream made outside PyTorch, by its handle: refused."""

    def __init__(self, stream_ptr, device=None, **kwargs):
        raise NotImplementedError('torch.cuda.ExternalStream is not modelled by gpumemrepl: it wraps a CUDA stream made outside PyTorch, whose handle and work the tool does not have')


def current_stream(device=None):
    return _as_stream(*_stream_current(device))


def default_stream(device=None):
    return _as_stream(_stream_current(device)[0], 0, 0, 0)


def device_of(obj):
    """torch.cuda.device_of(obj): the device of a CUDA tensor current inside; a no-op for one on the host."""
    return device(obj.device.index if obj.is_cuda else -1)


def set_stream(stream):
    if stream is None:
        return
    _stream_set(stream.device_index, stream.cuda_stream)


class StreamContext:
    """torch.cuda.stream(s): s is the current stream (and its device the current device) inside."""

    def __init__(self, stream):
        self.stream = stream
        self.src_prev_stream = None
        self.dst_prev_stream = None

    def __enter__(self):
        cur = self.stream
        if cur is None:
            return
        self.src_prev_stream = current_stream(None)
        if self.src_prev_stream.device != cur.device:
            self.dst_prev_stream = current_stream(cur.device)
        set_stream(cur)

    def __exit__(self, *exc):
        cur = self.stream
        if cur is None:
            return
        if self.src_prev_stream.device != cur.device:
            set_stream(self.dst_prev_stream)
        set_stream(self.src_prev_stream)


def stream(stream):
    return StreamContext(stream)


class Event:
    """A CUDA event: record() marks a stream's work queued so far; it is known complete once the program waited for it."""

    def __init__(self, enable_timing=False, blocking=False, interprocess=False, external=False):
        self.enable_timing = enable_timing
        self.cuda_event = 0

    def record(self, stream=None):
        if stream is None:
            stream = current_stream()
        self.cuda_event = _event_record(stream.device_index, stream.cuda_stream)

    def wait(self, stream=None):
        if stream is None:
            stream = current_stream()
        if self.cuda_event:
            _event_wait(stream.device_index, stream.cuda_stream, self.cuda_event)

    def query(self):
        return not self.cuda_event or _event_query(self.cuda_event)

    def synchronize(self):
        if self.cuda_event:
            _event_synchronize(self.cuda_event)

    def elapsed_time(self, end_event):
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        if not (self.cuda_event and end_event.cuda_event):
            raise ValueError('Both events must be recorded before calculating elapsed time.')
        raise NotImplementedError('Event.elapsed_time() is not modelled by gpumemrepl: it runs no kernels, so no time passes between events')

    def __repr__(self):
        if not self.cuda_event:
            return '<torch.cuda.Event uninitialized>'
        return f'<torch.cuda.Event {self.cuda_event:#x}>'
`
