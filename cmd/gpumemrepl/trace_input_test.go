package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTrace writes a trace file for a test, gzipped when its name ends
// in .gz.
func writeTrace(t *testing.T, name string, data []byte) string {
	t.Helper()
	if strings.HasSuffix(name, ".gz") {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
		zw.Write(data) //nolint:errcheck // a bytes.Buffer
		zw.Close()     //nolint:errcheck // a bytes.Buffer
		data = buf.Bytes()
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Hostile traces (issue 16, classes 1 and 2) are one positioned line and
// exit 1; a huge id is no cost at all.
func TestReplayHostileTraces(t *testing.T) {
	t.Parallel()
	emptyCaches := append([]byte(`{"ops": [`), bytes.Repeat([]byte(`{"op": "empty_cache"}, `), 2_000_000)...)
	emptyCaches = append(emptyCaches, `{"op": "noop"}]}`...)
	for _, tc := range []struct {
		name, json string
		raw        []byte
		code       int
		want       string
	}{
		{name: "negative.json", json: `{"ops":[{"op":"alloc","id":-1,"size":512}]}`, code: 1, want: "op 0: id -1 is negative"},
		{name: "huge.json", json: `{"ops":[{"op":"alloc","id":4611686018427387904,"size":512}]}`, code: 0},
		{name: "beyond.json", json: `{"ops":[{"op":"alloc","id":1e30,"size":512}]}`, code: 1, want: `op 0: id "1e30" is not an integer`},
		{name: "cut.json", json: `{"ops":[{"op":"alloc","id":1,`, code: 1, want: "byte 29: unexpected end of JSON"},
		{name: "bomb.json.gz", raw: append(append([]byte(`{"ops":[{"op":"noop"}],"name":"`), bytes.Repeat([]byte("a"), 64<<20)...), `"}`...), code: 1, want: "more than 33554432 bytes of JSON (50 times its"},
		{name: "empty_caches.json.gz", raw: emptyCaches, code: 1, want: "--trace-limit-bytes raises the limit"},
	} {
		data := tc.raw
		if data == nil {
			data = []byte(tc.json)
		}
		path := writeTrace(t, tc.name, data)
		out, errOut, code := run(t, "replay", "--quiet", path)
		if code != tc.code || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") > 1 || strings.Contains(errOut, "panic") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit %d and one line with %q", tc.name, code, out, errOut, tc.code, tc.want)
		}
	}
}

// --trace-limit-bytes lets a trace past the default limits, and holds
// it to its own.
func TestReplayTraceLimitFlag(t *testing.T) {
	t.Parallel()
	path := writeTrace(t, "big.json.gz", append(append([]byte(`{"ops":[{"op":"alloc","id":1,"size":512}],"name":"`), bytes.Repeat([]byte("a"), 40<<20)...), `"}`...))
	if out, errOut, code := run(t, "replay", "--quiet", "--trace-limit-bytes", "50000000", path); code != 0 || !strings.Contains(out, "1 ops") {
		t.Errorf("raised: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, errOut, code := run(t, "replay", "--quiet", "--trace-limit-bytes=1000", path); code != 1 || !strings.Contains(errOut, "more than 1000 bytes of JSON (the most a trace may hold)") {
		t.Errorf("lowered: exit %d, stderr %q", code, errOut)
	}
}

// Contradictions (issue 16, class 6) are named warnings with their op,
// and under --check an error of one line.
func TestReplayTraceContradictions(t *testing.T) {
	t.Parallel()
	path := writeTrace(t, "bad.json", []byte(`{"ops":[{"op":"alloc","id":1,"size":512},{"op":"free","id":1},{"op":"free","id":1},`+
		`{"op":"free","id":5},{"op":"alloc","id":2,"size":-3},{"op":"alloc","id":3,"size":512},{"op":"alloc","id":3,"size":512},{"op":"grow"}]} trailing`))
	_, errOut, code := run(t, "replay", "--quiet", path)
	want := []string{
		"trailing-data: bytes follow the trace's JSON object (skipped)",
		"op 2: double-free: free of id 1, which is already freed (skipped)",
		"op 3: free-unknown: free of id 5, which was never allocated (skipped)",
		"op 4: negative-size: alloc of id 2 has size -3 (skipped)",
		"op 6: alloc-live: alloc of id 3, which is live (skipped)",
		`op 7: unknown-op: unknown op "grow" (skipped)`,
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if code != 0 || len(lines) != len(want) {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	for i, w := range want {
		if lines[i] != path+": warning: "+w {
			t.Errorf("line %d: %q, want %q", i, lines[i], w)
		}
	}
	out, errOut, code := run(t, "replay", "--quiet", "--check", path)
	if code != 1 || out != "" || errOut != path+": trailing-data: bytes follow the trace's JSON object (and 5 more contradictions)\n" {
		t.Errorf("--check: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
