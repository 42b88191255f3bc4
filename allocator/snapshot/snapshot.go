// Package snapshot reads PyTorch memory snapshots: the pickle that
// torch.cuda.memory._dump_snapshot writes (the file pytorch.org/memory_viz
// opens), or a JSON flattening of it. It turns the recorded allocations
// and frees of device 0 into a trace the allocator can replay, with what
// the recording saw to check the replay against: the segments allocated
// and freed, in order, and the segments and blocks at the end.
//
// Decoding never runs code: the pickle may hold only plain data (dicts,
// lists, tuples, strings, numbers, None, booleans); anything else is
// refused by name.
package snapshot

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"strings"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"

	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// Event is one entry of a device trace.
type Event struct {
	Action string `json:"action"` // alloc, free_requested, free_completed, segment_alloc, segment_free, segment_map, segment_unmap, oom, snapshot
	Addr   uint64 `json:"addr"`
	Size   uint64 `json:"size"`
	Stream uint64 `json:"stream"`
	Device int    `json:"device"`
	Time   int64  `json:"time_us"`
}

// Block is one block of a segment at the end.
type Block struct {
	Address   uint64 `json:"address"`
	Size      uint64 `json:"size"`
	Requested uint64 `json:"requested_size"`
	State     string `json:"state"`
}

// Segment is one segment at the end.
type Segment struct {
	Device    int     `json:"device"`
	Stream    uint64  `json:"stream"`
	Address   uint64  `json:"address"`
	TotalSize uint64  `json:"total_size"`
	Type      string  `json:"segment_type"` // "small" or "large"
	Blocks    []Block `json:"blocks"`
}

// Snapshot is what a snapshot file holds for device 0.
type Snapshot struct {
	AllocConf string
	Events    []Event
	Segments  []Segment
	// HasRequested reports whether blocks carry their requested size
	// (the pickle does; the JSON flattening does not).
	HasRequested bool
	// OtherDevices counts the events of devices other than 0, which are
	// not replayed.
	OtherDevices int
	// preloaded are the segments a late-starting history's replay
	// creates first (see preload.go), for Playback.
	preloaded []Event
}

// Load reads a snapshot from a .pickle or a .json file.
func Load(path string) (*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var s *Snapshot
	if strings.HasSuffix(path, ".json") {
		s, err = fromJSON(bufio.NewReader(f))
	} else if st, serr := f.Stat(); serr != nil || st.Size() > maxPickle {
		err = fmt.Errorf("the pickle is larger than %d bytes", maxPickle)
	} else {
		b := make([]byte, st.Size())
		var v any
		if _, err = io.ReadFull(f, b); err == nil {
			if v, err = decodePickle(b); err == nil {
				s, err = fromPlain(v)
			}
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// Open reads a file to replay: an ops trace, or a snapshot prepared as
// the trace of its allocations and frees (r is nil for an ops trace). A
// .pickle is a snapshot; a .json is an ops trace unless it has no ops, in
// which case it is read as a snapshot's JSON flattening.
func Open(path string) (t *trace.Trace, r *Replay, err error) {
	if !strings.HasSuffix(path, ".pickle") && !strings.HasSuffix(path, ".pkl") {
		t, err = trace.Load(path)
		if !errors.Is(err, trace.ErrNoOps) || !strings.HasSuffix(path, ".json") {
			return t, nil, err
		}
	}
	s, serr := Load(path)
	if errors.Is(serr, errNoEvents) {
		return nil, nil, err // neither: say what an ops trace lacks
	}
	if serr != nil {
		return nil, nil, serr
	}
	if r, err = s.Prepare(path); err != nil {
		return nil, nil, err
	}
	return r.Trace, r, nil
}

// errNoEvents is a JSON file that is no snapshot either.
var errNoEvents = errors.New(`not a snapshot: no "events"`)

// fromJSON reads the flattening: {"alloc_conf", "events", "final_segments"}.
func fromJSON(r io.Reader) (*Snapshot, error) {
	var j struct {
		AllocConf string    `json:"alloc_conf"`
		Events    []Event   `json:"events"`
		Segments  []Segment `json:"final_segments"`
	}
	if err := json.NewDecoder(r).Decode(&j); err != nil {
		return nil, fmt.Errorf("not a snapshot: %w", err)
	}
	if j.Events == nil {
		return nil, errNoEvents
	}
	s := &Snapshot{AllocConf: j.AllocConf}
	for _, e := range j.Events {
		if e.Device == 0 {
			s.Events = append(s.Events, e)
		} else {
			s.OtherDevices++
		}
	}
	for _, g := range j.Segments {
		if g.Device == 0 {
			s.Segments = append(s.Segments, g)
		}
	}
	return s, nil
}

// maxPickle is the largest snapshot read (a 1,000,000-event history is
// some 200 MB).
const maxPickle = 1 << 30

// decodePickle decodes a pickle of plain data. A class or a persistent
// reference is refused; a corrupt file is an error.
func decodePickle(b []byte) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("corrupt pickle: %v", p)
		}
	}()
	if len(b) > maxPickle {
		return nil, fmt.Errorf("the pickle is larger than %d bytes", maxPickle)
	}
	if err := checkPickle(b); err != nil {
		return nil, err
	}
	u := pickle.NewUnpickler(bytes.NewReader(b))
	u.FindClass = func(module, name string) (any, error) {
		return nil, fmt.Errorf("refused: the pickle names %s.%s, and only plain data (dicts, lists, tuples, strings, numbers, None, booleans) is read", module, name)
	}
	v, err = u.Load()
	if err != nil {
		return nil, fmt.Errorf("not a snapshot pickle: %w", err)
	}
	budget := maxValues
	return v, checkPlain(v, 0, &budget)
}

// maxDepth bounds how deep plain data nests (a snapshot needs 6); a
// pickle can make a list contain itself.
const maxDepth = 32

// maxValues bounds how many values a pickle may expand to: a value
// referenced twice is counted twice, so sharing cannot blow up the walk.
const maxValues = 50_000_000

// checkPlain checks that decoded pickle values are plain data: dicts
// with string keys, lists, tuples, strings, numbers, None, booleans;
// anything else is refused. Errors name where, as a path built on the
// way out.
func checkPlain(v any, depth int, budget *int) error {
	if depth > maxDepth {
		return &pathError{msg: fmt.Sprintf("nested deeper than %d levels (a structure that contains itself?)", maxDepth)}
	}
	if *budget--; *budget < 0 {
		return &pathError{msg: fmt.Sprintf("more than %d values", maxValues)}
	}
	switch v := v.(type) {
	case nil, bool, string, float64, int:
		return nil
	case *big.Int:
		if !v.IsInt64() {
			return &pathError{msg: fmt.Sprintf("integer %s is out of range", v)}
		}
		return nil
	case *types.Dict:
		for _, e := range *v {
			k, ok := e.Key.(string)
			if !ok {
				return &pathError{msg: fmt.Sprintf("a dict key is %T, not a string", e.Key)}
			}
			if err := checkPlain(e.Value, depth+1, budget); err != nil {
				return within(err, "."+k)
			}
		}
		return nil
	case *types.List:
		return checkList(*v, depth, budget)
	case *types.Tuple:
		return checkList(*v, depth, budget)
	}
	return &pathError{msg: fmt.Sprintf("refused: the pickle holds a %T; only plain data is read", v)}
}

func checkList(v []any, depth int, budget *int) error {
	for i, x := range v {
		if err := checkPlain(x, depth+1, budget); err != nil {
			return within(err, fmt.Sprintf("[%d]", i))
		}
	}
	return nil
}

// pathError is an error in the decoded data at a path.
type pathError struct {
	path, msg string
}

func (e *pathError) Error() string {
	if e.path == "" {
		return e.msg
	}
	return fmt.Sprintf("at %s: %s", strings.TrimPrefix(e.path, "."), e.msg)
}

// within puts a path step in front of err's path.
func within(err error, step string) error {
	if pe, ok := err.(*pathError); ok {
		return &pathError{path: step + pe.path, msg: pe.msg}
	}
	return err
}

// fromPlain reads the snapshot dict (checked plain data): segments,
// device_traces and allocator_settings.
func fromPlain(v any) (*Snapshot, error) {
	top, ok := v.(*types.Dict)
	if !ok {
		return nil, errors.New("not a snapshot: the pickle is not a dict")
	}
	traces, ok := get(top, "device_traces").(*types.List)
	if !ok {
		return nil, errors.New(`not a snapshot: no "device_traces" (was it recorded with _record_memory_history?)`)
	}
	s := &Snapshot{HasRequested: true}
	if set, ok := get(top, "allocator_settings").(*types.Dict); ok {
		s.AllocConf, _ = get(set, "PYTORCH_CUDA_ALLOC_CONF").(string)
	}
	for _, other := range (*traces)[min(1, len(*traces)):] {
		if l, ok := other.(*types.List); ok {
			s.OtherDevices += len(*l)
		}
	}
	if len(*traces) > 0 {
		entries, ok := (*traces)[0].(*types.List)
		if !ok {
			return nil, errors.New("not a snapshot: device_traces[0] is not a list")
		}
		s.Events = make([]Event, 0, len(*entries))
		for i, e := range *entries {
			d, ok := e.(*types.Dict)
			if !ok {
				return nil, fmt.Errorf("device_traces[0][%d] is not a dict", i)
			}
			s.Events = append(s.Events, Event{Action: str(get(d, "action")), Addr: num(get(d, "addr")), Size: num(get(d, "size")), Stream: num(get(d, "stream")), Time: int64(num(get(d, "time_us")))})
		}
	}
	segs, _ := get(top, "segments").(*types.List)
	if segs == nil {
		return s, nil
	}
	for i, g := range *segs {
		d, ok := g.(*types.Dict)
		if !ok {
			return nil, fmt.Errorf("segments[%d] is not a dict", i)
		}
		if num(get(d, "device")) != 0 {
			continue
		}
		seg := Segment{Stream: num(get(d, "stream")), Address: num(get(d, "address")), TotalSize: num(get(d, "total_size")), Type: str(get(d, "segment_type"))}
		if blocks, ok := get(d, "blocks").(*types.List); ok {
			for _, b := range *blocks {
				bd, ok := b.(*types.Dict)
				if !ok {
					return nil, fmt.Errorf("segments[%d]: a block is not a dict", i)
				}
				seg.Blocks = append(seg.Blocks, Block{Address: num(get(bd, "address")), Size: num(get(bd, "size")), Requested: num(get(bd, "requested_size")), State: str(get(bd, "state"))})
			}
		}
		s.Segments = append(s.Segments, seg)
	}
	return s, nil
}

// get is d[key], or nil.
func get(d *types.Dict, key string) any {
	for _, e := range *d {
		if k, ok := e.Key.(string); ok && k == key {
			return e.Value
		}
	}
	return nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func num(v any) uint64 {
	switch v := v.(type) {
	case int:
		return uint64(v)
	case *big.Int:
		return uint64(v.Int64())
	case float64:
		return uint64(v)
	}
	return 0
}

// Replay is a snapshot made ready to replay: the trace of its ops, the
// segment events the recording saw, the segments it ended with, and how
// much of its history is missing.
type Replay struct {
	Snapshot      *Snapshot
	Trace         *trace.Trace
	SegmentEvents []SegmentEvent
	Final         []trace.Segment
	// WithRequested reports whether Final has the blocks' requested
	// sizes (the pickle does, the JSON flattening does not).
	WithRequested bool
	// Unknown counts frees of blocks allocated before the recording
	// began (a ring buffer that wrapped, or recording started late):
	// they are left out.
	Unknown int
	// Preloaded and PreloadedBlocks count the segments and live blocks
	// the replay starts from, for a history that starts late; the replay's
	// first Preloaded segment events are theirs.
	Preloaded, PreloadedBlocks int
}

// Notes says what of the recording the replay leaves out or changes;
// empty when nothing.
func (r *Replay) Notes() string {
	var n []string
	if r.Preloaded > 0 {
		n = append(n, fmt.Sprintf("the recording began late: the replay starts from the %d segments and %d live blocks the allocator held then", r.Preloaded, r.PreloadedBlocks))
	}
	if r.Unknown > 0 {
		n = append(n, fmt.Sprintf("%d frees of blocks it never saw are left out", r.Unknown))
	}
	if r.Snapshot.OtherDevices > 0 {
		n = append(n, fmt.Sprintf("%d events of other devices are not replayed", r.Snapshot.OtherDevices))
	}
	if len(n) == 0 {
		return ""
	}
	return " (" + strings.Join(n, "; ") + ")"
}

// WithoutRequested is a layout with the requested sizes zeroed, to
// compare with a recording that has none.
func WithoutRequested(l []trace.Segment) []trace.Segment {
	out := make([]trace.Segment, len(l))
	for i, g := range l {
		g.RequestedSize = 0
		g.Blocks = append([][]any(nil), g.Blocks...)
		for k, b := range g.Blocks {
			g.Blocks[k] = []any{b[0], b[1], b[2], uint64(0)}
		}
		out[i] = g
	}
	return out
}

// Prepare turns the snapshot's events into ops: each alloc an alloc on its
// stream, each free_completed the free of its block, an oom an allocation
// PyTorch could not make, and each run of segment_free events an
// empty_cache.
func (s *Snapshot) Prepare(path string) (*Replay, error) {
	r := &Replay{Snapshot: s, Final: s.layout(), WithRequested: s.HasRequested}
	ops := make([]trace.Op, 0, len(s.Events))
	live := map[uint64]int{}   // address → op id
	stream := map[int]uint64{} // op id → its allocation's stream
	next := 0
	var startIDs map[uint64]int
	if segs := s.startState(); segs != nil {
		ops, startIDs, s.preloaded, next = preload(segs, 0, stream)
		r.Preloaded, r.PreloadedBlocks = len(segs), len(startIDs)
	}
	for i, e := range s.Events {
		switch e.Action {
		case "alloc", "oom":
			ops = append(ops, trace.Op{Op: "alloc", ID: next, Size: e.Size, OOM: e.Action == "oom", Stream: e.Stream})
			if e.Action == "alloc" {
				live[e.Addr] = next
				stream[next] = e.Stream
			}
			next++
		case "free_completed":
			id, ok := live[e.Addr]
			if !ok {
				if id, ok = startIDs[e.Addr]; !ok {
					r.Unknown++
					continue
				}
				delete(startIDs, e.Addr)
			}
			delete(live, e.Addr)
			ops = append(ops, trace.Op{Op: "free", ID: id, Stream: stream[id]})
			delete(stream, id)
		case "segment_free":
			if i == 0 || s.Events[i-1].Action != "segment_free" {
				ops = append(ops, trace.Op{Op: "empty_cache"})
			}
		}
		switch e.Action {
		case "segment_alloc", "segment_free", "segment_map", "segment_unmap":
			r.SegmentEvents = append(r.SegmentEvents, SegmentEvent{Action: e.Action, Size: e.Size})
		}
	}
	t, err := trace.New(path, s.AllocConf, ops)
	if err != nil {
		return nil, err
	}
	r.Trace = t
	return r, nil
}

// layout is the final segments in the trace's recorded-layout form.
func (s *Snapshot) layout() []trace.Segment {
	var out []trace.Segment
	for _, g := range s.Segments {
		seg := trace.Segment{Pool: g.Type, TotalSize: g.TotalSize}
		for _, b := range g.Blocks {
			if strings.HasPrefix(b.State, "active") {
				seg.AllocatedSize += b.Size
				seg.RequestedSize += b.Requested
			}
			seg.Blocks = append(seg.Blocks, []any{b.Address - g.Address, b.Size, b.State, b.Requested})
		}
		out = append(out, seg)
	}
	return trace.SortLayout(out)
}
