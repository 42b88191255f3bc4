// Tests of PyTorch memory snapshots. The oracle is the snapshots PyTorch
// 2.11 wrote on the H200 (testdata/models/*.pickle,
// testdata/truth/workloads; gpumemrepl replay --check in .ci/run replays
// each), and for what-if replays scripts/record_whatif.py's recordings.
package snapshot

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/allocator/device/sim"
	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

func TestLoadPlainPickle(t *testing.T) {
	s, err := Load("testdata/small.pickle")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Events) != 2 || s.Events[1].Action != "alloc" || s.Events[1].Size != 24 || len(s.Segments) != 1 || s.Segments[0].Blocks[0].Requested != 24 {
		t.Errorf("read %+v", s)
	}
	r, err := s.Prepare("small")
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Trace.Ops) != 1 || len(r.SegmentEvents) != 1 || r.SegmentEvents[0].Size != 2097152 {
		t.Errorf("prepared %d ops, segment events %v", len(r.Trace.Ops), r.SegmentEvents)
	}
}

// A pickle that names a class (here posix.system, called by REDUCE) is
// refused by name; nothing is run.
func TestClassIsRefused(t *testing.T) {
	_, err := Load("testdata/class.pickle")
	if err == nil || !strings.Contains(err.Error(), "refused: the pickle names posix.system") {
		t.Fatalf("got %v", err)
	}
}

// readBytes reads a snapshot pickle (or JSON) from memory.
func readBytes(b []byte) ([]*Snapshot, error) {
	in, err := newInput(bytes.NewReader(b), int64(len(b)), DefaultLimits.MaxBytes)
	if err != nil {
		return nil, err
	}
	return readSnapshot(in, DefaultLimits)
}

// Every truncation of a real snapshot is an error, never a panic.
func TestTruncatedIsAnError(t *testing.T) {
	b, err := os.ReadFile("../../testdata/models/mlp_adamw.pickle")
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n += 97 {
		if _, err := readBytes(b[:n]); err == nil {
			t.Errorf("%d of %d bytes read as a snapshot", n, len(b))
		}
	}
}

// An event's items read straight into its builder (eventItems) read as
// the opcodes one at a time do (a reader that gives one byte at a time
// leaves eventItems nothing buffered): the same events, problems and
// errors, for real snapshots, events with odd fields and every
// truncation of one.
func TestEventItemsReadAsOpcodes(t *testing.T) {
	var files [][]byte
	for _, p := range []string{"../../testdata/models/mlp_adamw.pickle", "../../testdata/models/two_devices.pickle", "../../testdata/models/wrapped_streams.pickle"} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	odd := pickleOf(t, [][]any{
		alloc(int64(1 << 20)),
		{"action", "alloc", "addr", 2.5, "size", int64(-5), "frames", &list{}, "stream", int64(1) << 40, "extra", nil, "flag", true},
		{"action", "malloc", "addr", &bigInt{le: make([]byte, 12)}, "time_us", int64(-3)},
		{"size", int64(7), "size", int64(9), "action", "free_completed", "addr", int64(1 << 20)},
		// LONG1 of 8 bytes and shorter (as CPython writes them), negative and not
		{"action", "alloc", "addr", int64(-1) << 40, "size", int64(math.MaxInt64), "time_us", int64(math.MinInt64), "stream", int64(1) << 32},
		{"action", "alloc", "addr", &bigInt{le: []byte{0, 0, 0, 0, 0x80}}, "size", &bigInt{le: []byte{1, 2, 3, 4, 5, 6}}, "time_us", &bigInt{le: []byte{0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}}, "stream", &bigInt{}},
		// other fields that are strings, shared with the event before or
		// not (one more, one fewer, another value); one that is a number;
		// a modelled field of the wrong kind, then of its kind
		{"action", "alloc", "addr", int64(1 << 21), "compile_context", "N/A", "user_metadata", ""},
		{"action", "alloc", "addr", int64(1 << 22), "compile_context", "N/A", "user_metadata", ""},
		{"action", "alloc", "addr", int64(1 << 23), "compile_context", "N/A", "user_metadata", "alloc"},
		{"action", "alloc", "addr", int64(1 << 24), "compile_context", "N/A"},
		{"action", "alloc", "addr", int64(1 << 25), "compile_context", "N/A", "user_metadata", "", "flag", "N/A"},
		{"action", "oom", "size", int64(1 << 20), "device_free", int64(5), "compile_context", "N/A"},
		{"action", "free_completed", "addr", int64(-5), "addr", int64(1 << 21), "compile_context", "N/A"},
		{"compile_context", "N/A", "action", "free_completed", "addr", int64(1 << 22)},
	}, nil)
	files = append(files, odd)
	for n := 0; n < len(odd); n += 7 {
		files = append(files, odd[:n])
	}
	for i, b := range files {
		fast, ferr := readBytes(b)
		in, err := newInput(iotest.OneByteReader(bytes.NewReader(b)), int64(len(b)), DefaultLimits.MaxBytes)
		if err != nil {
			t.Fatal(err)
		}
		slow, serr := readSnapshot(in, DefaultLimits)
		if fmt.Sprint(ferr) != fmt.Sprint(serr) || !reflect.DeepEqual(fast, slow) {
			t.Errorf("file %d: read %v, %v; one byte at a time %v, %v", i, fast, ferr, slow, serr)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, p := range []string{"testdata/small.pickle", "testdata/class.pickle"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if all, err := readBytes(b); err == nil {
			for _, s := range all {
				s.Prepare("fuzz") //nolint:errcheck // only must not panic
			}
		}
	})
}

// What Save writes reads back as the same snapshot, streams included.
func TestSaveRoundTrip(t *testing.T) {
	for _, p := range []string{"../../testdata/models/mlp_adamw.pickle", "../../testdata/models/two_streams.pickle"} {
		roundTrip(t, p)
	}
}

func roundTrip(t *testing.T, path string) {
	s, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var segs []allocator.SegmentInfo
	for _, g := range s.Segments {
		si := allocator.SegmentInfo{Stream: g.Stream, Address: g.Address, TotalSize: g.TotalSize, Small: g.Type == "small"}
		for _, b := range g.Blocks {
			si.Blocks = append(si.Blocks, allocator.BlockInfo{Address: b.Address, Size: b.Size, RequestedSize: b.Requested, State: b.State})
		}
		segs = append(segs, si)
	}
	out := t.TempDir() + "/out.pickle"
	if err := Save(out, 0, segs, s.Events, "max_split_size_mb:64"); err != nil {
		t.Fatal(err)
	}
	back, err := Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if back.AllocConf != "max_split_size_mb:64" || len(back.Events) != len(s.Events) || len(back.Segments) != len(s.Segments) {
		t.Fatalf("read back %q, %d events, %d segments; wrote %d, %d", back.AllocConf, len(back.Events), len(back.Segments), len(s.Events), len(s.Segments))
	}
	for i, e := range s.Events {
		if b := back.Events[i]; b.Action != e.Action || b.Addr != e.Addr || b.Size != e.Size || b.Stream != e.Stream {
			t.Fatalf("event %d: wrote %+v, read %+v", i, e, b)
		}
	}
	if a, b := s.layout(), back.layout(); len(a) != len(b) || trace.CompareLayout(0, a, b) != nil {
		t.Errorf("%s: segments differ: %v", path, trace.CompareLayout(0, a, b))
	}
	for i, g := range s.Segments {
		if back.Segments[i].Stream != g.Stream {
			t.Errorf("%s: segment %#x: stream %#x read back as %#x", path, g.Address, g.Stream, back.Segments[i].Stream)
		}
	}
}

func TestEncodeValues(t *testing.T) {
	var b bytes.Buffer
	l := &list{items: []any{int64(1), "a"}}
	v := &dict{items: []item{{"n", nil}, {"t", true}, {"f", false}, {"small", 7}, {"neg", int64(-5)}, {"big", uint64(1) << 47}, {"huge", uint64(1) << 63},
		{"x", 1.5}, {"s", "é"}, {"l", l}, {"again", l}, {"tu", tuple{int64(0), int64(0)}}, {"e", &list{}}, {"by", pyBytes("\x00\x01")}}}
	e := newEncoder(&b)
	e.b(0x80, 4)
	e.value(v, 0)
	e.b('.')
	if e.err != nil || e.w.Flush() != nil {
		t.Fatal(e.err)
	}
	in, err := newInput(bytes.NewReader(b.Bytes()), int64(b.Len()), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := unpickle(in, DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	d := got.(*dict)
	want := map[string]any{"n": nil, "t": true, "f": false, "small": int64(7), "neg": int64(-5), "big": int64(1) << 47, "x": 1.5, "s": "é"}
	for k, w := range want {
		if d.get(k) != w {
			t.Errorf("%s: got %#v, want %#v", k, d.get(k), w)
		}
	}
	if h, ok := d.get("huge").(*bigInt); !ok || len(h.le) != 9 || h.le[7] != 0x80 {
		t.Errorf("2^63: got %#v", d.get("huge"))
	}
	gl := d.get("l").(*list)
	if len(gl.items) != 2 || gl.items[1] != "a" || d.get("again") != any(gl) || len(d.get("tu").(tuple)) != 2 || len(d.get("e").(*list).items) != 0 {
		t.Errorf("lists: %#v %#v %#v", d.get("l"), d.get("tu"), d.get("e"))
	}
	if by, ok := d.get("by").(pyBytes); !ok || string(by) != "\x00\x01" {
		t.Errorf("bytes: %#v", d.get("by"))
	}
}

// A free of a block the history never saw is said, not hidden.
func TestNotes(t *testing.T) {
	s := &Snapshot{Events: []Event{
		{Action: "free_completed", Addr: 7, Size: 512},
		{Action: "alloc", Addr: 9, Size: 512, Stream: 3},
	}}
	r, err := s.Prepare("late")
	if err != nil {
		t.Fatal(err)
	}
	want := " (1 frees of blocks it never saw are left out)"
	if got := r.Notes(); got != want {
		t.Errorf("notes %q", got)
	}
}

// FuzzPrepare builds snapshots from bytes (events, segments, blocks of
// odd sizes and places) and replays them: never a panic.
func FuzzPrepare(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Add([]byte("segment_free then free of an unseen block"))
	f.Fuzz(func(t *testing.T, b []byte) {
		s := &Snapshot{HasRequested: true}
		actions := []string{"alloc", "free_completed", "segment_alloc", "segment_free", "oom"}
		base := uint64(1) << 40
		for i := 0; i+2 < len(b); i += 3 {
			addr := base + uint64(b[i+1])<<20
			size := uint64(b[i+2]) << (b[i] % 24)
			if b[i]%7 == 6 {
				seg := Segment{Address: addr, TotalSize: size<<1 | 2<<20, Type: "large"}
				seg.Blocks = []Block{{Address: addr + size/2, Size: size, State: "active_allocated"}}
				s.Segments = append(s.Segments, seg)
				continue
			}
			s.Events = append(s.Events, Event{Action: actions[int(b[i])%len(actions)], Addr: addr, Size: size})
		}
		r, err := s.Prepare("fuzz")
		if err != nil {
			return
		}
		a, err := trace.Setup(r.Trace, trace.Options{Device: r.NewPlayback(sim.New(sim.H200Total))})
		if err != nil {
			return
		}
		trace.NewReplayer(r.Trace, a).Run(nil) //nolint:errcheck // only must not panic
	})
}

// The mapped ranges of an expandable history merge as they are added.
func TestIntervals(t *testing.T) {
	var s intervals
	s.add(10, 20)
	s.add(30, 40)
	s.add(20, 30) // joins both
	s.add(50, 60)
	s.add(5, 12) // extends the first
	if len(s) != 2 || s[0] != [2]uint64{5, 40} || s[1] != [2]uint64{50, 60} {
		t.Fatalf("merged to %v", s)
	}
	for _, c := range []struct {
		from, to        uint64
		covers, overlap bool
	}{{5, 40, true, true}, {10, 45, false, true}, {40, 50, false, false}, {55, 56, true, true}, {0, 5, false, false}, {59, 70, false, true}} {
		if s.covers(c.from, c.to) != c.covers || s.overlaps(c.from, c.to) != c.overlap {
			t.Errorf("[%d, %d): covers %v overlaps %v", c.from, c.to, s.covers(c.from, c.to), s.overlaps(c.from, c.to))
		}
	}
}
