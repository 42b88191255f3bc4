package snapshot

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"sort"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// Recorder collects a device trace as PyTorch's _record_memory_history
// does: every allocation and free, and every segment the allocator took
// or gave back, in order.
type Recorder struct {
	Events []Event
	// Stream is the stream of the events added from now on: that of the
	// allocation or free being recorded. A segment_free takes the stream
	// its segment_alloc had.
	Stream   uint64
	clock    int64             // time_us of the next event: one per event, so the order is kept
	segments map[uint64]uint64 // segment address → its stream
}

// Add records one event.
func (r *Recorder) Add(action string, addr, size uint64) {
	stream := r.Stream
	switch action {
	case "segment_alloc":
		if r.segments == nil {
			r.segments = map[uint64]uint64{}
		}
		r.segments[addr] = stream
	case "segment_free":
		if s, ok := r.segments[addr]; ok {
			stream = s
			delete(r.segments, addr)
		}
	}
	r.clock++
	r.Events = append(r.Events, Event{Action: action, Addr: addr, Size: size, Stream: stream, Time: r.clock})
}

// Save writes a snapshot in PyTorch's format (what _dump_snapshot
// writes: segments, device_traces, allocator_settings) for one device's
// segments now and its recorded events, so that pytorch.org/memory_viz
// and torch.cuda._memory_viz read it.
func Save(path string, device int, segs []allocator.SegmentInfo, events []Event, allocConf string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = encode(w, snapshotValue(device, segs, events, allocConf))
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// dict is an ordered pickle dict.
type dict []kv

type kv struct {
	k string
	v any
}

// tuple is a pickle tuple.
type tuple []any

func snapshotValue(device int, segs []allocator.SegmentInfo, events []Event, allocConf string) dict {
	var segments []any
	for _, s := range segs {
		var blocks []any
		for _, b := range s.Blocks {
			blocks = append(blocks, dict{{"address", b.Address}, {"size", b.Size}, {"requested_size", b.RequestedSize}, {"state", b.State}, {"frames", []any{}}})
		}
		typ := "large"
		if s.Small {
			typ = "small"
		}
		segments = append(segments, dict{
			{"device", s.Device}, {"address", s.Address}, {"total_size", s.TotalSize},
			{"allocated_size", s.AllocatedSize}, {"active_size", s.ActiveSize}, {"requested_size", s.RequestedSize},
			{"stream", s.Stream}, {"segment_type", typ}, {"segment_pool_id", tuple{0, 0}}, {"is_expandable", s.Expandable},
			{"frames", []any{}}, {"blocks", blocks},
		})
	}
	sort.SliceStable(segments, func(i, j int) bool { return segments[i].(dict)[1].v.(uint64) < segments[j].(dict)[1].v.(uint64) })
	traces := make([]any, device+1) // one list per device up to this one
	for i := range traces {
		traces[i] = []any{}
	}
	var trace []any
	for _, e := range events {
		trace = append(trace, dict{{"action", e.Action}, {"addr", e.Addr}, {"size", e.Size}, {"stream", e.Stream}, {"time_us", e.Time}, {"frames", []any{}}})
	}
	traces[device] = trace
	return dict{
		{"segments", segments},
		{"device_traces", traces},
		{"allocator_settings", dict{{"PYTORCH_CUDA_ALLOC_CONF", allocConf}}},
		{"external_annotations", []any{}},
	}
}

// encode writes v as a protocol 2 pickle of plain data.
func encode(w io.Writer, v any) error {
	e := &encoder{w: bufio.NewWriter(w)}
	e.b(0x80, 2) // PROTO 2
	e.value(v)
	e.b('.') // STOP
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

type encoder struct {
	w   *bufio.Writer
	err error
}

func (e *encoder) b(bs ...byte) {
	if e.err == nil {
		_, e.err = e.w.Write(bs)
	}
}

func (e *encoder) value(v any) {
	switch v := v.(type) {
	case nil:
		e.b('N')
	case bool:
		if v {
			e.b(0x88)
		} else {
			e.b(0x89)
		}
	case int:
		e.int(int64(v))
	case int64:
		e.int(v)
	case uint64:
		if v > math.MaxInt64 {
			e.err = fmt.Errorf("pickle: %d does not fit", v)
			return
		}
		e.int(int64(v))
	case float64:
		var buf [9]byte
		buf[0] = 'G'
		binary.BigEndian.PutUint64(buf[1:], math.Float64bits(v))
		e.b(buf[:]...)
	case string:
		var buf [5]byte
		buf[0] = 'X' // BINUNICODE
		binary.LittleEndian.PutUint32(buf[1:], uint32(len(v)))
		e.b(buf[:]...)
		e.b([]byte(v)...)
	case []any:
		e.b(']') // EMPTY_LIST
		if len(v) > 0 {
			e.b('(')
			for _, x := range v {
				e.value(x)
			}
			e.b('e') // APPENDS
		}
	case tuple:
		e.b('(')
		for _, x := range v {
			e.value(x)
		}
		e.b('t')
	case dict:
		e.b('}') // EMPTY_DICT
		if len(v) > 0 {
			e.b('(')
			for _, p := range v {
				e.value(p.k)
				e.value(p.v)
			}
			e.b('u') // SETITEMS
		}
	default:
		e.err = fmt.Errorf("pickle: cannot write a %T", v)
	}
}

// int writes an integer in the shortest form: BININT1, BININT or LONG1.
func (e *encoder) int(v int64) {
	switch {
	case v >= 0 && v < 256:
		e.b('K', byte(v))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		var buf [5]byte
		buf[0] = 'J'
		binary.LittleEndian.PutUint32(buf[1:], uint32(int32(v)))
		e.b(buf[:]...)
	default:
		var buf [10]byte
		buf[0], buf[1] = 0x8a, 8 // LONG1, 8 bytes little-endian two's complement
		binary.LittleEndian.PutUint64(buf[2:], uint64(v))
		e.b(buf[:]...)
	}
}
