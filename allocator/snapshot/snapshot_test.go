package snapshot

import (
	"bytes"
	"os"
	"strings"
	"testing"
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

// Every truncation of a real snapshot is an error, never a panic.
func TestTruncatedIsAnError(t *testing.T) {
	b, err := os.ReadFile("../../testdata/models/mlp_adamw.pickle")
	if err != nil {
		t.Fatal(err)
	}
	for n := 0; n < len(b); n += 97 {
		v, err := decodePickle(bytes.NewReader(b[:n]))
		if err == nil {
			if _, err = fromPlain(v); err == nil {
				t.Errorf("%d of %d bytes read as a snapshot", n, len(b))
			}
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
		v, err := decodePickle(bytes.NewReader(b))
		if err == nil {
			if s, err := fromPlain(v); err == nil {
				s.Prepare("fuzz") //nolint:errcheck // only must not panic
			}
		}
	})
}
