package trace

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadReplay loads arbitrary bytes as a trace and replays what
// loads: no panic, and a loaded trace replays without an error.
func FuzzLoadReplay(f *testing.F) {
	for _, seed := range []string{
		`{"ops":[{"op":"alloc","id":1,"size":512},{"op":"free","id":1},{"op":"empty_cache"}]}`,
		`{"name":"x","alloc_conf":"expandable_segments:True","ops":[{"op":"alloc","id":0,"size":3000000,"stream":7},{"op":"alloc","id":9,"size":1,"oom":true},{"op":"free","id":0,"stream":7}],"expect":[{"i":0,"allocation.all.current":1}]}`,
		`{"ops":[{"op":"free","id":3},{"op":"alloc","id":2,"size":-1},{"op":"x"}]} tail`,
		`{"ops":[{"op":"alloc","id":-1,"size":512}]}`,
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "t.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, err := LoadWithin(path, RaisedLimits(1<<20))
		if err != nil {
			return
		}
		a, err := Setup(tr, Options{TotalBytes: 1 << 30})
		if err != nil {
			return // a bad alloc_conf or memory_fraction, refused
		}
		if err := NewReplayer(tr, a).Run(nil); err != nil {
			t.Fatalf("a loaded trace fails to replay: %v", err)
		}
		if err := a.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	})
}
