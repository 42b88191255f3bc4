package trace

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes data to a file in a test's directory, gzipped when
// the name ends in .gz.
func writeFile(t testing.TB, name string, data []byte) string {
	t.Helper()
	if strings.HasSuffix(name, ".gz") {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
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

// Malformed traces are errors that say where: the op, or the byte.
func TestLoadRefusesMalformed(t *testing.T) {
	for _, tc := range []struct{ name, json, want string }{
		{"negative id", `{"ops":[{"op":"alloc","id":-1,"size":512}]}`, "op 0: id -1 is negative"},
		{"id beyond int64", `{"ops":[{"op":"free","id":0},{"op":"alloc","id":1e30,"size":5}]}`, `op 1: id "1e30" is not an integer`},
		{"id too long", `{"ops":[{"op":"alloc","id":1234567890123456789012345678901234567890,"size":5}]}`, `op 0: id "12345678901234567890123456789012"... is not an integer`},
		{"no op", `{"ops":[{"op":"noop"},{"id":3}]}`, `op 1: no "op"`},
		{"alloc without id", `{"ops":[{"op":"alloc","size":3}]}`, "op 0: alloc without an id"},
		{"size a string", `{"ops":[{"op":"alloc","id":1,"size":"big"}]}`, `want a number, found "\"big\""`},
		{"oom not a bool", `{"ops":[{"op":"alloc","id":1,"size":1,"oom":3}]}`, `op 0: oom "3" is not true or false`},
		{"negative stream", `{"ops":[{"op":"alloc","id":1,"size":1,"stream":-7}]}`, "op 0: stream -7 is negative"},
		{"truncated", `{"ops":[{"op":"alloc","id":1,"size":1}`, "byte 38: unexpected end of JSON"},
		{"bad separator", `{"ops":[{"op":"alloc","id":1,"size":1};]}`, `byte 38: want ',' or ']' after member 0, found ';'`},
		{"bad field value", `{"name": [1, }, "ops":[]}`, "byte 13: invalid character '}'"},
		{"not an object", `[1, 2]`, "not a trace: not a JSON object"},
		{"no ops", `{"events": []}`, "no ops"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeFile(t, "t.json", []byte(tc.json)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if strings.Count(err.Error(), "\n") > 0 {
				t.Errorf("error of more than one line: %q", err)
			}
		})
	}
}

// Ids of any size are numbered densely: a huge one costs one entry.
func TestLoadHugeIDs(t *testing.T) {
	path := writeFile(t, "t.json", []byte(`{"ops":[{"op":"alloc","id":4611686018427387904,"size":512},{"op":"alloc","id":7,"size":512},{"op":"free","id":4611686018427387904}]}`))
	tr, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if tr.slots != 2 || tr.NumProblems != 0 {
		t.Fatalf("%d slots, %d problems; want 2 and 0", tr.slots, tr.NumProblems)
	}
	a, err := Setup(tr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := NewReplayer(tr, a).Run(nil); err != nil {
		t.Fatal(err)
	}
	if got := a.Stats().Allocation[0].Current; got != 1 {
		t.Errorf("%d blocks live after the replay, want 1", got)
	}
}

// Contradictions are Problems naming their op; the op is skipped.
func TestLoadContradictions(t *testing.T) {
	ops := `[{"op":"alloc","id":1,"size":512},` + // 0
		`{"op":"free","id":9},` + // 1: never allocated
		`{"op":"alloc","id":1,"size":512},` + // 2: live
		`{"op":"free","id":1},` + // 3
		`{"op":"free","id":1},` + // 4: freed
		`{"op":"alloc","id":2,"size":-5},` + // 5
		`{"op":"defrag"}]` // 6
	for _, tc := range []struct{ name, file, tail string }{
		{"plain", "t.json", ""},
		{"garbage after the JSON", "t.json", " xyz"},
		{"gzip", "t.json.gz", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Load(writeFile(t, tc.file, []byte(`{"ops":`+ops+`}`+tc.tail)))
			if err != nil {
				t.Fatal(err)
			}
			want := []string{
				"op 1: free-unknown: free of id 9, which was never allocated",
				"op 2: alloc-live: alloc of id 1, which is live",
				"op 4: double-free: free of id 1, which is already freed",
				"op 5: negative-size: alloc of id 2 has size -5",
				`op 6: unknown-op: unknown op "defrag"`,
			}
			if tc.tail != "" {
				want = append([]string{"trailing-data: bytes follow the trace's JSON object"}, want...)
			}
			var got []string
			for _, p := range tr.Problems {
				got = append(got, p.String())
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for _, i := range []int{1, 2, 4, 5, 6} {
				if tr.Ops[i].Op != "noop" {
					t.Errorf("op %d is %q, not skipped", i, tr.Ops[i].Op)
				}
			}
			var ce *ContradictionError
			if err := tr.Contradictions(); !errors.As(err, &ce) || ce.More != len(want)-1 {
				t.Errorf("Contradictions() = %v", err)
			}
			a, err := Setup(tr, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := NewReplayer(tr, a).Run(nil); err != nil {
				t.Fatalf("replay of the skipped trace: %v", err)
			}
		})
	}
}

// Bytes after the gzip stream are a problem too.
func TestLoadGarbageAfterGzip(t *testing.T) {
	path := writeFile(t, "t.json.gz", []byte(`{"ops":[{"op":"noop"}]}`))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("garbage") //nolint:errcheck // checked by the Close
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	tr, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Problems) != 1 || tr.Problems[0].Kind != TrailingData {
		t.Fatalf("problems %v, want one %s", tr.Problems, TrailingData)
	}
}

// A gzip bomb is refused at the limit, before its bytes cost memory;
// raising the limit lets it through.
func TestLoadInflationLimit(t *testing.T) {
	// 40 MiB of white space inside the object: a few tens of KiB of gzip.
	json := append(append([]byte(`{"ops":[{"op":"noop"}],`), bytes.Repeat([]byte(" "), 40<<20)...), `"name":"x"}`...)
	path := writeFile(t, "bomb.json.gz", json)
	_, err := Load(path)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 33554432 bytes of JSON") || !strings.Contains(err.Error(), "--trace-limit-bytes") {
		t.Fatalf("error %v, want the inflation limit", err)
	}
	if _, err := LoadWithin(path, RaisedLimits(64<<20)); err != nil {
		t.Fatalf("within a raised limit: %v", err)
	}
	if _, err := LoadWithin(path, RaisedLimits(1<<20)); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "the most a trace may hold") {
		t.Fatalf("error %v, want the byte limit", err)
	}
}

// A file of exactly the limit loads.
func TestLoadExactlyAtLimit(t *testing.T) {
	json := []byte(`{"ops":[{"op":"noop"}]}`)
	if _, err := LoadWithin(writeFile(t, "t.json", json), RaisedLimits(int64(len(json)))); err != nil {
		t.Fatal(err)
	}
}
