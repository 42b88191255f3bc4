// Package snapshot reads and writes PyTorch memory snapshots: the pickle
// that torch.cuda.memory._dump_snapshot writes (the file
// pytorch.org/memory_viz opens), gzipped or not, or a JSON flattening of
// it; which it is, is told by content, not by name. It turns the
// recorded allocations and frees of each device into a trace the
// allocator can replay, with what the recording saw to check the replay
// against: the segments allocated and freed, in order, and the segments
// and blocks at the end. What it does not model (stacks, times, an
// event's compile_context and user_metadata, annotate events, pool ids,
// external_annotations, pinned host memory's host_segments and
// host_traces...) is kept, and written back on export.
//
// Reading never runs code: the pickle may hold only plain data (dicts,
// lists, tuples, strings, bytes, numbers, None, booleans); anything else
// is refused by name. The pickle is read as a stream of opcodes by our
// own reader (unpickle.go), within Limits.
package snapshot

import (
	"cmp"
	"errors"
	"fmt"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
	"github.com/gpumemrepl/gpumemrepl/internal/fileio"
)

// Event is one entry of a device trace.
type Event struct {
	Action string `json:"action"` // alloc, free_requested, free_completed, segment_alloc, segment_free, segment_map, segment_unmap, oom, snapshot, annotate, user_defined
	Addr   uint64 `json:"addr"`
	Size   uint64 `json:"size"`
	Stream uint64 `json:"stream"`
	Time   int64  `json:"time_us"`
	// Frames is the stack the event was recorded with.
	Frames Stack `json:"-"`
	// extra is the event's other fields as read (compile_context,
	// user_metadata, an oom's device_free...).
	extra *fields
	// missing has a bit for each modelled field the event was read
	// without (has...), so that it is written back without it.
	missing uint8
}

// jsonEvent is an event of the JSON flattening, which names its device.
type jsonEvent struct {
	Event
	Device int `json:"device"`
}

// actions are the actions a device trace may hold, so that each event
// refers to one copy of its action's name: those replayed, and those
// kept but not replayed (snapshot, annotate, user_defined).
var actions = map[string]string{}

// The actions' numbers in an event record (eventRecord.action): each
// known action's index in knownActions; a name the file adds is numbered
// after them.
const (
	actAlloc uint32 = iota
	actFreeRequested
	actFreeCompleted
	actSegmentAlloc
	actSegmentFree
	actSegmentMap
	actSegmentUnmap
	actOOM
	actSnapshot
	actAnnotate
	actUserDefined
	// actNone is no event's: the action of noEvent.
	actNone = ^uint32(0)
)

// knownActions are the actions' names, by number.
var knownActions = []string{actAlloc: "alloc", actFreeRequested: "free_requested", actFreeCompleted: "free_completed", actSegmentAlloc: "segment_alloc",
	actSegmentFree: "segment_free", actSegmentMap: "segment_map", actSegmentUnmap: "segment_unmap", actOOM: "oom", actSnapshot: "snapshot",
	actAnnotate: "annotate", actUserDefined: "user_defined"}

func init() {
	for _, a := range knownActions {
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
	extra     *dict  // the block's other fields (its frames...)
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
	extra      *dict   // the segment's other fields (segment_pool_id, frames...)
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
	// Problems are what is contradictory or unknown in the file (each
	// device's snapshot has the file's).
	Problems []Problem
	// rest is the snapshot dict's other keys (allocator_settings,
	// external_annotations, host_segments...), kept for export.
	rest *dict
	// log is the history as the file was read, where Events is not made
	// from it (Open's, which only prepares it): Prepare reads it there.
	log *eventList
}

// Load reads the first device's snapshot (the lowest index with a
// history or segments) from a snapshot file.
func Load(path string) (*Snapshot, error) {
	all, err := LoadAll(path)
	if err != nil {
		return nil, err
	}
	return all[0], nil
}

// LoadAll reads a snapshot file within DefaultLimits: one Snapshot per
// device that has a history or segments, by device index (a process of
// a multi-GPU run records its own device: its file may hold cuda:3
// alone), or an empty one of device 0.
func LoadAll(path string) ([]*Snapshot, error) { return LoadAllWithin(path, DefaultLimits) }

// LoadAllWithin is LoadAll within limits.
func LoadAllWithin(path string, limits Limits) ([]*Snapshot, error) {
	all, err := loadHistories(path, limits)
	for _, s := range all {
		s.makeEvents()
	}
	return all, err
}

// loadHistories is LoadAllWithin leaving the histories as read, their
// Events not made: for Prepare alone.
func loadHistories(path string, limits Limits) ([]*Snapshot, error) {
	in, f, err := openInput(path, limits.MaxBytes, "snapshot")
	if err != nil {
		return nil, pathError(path, err, limits)
	}
	defer f.Close()
	s, err := readHistories(in, limits)
	if err != nil {
		return nil, &fileio.InFile{Path: path, Err: err}
	}
	return s, nil
}

// readSnapshot reads a pickle, or else the JSON flattening.
func readSnapshot(in *input, limits Limits) ([]*Snapshot, error) {
	all, err := readHistories(in, limits)
	for _, s := range all {
		s.makeEvents()
	}
	return all, err
}

// readHistories is readSnapshot leaving the histories as read.
func readHistories(in *input, limits Limits) ([]*Snapshot, error) {
	if head, _ := in.peek(1); len(head) == 1 && head[0] == 0x80 {
		return readPickle(in, limits)
	}
	return fromJSON(in)
}

// makeEvents makes the Events of a history as read.
func (s *Snapshot) makeEvents() {
	if s.log != nil {
		s.Events, s.log = s.log.events(), nil
	}
}

// pathError is an error opening path: the os error names it already,
// as does fileio's for a file beyond the limit.
func pathError(path string, err error, limits Limits) error {
	if errors.Is(err, errTooLarge) {
		return &fileio.InFile{Path: path, Err: limitError(err, limits)}
	}
	return err
}

// limitError words errTooLarge with the limit.
func limitError(err error, limits Limits) error {
	if errors.Is(err, errTooLarge) {
		return fmt.Errorf("the file is larger than %d bytes (the limit)", limits.MaxBytes)
	}
	return err
}

// readPickle reads a snapshot pickle to its STOP, then checks that
// nothing follows it.
func readPickle(in *input, limits Limits) ([]*Snapshot, error) {
	v, u, err := unpickle(in, limits)
	if err != nil {
		return nil, err
	}
	u.memo, u.stack = memo{}, nil // let go before the events are made
	top, ok := v.(*dict)
	if !ok || top != u.top {
		return nil, fmt.Errorf("not a snapshot: the pickle is a %s, not a dict", typeName(slotOf(v)))
	}
	if u.traces == nil {
		return nil, errors.New(`not a snapshot: no "device_traces" (was it recorded with _record_memory_history?)`)
	}
	at := in.pos()
	if err := in.trailing(); err != nil {
		u.problems = append(u.problems, Problem{Event: -1, Offset: at, Msg: limitError(err, limits).Error()})
	}
	return fromPlain(top, u)
}

// devices collects per-device snapshots as a file is read.
type devices map[int]*Snapshot

// of returns device d's snapshot, made on first use like proto.
func (ds devices) of(d int, proto *Snapshot) *Snapshot {
	s, ok := ds[d]
	if !ok {
		s = &Snapshot{Device: d, AllocConf: proto.AllocConf, HasRequested: proto.HasRequested, rest: proto.rest}
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

// Open reads a file to replay within DefaultLimits: a snapshot (a
// pickle, or a JSON object that names "events"), one history per device
// it recorded (named FILE cuda:N unless the file holds cuda:0 alone), or
// an ops trace (a JSON object with "ops"). Which it is, is told by its
// content; gzip is inflated wherever it is found.
func Open(path string) ([]Opened, error) { return OpenWithin(path, DefaultLimits) }

// OpenWithin is Open within limits.
func OpenWithin(path string, limits Limits) ([]Opened, error) {
	k, err := sniff(path, limits)
	if err != nil {
		return nil, err
	}
	if k == ofJSON && !isFlattening(path, limits) {
		t, err := trace.Load(path)
		if !errors.Is(err, trace.ErrNoOps) {
			if err != nil {
				return nil, err
			}
			return []Opened{{Trace: t}}, nil
		}
		if _, serr := LoadAllWithin(path, limits); errors.Is(serr, errNoEvents) {
			return nil, err // neither: say what an ops trace lacks
		}
	}
	all, err := loadHistories(path, limits)
	if err != nil {
		return nil, err
	}
	var out []Opened
	for _, s := range all {
		name := path
		if len(all) > 1 || s.Device != 0 {
			name = fmt.Sprintf("%s cuda:%d", path, s.Device)
		}
		r, err := s.Prepare(name)
		if errors.Is(err, trace.ErrNoOps) && len(s.Problems) > 0 {
			// what was left out was all there was: say why
			return nil, &fileio.InFile{Path: path, Err: fmt.Errorf("%s, and nothing else to replay", s.Problems[0])}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, Opened{Trace: r.Trace, Replay: r})
	}
	return out, nil
}

// fileKind is what a file's first bytes say it is.
type fileKind uint8

const (
	ofPickle fileKind = iota
	ofJSON
)

// sniff tells a pickle (its PROTO opcode, protocol 2 or later) from
// JSON (an object), inflating gzip first.
func sniff(path string, limits Limits) (fileKind, error) {
	in, f, err := openInput(path, limits.MaxBytes, "trace or snapshot")
	if err != nil {
		return 0, pathError(path, err, limits)
	}
	defer f.Close()
	for {
		c, err := in.byte()
		if err != nil {
			return 0, &fileio.InFile{Path: path, Err: errors.New("empty, or not a trace or snapshot")}
		}
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case 0x80:
			return ofPickle, nil
		case '{':
			return ofJSON, nil
		}
		return 0, &fileio.InFile{Path: path, Err: fmt.Errorf("neither a snapshot (a pickle, as _dump_snapshot writes) nor a trace (JSON): it starts with byte 0x%02x", c)}
	}
}
