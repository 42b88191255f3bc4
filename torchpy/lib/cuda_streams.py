# torch.cuda, as gpumemrepl runs it (embedded by streams.go).

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
        raise _refusal(NotImplementedError('torch.cuda.ExternalStream is not modelled by gpumemrepl: it wraps a CUDA stream made outside PyTorch, whose handle and work the tool does not have'))


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
        raise _refusal(NotImplementedError('Event.elapsed_time() is not modelled by gpumemrepl: it runs no kernels, so no time passes between events'))

    def __repr__(self):
        if not self.cuda_event:
            return '<torch.cuda.Event uninitialized>'
        return f'<torch.cuda.Event {self.cuda_event:#x}>'
