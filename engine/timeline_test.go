package engine

import (
	"slices"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// Timeline keeps the largest allocations with their events and frames,
// and sums the others at each mark.
func TestTimelineKeepsTheLargest(t *testing.T) {
	s, err := NewSession(Options{FakeHost: true})
	if err != nil {
		t.Fatal(err)
	}
	line := 0
	s.RecordFrames(func() []snapshot.Frame {
		return []snapshot.Frame{{Filename: "train.py", Line: line, Name: "step"}, {Filename: "train.py", Line: 99, Name: "<module>"}}
	})
	cuda := Device{CUDA: true}
	alloc := func(at int, elems int64) *Tensor {
		line = at
		x, err := s.NewTensor(TensorSpec{Op: "zeros", Shape: []int64{elems}, DType: Float32, Device: cuda})
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	var marks []int
	mark := func() { marks = append(marks, len(s.History(0))) }
	big := alloc(10, 1<<20)   // 4 MiB, lives to the end
	small := alloc(11, 1<<10) // 4 KiB, freed at the second step
	mark()
	s.Release(small)
	tmp := alloc(12, 1<<19) // 2 MiB, freed in the same step
	s.Release(tmp)
	mark()
	tiny := alloc(13, 1<<8) // 1 KiB, lives to the end
	mark()

	tl, err := s.Timeline(0, 2, marks)
	if err != nil {
		t.Fatal(err)
	}
	var sizes, lines []uint64
	for _, l := range tl.Kept {
		sizes = append(sizes, l.Size)
		lines = append(lines, uint64(l.Frame.Line))
		if l.Frame.Filename != "train.py" || l.Frame.Name != "step" {
			t.Errorf("kept %d bytes with frame %+v, want the innermost", l.Size, l.Frame)
		}
	}
	if want := []uint64{4 << 20, 2 << 20}; !slices.Equal(sizes, want) {
		t.Errorf("kept sizes %v, want %v (the two largest, in the order made)", sizes, want)
	}
	if want := []uint64{10, 12}; !slices.Equal(lines, want) {
		t.Errorf("kept lines %v, want %v", lines, want)
	}
	if tl.Kept[0].Freed != -1 || tl.Kept[1].Freed <= tl.Kept[1].Made || tl.Kept[1].Freed >= marks[1] {
		t.Errorf("kept events %+v, marks %v: big lives on, tmp is freed before the second mark", tl.Kept, marks)
	}
	// The rest: small (4 KiB) at the first mark, nothing at the second,
	// tiny (1 KiB) at the third.
	if want := []uint64{4 << 10, 0, 1 << 10}; !slices.Equal(tl.Rest, want) {
		t.Errorf("rest %v, want %v", tl.Rest, want)
	}
	s.Release(big)
	s.Release(tiny)
	if _, err := s.Timeline(3, 2, marks); err == nil {
		t.Error("a device the session does not have gave no error")
	}
}
