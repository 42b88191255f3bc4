package torchpy

import (
	_ "embed"
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
	return b.in.Refuse(eval.NotImplementedErrType, "%s depends on GPU timing, which is not modelled by gpumemrepl (it runs no kernels); synchronize first", what)
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
//
//go:embed lib/cuda_streams.py
var streamsSource string
