package main

import (
	bin "encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kv is a Python dict's items in order, for pickled.
type kv []any

// pickled is v as a protocol 4 pickle: dicts (kv), lists ([]any), str,
// int64 and float64, the plain data of a snapshot, so that a test can
// write what no PyTorch run writes (a NaN address).
func pickled(v any) []byte {
	b := []byte{0x80, 4}
	var put func(v any)
	put = func(v any) {
		switch v := v.(type) {
		case kv:
			b = append(b, '}', '(')
			for _, x := range v {
				put(x)
			}
			b = append(b, 'u')
		case []any:
			b = append(b, ']', '(')
			for _, x := range v {
				put(x)
			}
			b = append(b, 'e')
		case string:
			b = append(b, 0x8c, byte(len(v)))
			b = append(b, v...)
		case int64:
			b = append(b, 0x8a, 8)
			b = bin.LittleEndian.AppendUint64(b, uint64(v))
		case float64:
			b = append(b, 'G')
			b = bin.BigEndian.AppendUint64(b, math.Float64bits(v))
		}
	}
	put(v)
	return append(b, '.')
}

// A snapshot or trace holding what no PyTorch run produces (a segment
// whose address or size is NaN or negative, a block's likewise, a device
// of 0 bytes, no history at all) is never replayed as a clean summary:
// a warning names it and where it is (an error under --check), or,
// where nothing else is left to replay, it is the error (exit 1), on
// one line that names the file once.
func TestImpossibleValuesNamed(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	nan := math.NaN()
	segment := func(addr, size any, block kv) kv {
		return kv{"device", int64(0), "address", addr, "total_size", size, "stream", int64(0), "segment_type", "large",
			"blocks", []any{block}}
	}
	block := func(addr, size any) kv {
		return kv{"address", addr, "size", size, "requested_size", int64(0), "state", "inactive"}
	}
	const base = int64(0x7f0000000000)
	alloc := kv{"action", "alloc", "addr", base + 64<<20, "size", int64(512), "stream", int64(0), "time_us", int64(1)}
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	snap := func(name string, seg kv, events ...any) string {
		return write(name, pickled(kv{"segments", []any{seg}, "device_traces", []any{events}}))
	}
	for _, tc := range []struct {
		name, path, want string
		warns            bool // a warning, and the history replayed; else exit 1
	}{
		{"NaN address", snap("nan_address.pickle", segment(nan, int64(2<<20), block(nan, int64(2<<20))), alloc),
			"segments[0]: address is the float NaN, not an integer of at least 0 (the segment is left out)", true},
		{"negative size", snap("negative_size.pickle", segment(base, int64(-2<<20), block(base, int64(2<<20))), alloc),
			"segments[0]: total_size is -2097152, not an integer of at least 0 (the segment is left out)", true},
		{"a block's NaN size", snap("block_nan.pickle", segment(base, int64(2<<20), block(base, nan)), alloc),
			"segments[0].blocks[0]: size is the float NaN, not an integer of at least 0 (the segment is left out)", true},
		{"nothing else", snap("only_nan.pickle", segment(base, nan, block(base, int64(2<<20)))),
			"segments[0]: total_size is the float NaN, not an integer of at least 0 (the segment is left out), and nothing else to replay", false},
		{"a device of 0 bytes", write("zero_device.json", []byte(`{"total_memory": 0, "ops": [{"op": "alloc", "id": 0, "size": 512}]}`)),
			"byte 17: total_memory is 0: a device PyTorch records has memory (leave the key out for an H200's)", false},
		{"no history", write("empty.json", []byte(`{"name": "x"}`)), "not a trace: no ops", false},
		{"no device_traces", write("no_traces.pickle", pickled(kv{"segments", []any{}})), `not a snapshot: no "device_traces" (was it recorded with _record_memory_history?)`, false},
	} {
		out, errOut, code := run(t, "replay", tc.path)
		switch {
		case tc.warns && (code != 0 || !strings.Contains(errOut, tc.path+": warning: "+tc.want)):
			t.Errorf("%s: exit %d, stderr %s; want a warning: %s", tc.name, code, errOut, tc.want)
		case !tc.warns && (code != 1 || errOut != tc.path+": "+tc.want+"\n" || out != ""):
			t.Errorf("%s: exit %d, stdout %q, stderr %s; want exit 1 and the file named once: %s: %s", tc.name, code, out, errOut, tc.path, tc.want)
		}
		if !tc.warns { // diff says it as replay does
			if out, errOut, code := run(t, "diff", tc.path, tc.path); code != 1 || errOut != tc.path+": "+tc.want+"\n" || out != "" {
				t.Errorf("%s: diff: exit %d, stdout %q, stderr %s; want exit 1: %s: %s", tc.name, code, out, errOut, tc.path, tc.want)
			}
		}
		if tc.warns {
			if _, errOut, code := run(t, "replay", "--check", tc.path); code != 1 || !strings.Contains(errOut, tc.want) {
				t.Errorf("%s --check: exit %d, %s; want exit 1: %s", tc.name, code, errOut, tc.want)
			}
		}
	}
}
