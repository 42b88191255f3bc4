package snapshot

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"strings"
	"testing"
)

// pickleOf is a protocol 4 pickle of the snapshot dict holding events
// (each a list of key, value pairs) and segments, built by our writer's
// encoder so that single fields can be made wrong.
func pickleOf(t *testing.T, events [][]any, segments []any) []byte {
	t.Helper()
	var evs []any
	for _, kv := range events {
		d := &dict{}
		for i := 0; i < len(kv); i += 2 {
			d.items = append(d.items, item{kv[i], kv[i+1]})
		}
		evs = append(evs, d)
	}
	top := &dict{items: []item{{"segments", &list{items: segments}}, {"device_traces", &list{items: []any{&list{items: evs}}}}}}
	var b bytes.Buffer
	e := newEncoder(&b)
	e.b(0x80, 4)
	e.value(top, 0)
	e.b('.')
	if e.err != nil || e.w.Flush() != nil {
		t.Fatal(e.err)
	}
	return b.Bytes()
}

func alloc(addr any) []any {
	return []any{"action", "alloc", "addr", addr, "size", int64(512), "stream", int64(0), "time_us", int64(7)}
}

func segment(dev, addr, size int64) *dict {
	return &dict{items: []item{{"device", dev}, {"address", addr}, {"total_size", size}, {"segment_type", "small"}, {"blocks", &list{}}}}
}

// Contradictions are problems that name the event (device, index, pickle
// offset) or the segments: never silence, never a panic.
func TestProblems(t *testing.T) {
	for _, c := range []struct {
		name     string
		events   [][]any
		segments []any
		want     string
	}{
		{"NaN address", [][]any{alloc(int64(1 << 20)), alloc(nanValue())}, nil, "cuda:0 event 1 (pickle offset "},
		{"NaN address named", [][]any{alloc(nanValue())}, nil, "addr is the float NaN, not an integer of at least 0"},
		{"negative size", [][]any{{"action", "alloc", "addr", int64(4096), "size", int64(-5)}}, nil, "size is -5, not an integer of at least 0"},
		{"unknown action", [][]any{{"action", "malloc", "addr", int64(0)}}, nil, `cuda:0 event 0 (pickle offset`},
		{"unknown action named", [][]any{{"action", "malloc", "addr", int64(0)}}, nil, `unknown action "malloc" (not replayed)`},
		{"no action", [][]any{{"addr", int64(0)}}, nil, "it has no action"},
		{"device 2^40", nil, []any{segment(1<<40, 1<<30, 2<<20)}, "segments[0]: device index 1099511627776 is outside 0 to 119"},
		{"NaN segment address", nil, []any{segment(0, 1<<30, 2<<20), &dict{items: []item{{"device", int64(0)}, {"address", nanValue()}, {"total_size", int64(2 << 20)}}}}, "segments[1]: address is the float NaN, not an integer of at least 0 (the segment is left out)"},
		{"negative segment size", nil, []any{segment(0, 1<<30, -5)}, "segments[0]: total_size is -5, not an integer of at least 0 (the segment is left out)"},
		{"a block's missing size", nil, []any{&dict{items: []item{{"device", int64(0)}, {"address", int64(1 << 30)}, {"total_size", int64(2 << 20)}, {"blocks", &list{items: []any{&dict{items: []item{{"address", int64(1 << 30)}}}}}}}}}, "segments[0].blocks[0]: size is missing, not an integer of at least 0"},
		{"overlapping segments", nil, []any{segment(0, 1<<30, 4<<20), segment(0, 1<<30+(2<<20), 2<<20)}, "cuda:0's segments: the segment at 0x40000000 (4194304 bytes) overlaps the one at 0x40200000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			all, err := readBytes(pickleOf(t, c.events, c.segments))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range all[0].Problems {
				got = append(got, p.String())
			}
			if !strings.Contains(strings.Join(got, "\n"), c.want) {
				t.Errorf("problems %q, want one with %q", got, c.want)
			}
		})
	}
}

func nanValue() float64 {
	var zero float64
	return zero / zero
}

// Hostile files are refused quickly, with a short message that says
// where: a stack of 50 MB of DUPs, an integer of 10^6 digits, a gzip
// bomb, garbage after the gzip stream, a length past the end.
func TestHostile(t *testing.T) {
	good := pickleOf(t, [][]any{alloc(int64(1 << 20))}, nil)
	long := binary.LittleEndian.AppendUint32([]byte{0x80, 4, 0x8b}, 415_000) // LONG4: 10^6 decimal digits
	long = append(long, make([]byte, 415_000)...)
	dups := append([]byte{0x80, 4, 'N'}, bytes.Repeat([]byte{'2'}, 50<<20)...)
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(good) //nolint:errcheck // a bytes.Buffer
	zw.Close()
	garbage := append(bytes.Clone(gz.Bytes()), "garbage"...)
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"DUP", dups, "pickle offset 4194306: the stack holds more than 4194304 values"},
		{"long integer", long, "pickle offset 2: an integer of 415000 bytes (more than 16)"},
		{"length past the end", []byte{0x80, 4, 'X', 0xff, 0xff, 0xff, 0x7f, 'a'}, "pickle offset 2: declares 2147483647 bytes and the file has 1 left"},
		{"class", []byte("\x80\x04cposix\nsystem\n."), "refused: the pickle names posix.system"},
		{"truncated", good[:len(good)-1], "the pickle ends before its STOP"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// the offset in each message shows where the read stopped:
			// the work done is bounded by it, not by a clock
			_, err := readBytes(c.b)
			if err == nil || !strings.Contains(err.Error(), c.want) || len(err.Error()) > 200 {
				t.Errorf("got %v, want %q in a short message", err, c.want)
			}
		})
	}
	all, err := readBytes(garbage)
	if err != nil || len(all[0].Problems) != 1 || !strings.Contains(all[0].Problems[0].String(), "the gzip stream is damaged after the pickle") {
		t.Errorf("garbage after the gzip stream: %v, %v", err, all[0].Problems)
	}
	if all, err := readBytes(append(bytes.Clone(good), 0, 0)); err != nil || !strings.Contains(all[0].Problems[0].String(), "2 bytes follow the pickle's STOP") {
		t.Errorf("bytes after STOP: %v", err)
	}
}

// A gzipped file inflating past the limit stops there.
func TestInflateLimit(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte{0x80, 4})                       //nolint:errcheck // a bytes.Buffer
	zw.Write(bytes.Repeat([]byte{'N', '0'}, 8<<20)) //nolint:errcheck // 16 MiB of None, POP
	zw.Close()
	in, err := newInput(bytes.NewReader(gz.Bytes()), int64(gz.Len()), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	_, err = readSnapshot(in, Limits{MaxBytes: 1 << 20, MaxValues: 100})
	if err == nil || !strings.Contains(err.Error(), "the file is larger than 1048576 bytes (the limit)") {
		t.Errorf("got %v", err)
	}
}
