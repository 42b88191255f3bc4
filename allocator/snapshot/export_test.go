package snapshot

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// What a session records (stacks, real times) is written, and a replay
// of that file exports it again with the recorded stacks, times and the
// fields it does not model, the annotate event in its place.
func TestExportKeepsWhatItRead(t *testing.T) {
	dir := t.TempDir()
	line := NewStack(Frame{Filename: "train.gpumem", Line: 3, Name: "<module>"})
	now := int64(1796197769684410)
	rec := Recorder{Frames: line, Now: func() int64 { now += 7; return now }}
	rec.Add("segment_alloc", 1<<30, 2<<20)
	rec.Add("alloc", 1<<30, 512)
	rec.Add("annotate", 1<<30, 0)
	rec.Frames = NewStack(Frame{Filename: "train.gpumem", Line: 4, Name: "<module>"})
	rec.Add("free_requested", 1<<30, 512)
	rec.Add("free_completed", 1<<30, 512)
	rec.Events[1].extra = &fields{items: []item{{"compile_context", "N/A"}, {"user_metadata", "step 1"}}}
	first := filepath.Join(dir, "first.pickle")
	if err := Save(first, 0, nil, rec.Events, ""); err != nil {
		t.Fatal(err)
	}
	s, err := Load(first)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Problems) != 0 || len(s.Events) != 5 || !slices.Equal(s.Events[1].Frames.Frames(), line.Frames()) || s.Events[1].Time != 1796197769684424 {
		t.Fatalf("read back %+v, problems %v", s.Events, s.Problems)
	}
	r, err := s.Prepare(first)
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.Export(trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(dir, "second.pickle")
	if err := f.Save(second, nil); err != nil {
		t.Fatal(err)
	}
	back, err := Load(second)
	if err != nil {
		t.Fatal(err)
	}
	var acts []string
	for _, e := range back.Events {
		acts = append(acts, e.Action)
	}
	if want := []string{"segment_alloc", "alloc", "annotate", "free_requested", "free_completed"}; !slices.Equal(acts, want) {
		t.Fatalf("exported %v, want %v", acts, want)
	}
	a, free := back.Events[1], back.Events[3]
	if a.Time != s.Events[1].Time || !slices.Equal(a.Frames.Frames(), line.Frames()) || a.extra == nil || a.extra.items[1].value != "step 1" {
		t.Errorf("the alloc exported as %+v (extra %v)", a, a.extra)
	}
	if free.Time != s.Events[3].Time || free.Frames.Frames()[0].Line != 4 {
		t.Errorf("the free_requested exported as %+v", free)
	}
}
