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
	"cmp"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"os"
	"slices"
	"strings"

	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// Event is one entry of a device trace.
type Event struct {
	Action string `json:"action"` // alloc, free_requested, free_completed, segment_alloc, segment_free, segment_map, segment_unmap, oom, snapshot
	Addr   uint64 `json:"addr"`
	Size   uint64 `json:"size"`
	Stream uint64 `json:"stream"`
	Time   int64  `json:"time_us"`
}

// jsonEvent is an event of the JSON flattening, which names its device.
type jsonEvent struct {
	Event
	Device int `json:"device"`
}

// actions are the event actions a snapshot holds, so that each event
// refers to one copy of its action's name.
var actions = map[string]string{}

func init() {
	for _, a := range []string{"alloc", "free_requested", "free_completed", "segment_alloc", "segment_free", "segment_map", "segment_unmap", "oom", "snapshot"} {
		actions[a] = a
	}
}

// action is the shared copy of a decoded action name.
func action(s string) string {
	if a, ok := actions[s]; ok {
		return a
	}
	return s
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
	Device    int    `json:"device"`
	Stream    uint64 `json:"stream"`
	Address   uint64 `json:"address"`
	TotalSize uint64 `json:"total_size"`
	Type      string `json:"segment_type"` // "small" or "large"
	// Expandable is a mapped run of an expandable segment.
	Expandable bool    `json:"is_expandable"`
	Blocks     []Block `json:"blocks"`
}

// Snapshot is what a snapshot file holds for one device.
type Snapshot struct {
	Device    int
	AllocConf string
	Events    []Event
	Segments  []Segment
	// HasRequested reports whether blocks carry their requested size
	// (the pickle does; the JSON flattening does not).
	HasRequested bool
}

// Load reads the first device's snapshot (the lowest index with a
// history or segments) from a .pickle, .pickle.gz or .json file.
func Load(path string) (*Snapshot, error) {
	all, err := LoadAll(path)
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// LoadAll reads a snapshot file: one Snapshot per device that has a
// history or segments, by device index (a process of a multi-GPU run
// records its own device: its file may hold cuda:3 alone), or an empty
// one of device 0.
func LoadAll(path string) ([]*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var s []*Snapshot
	var b []byte
	if strings.HasSuffix(path, ".json") {
		s, err = fromJSON(bufio.NewReader(f))
	} else if b, err = readPickle(f, strings.HasSuffix(path, ".gz")); err == nil {
		var v any
		if v, err = decodePickle(b); err == nil {
			s, err = fromPlain(v)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// readPickle reads a pickle of at most maxPickle bytes, gunzipping it
// when gzipped.
func readPickle(f *os.File, gzipped bool) ([]byte, error) {
	tooLarge := fmt.Errorf("the pickle is larger than %d bytes", maxPickle)
	if !gzipped {
		st, err := f.Stat()
		if err != nil || st.Size() > maxPickle {
			return nil, tooLarge
		}
		b := make([]byte, st.Size())
		_, err = io.ReadFull(f, b)
		return b, err
	}
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(zr, maxPickle+1))
	if err == nil && len(b) > maxPickle {
		err = tooLarge
	}
	return b, err
}

// isPickle reports whether path names a pickle, gzipped or not.
func isPickle(path string) bool {
	path = strings.TrimSuffix(path, ".gz")
	return strings.HasSuffix(path, ".pickle") || strings.HasSuffix(path, ".pkl")
}

// devices collects per-device snapshots as a file is read.
type devices map[int]*Snapshot

// of returns device d's snapshot, made on first use like proto.
func (ds devices) of(d int, proto *Snapshot) *Snapshot {
	s, ok := ds[d]
	if !ok {
		s = &Snapshot{Device: d, AllocConf: proto.AllocConf, HasRequested: proto.HasRequested}
		ds[d] = s
	}
	return s
}

// list is the snapshots by device index; device 0's, empty, if none.
func (ds devices) list(proto *Snapshot) []*Snapshot {
	if len(ds) == 0 {
		ds.of(0, proto)
	}
	out := make([]*Snapshot, 0, len(ds))
	for _, s := range ds {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b *Snapshot) int { return cmp.Compare(a.Device, b.Device) })
	return out
}

// Opened is one history of a file to replay: an ops trace (Replay is
// nil), or one device's history of a snapshot prepared as the trace of
// its allocations and frees.
type Opened struct {
	Trace  *trace.Trace
	Replay *Replay
}

// Open reads a file to replay. A .pickle (or .pickle.gz) is a snapshot, one history per
// device it recorded (named FILE cuda:N unless the file holds cuda:0
// alone); a .json is an ops trace unless its top level names "events"
// (or has no ops), which makes it a snapshot's JSON flattening.
func Open(path string) ([]Opened, error) {
	var err error
	if !isPickle(path) && !isFlattening(path) {
		var t *trace.Trace
		t, err = trace.Load(path)
		if !errors.Is(err, trace.ErrNoOps) || !strings.HasSuffix(path, ".json") {
			if err != nil {
				return nil, err
			}
			return []Opened{{Trace: t}}, nil
		}
	}
	all, serr := LoadAll(path)
	if errors.Is(serr, errNoEvents) {
		return nil, err // neither: say what an ops trace lacks
	}
	if serr != nil {
		return nil, serr
	}
	var out []Opened
	for _, s := range all {
		name := path
		if len(all) > 1 || s.Device != 0 {
			name = fmt.Sprintf("%s cuda:%d", path, s.Device)
		}
		r, err := s.Prepare(name)
		if err != nil {
			return nil, err
		}
		out = append(out, Opened{Trace: r.Trace, Replay: r})
	}
	return out, nil
}

// isFlattening reports whether path is a .json file whose top-level
// object names "events" before any "ops": a snapshot's flattening, read
// once, not first tried as an ops trace. It reads only the keys and
// skips what comes before.
func isFlattening(path string) bool {
	if !strings.HasSuffix(path, ".json") {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	found := errors.New("found")
	events := false
	err = eachKey(dec, func(key string) error {
		switch key {
		case "events":
			events = true
			return found
		case "ops":
			return found
		}
		return skipValue(dec)
	})
	return err == found && events
}

// errNoEvents is a JSON file that is no snapshot either.
var errNoEvents = errors.New(`not a snapshot: no "events"`)

// fromJSON reads the flattening: {"alloc_conf", "events",
// "final_segments"}, one event at a time, so that a long history never
// sits in memory as text beside its events.
func fromJSON(r io.Reader) ([]*Snapshot, error) {
	dec := json.NewDecoder(r)
	s := &Snapshot{} // the settings every device shares
	ds := devices{}
	sawEvents := false
	err := eachKey(dec, func(key string) error {
		switch key {
		case "alloc_conf":
			return dec.Decode(&s.AllocConf)
		case "events":
			sawEvents = true
			return eachElement(dec, func() error {
				var e jsonEvent
				if err := dec.Decode(&e); err != nil {
					return err
				}
				d := ds.of(e.Device, s)
				d.Events = append(d.Events, e.Event)
				return nil
			})
		case "final_segments":
			var segs []Segment
			if err := dec.Decode(&segs); err != nil {
				return err
			}
			for _, g := range segs {
				d := ds.of(g.Device, s)
				d.Segments = append(d.Segments, g)
			}
			return nil
		}
		return skipValue(dec)
	})
	if err != nil {
		return nil, fmt.Errorf("not a snapshot: %w", err)
	}
	if !sawEvents {
		return nil, errNoEvents
	}
	return ds.list(s), nil
}

// eachKey calls f with each key of the JSON object dec is at; f reads
// the key's value.
func eachKey(dec *json.Decoder, f func(key string) error) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if err := f(t.(string)); err != nil {
			return err
		}
	}
	return expectDelim(dec, '}')
}

// eachElement calls f for each element of the JSON array dec is at; f
// reads the element.
func eachElement(dec *json.Decoder, f func() error) error {
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	for dec.More() {
		if err := f(); err != nil {
			return err
		}
	}
	return expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", want, t)
	}
	return nil
}

// skipValue reads past the next value, token by token.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
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
func fromPlain(v any) ([]*Snapshot, error) {
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
	ds := devices{}
	for dev, tr := range *traces {
		entries, ok := tr.(*types.List)
		if !ok {
			return nil, fmt.Errorf("not a snapshot: device_traces[%d] is not a list", dev)
		}
		if len(*entries) == 0 {
			continue
		}
		ev := ds.of(dev, s)
		ev.Events = make([]Event, 0, len(*entries))
		for i, e := range *entries {
			d, ok := e.(*types.Dict)
			if !ok {
				return nil, fmt.Errorf("device_traces[%d][%d] is not a dict", dev, i)
			}
			ev.Events = append(ev.Events, Event{Action: action(str(get(d, "action"))), Addr: num(get(d, "addr")), Size: num(get(d, "size")), Stream: num(get(d, "stream")), Time: int64(num(get(d, "time_us")))})
		}
	}
	segs, _ := get(top, "segments").(*types.List)
	if segs == nil {
		return ds.list(s), nil
	}
	for i, g := range *segs {
		d, ok := g.(*types.Dict)
		if !ok {
			return nil, fmt.Errorf("segments[%d] is not a dict", i)
		}
		dev := int(min(num(get(d, "device")), 1<<20))
		expandable, _ := get(d, "is_expandable").(bool)
		seg := Segment{Stream: num(get(d, "stream")), Address: num(get(d, "address")), TotalSize: num(get(d, "total_size")), Type: str(get(d, "segment_type")), Expandable: expandable}
		if blocks, ok := get(d, "blocks").(*types.List); ok {
			for _, b := range *blocks {
				bd, ok := b.(*types.Dict)
				if !ok {
					return nil, fmt.Errorf("segments[%d]: a block is not a dict", i)
				}
				seg.Blocks = append(seg.Blocks, Block{Address: num(get(bd, "address")), Size: num(get(bd, "size")), Requested: num(get(bd, "requested_size")), State: str(get(bd, "state"))})
			}
		}
		sd := ds.of(dev, s)
		sd.Segments = append(sd.Segments, seg)
	}
	return ds.list(s), nil
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
	// segmentAllocs are the segments the recording's driver handed out,
	// in order, the preload's first (for Playback).
	segmentAllocs []Event
	// LateExpandable reports a history of expandable segments that
	// starts late: the replay starts from an empty allocator.
	LateExpandable bool
	// Releases counts the history's runs of segment releases by whose
	// they were; only the program's are replayed.
	Releases Releases
	// Failed counts the allocations that raised out-of-memory in the
	// recording: PyTorch records them with their rounded size, which is
	// what the replay asks for.
	Failed int
	// open is the runs the event order could not attribute, for Resolve.
	open []openRun
	// Preloaded and PreloadedBlocks count the segments and live blocks
	// the replay starts from, for a history that starts late; the replay's
	// first Preloaded segment events are theirs.
	Preloaded, PreloadedBlocks int
}

// Notes says what of the recording the replay leaves out or changes;
// empty when nothing, or when r is nil (an ops trace).
func (r *Replay) Notes() string {
	if r == nil {
		return ""
	}
	var n []string
	if r.Preloaded > 0 {
		n = append(n, fmt.Sprintf("the recording began late: the replay starts from the %d segments and %d live blocks the allocator held then", r.Preloaded, r.PreloadedBlocks))
	}
	if r.LateExpandable {
		n = append(n, "the recording began late, and the pages its expandable segments had mapped then cannot be rebuilt: the replay starts from an empty allocator")
	}
	if r.Unknown > 0 {
		n = append(n, fmt.Sprintf("%d frees of blocks it never saw are left out", r.Unknown))
	}
	n = append(n, r.Releases.Notes()...)
	if r.Failed > 0 {
		n = append(n, fmt.Sprintf("allocations that failed in the recording, asking for the size PyTorch rounded them to there (it records no other): %d", r.Failed))
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
// PyTorch could not make, and each run of segment_free (or, expandable,
// segment_unmap) events that was the program's an empty_cache; the
// allocator's own releases are left to the replaying allocator (see
// Releases).
func (s *Snapshot) Prepare(path string) (*Replay, error) {
	r := &Replay{Final: s.layout(), WithRequested: s.HasRequested}
	ops := make([]trace.Op, 0, len(s.Events))
	live := map[uint64]int{}   // address → op id
	stream := map[int]uint64{} // op id → its allocation's stream
	next := 0
	var startIDs map[uint64]int
	segs, lateExpandable := s.startState()
	if segs != nil {
		ops, startIDs, r.segmentAllocs, next = preload(segs, 0, stream)
		r.Preloaded, r.PreloadedBlocks = len(segs), len(startIDs)
	}
	start := len(ops)
	r.LateExpandable = lateExpandable
	conf, err := allocator.ParseConfig(s.AllocConf)
	if err != nil {
		conf = allocator.DefaultConfig() // the replay's Setup says what is wrong with it
	}
	peak := peakReserved(segs, s.Events)
	cache := newCacheTracker(segs)
	var run *releaseRun // the run of releases under way
	for i, e := range s.Events {
		if run != nil && !releases(e.Action) && e.Action != "free_completed" {
			after := Event{}
			if i+1 < len(s.Events) {
				after = s.Events[i+1]
			}
			ops = r.endRun(ops, run, run.attribute(e, after, conf, peak, cache.idle > 0))
			run = nil
		}
		if releases(e.Action) {
			if run == nil {
				run = &releaseRun{reservedBefore: cache.reserved, firstEvent: len(r.SegmentEvents)}
			}
			run.add(e)
		}
		cache.event(e)
		switch e.Action {
		case "alloc", "oom":
			ops = append(ops, trace.Op{Op: "alloc", ID: next, Size: e.Size, OOM: e.Action == "oom", Stream: e.Stream})
			if e.Action == "alloc" {
				live[e.Addr] = next
				stream[next] = e.Stream
			} else {
				r.Failed++
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
		case "segment_alloc":
			r.segmentAllocs = append(r.segmentAllocs, e)
		}
		switch e.Action {
		case "segment_alloc", "segment_free", "segment_map", "segment_unmap":
			r.SegmentEvents = append(r.SegmentEvents, SegmentEvent{Action: e.Action, Size: e.Size})
		}
	}
	if run != nil {
		ops = r.endRun(ops, run, run.attribute(Event{}, Event{}, conf, peak, cache.idle > 0))
	}
	t, err := trace.New(path, s.AllocConf, ops)
	if err != nil {
		return nil, err
	}
	t.Device = s.Device
	t.Start = start
	r.Trace = t
	return r, nil
}

// endRun counts a run of releases as attributed and, when it was the
// program's, replays it as an empty_cache; one it could not attribute is
// kept for Resolve.
func (r *Replay) endRun(ops []trace.Op, run *releaseRun, w whose) []trace.Op {
	switch w {
	case byProgram:
		r.Releases.User++
		return append(ops, trace.Op{Op: "empty_cache"})
	case byAllocator:
		r.Releases.Own++
	default:
		r.Releases.Unattributed++
		r.open = append(r.open, openRun{at: len(ops), from: run.firstEvent, to: len(r.SegmentEvents)})
	}
	return ops
}

// releases reports whether an event gives memory back to the driver.
func releases(action string) bool { return action == "segment_free" || action == "segment_unmap" }

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
