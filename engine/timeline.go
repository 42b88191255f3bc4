package engine

import (
	"container/heap"
	"sort"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// Lifetime is one allocation of a device's history, for a plot's
// timeline: its size, where in the history it was made and freed, and
// the innermost frame of the code that made it.
type Lifetime struct {
	Size  uint64
	Made  int // the index of its alloc event in History(dev)
	Freed int // the index of its free_completed event; -1 while it lives
	// Frame is the innermost frame of its alloc event's stack; the
	// zero Frame when it was recorded without one (RecordFrames not set).
	Frame snapshot.Frame
}

// Timeline is a device's allocations, bounded for a plot: the largest
// one by one, the rest as totals at the caller's marks.
type Timeline struct {
	// Kept are the largest allocations, in the order they were made.
	Kept []Lifetime
	// Rest is, at each mark, the bytes of the other allocations live
	// there.
	Rest []uint64
}

// Timeline returns device dev's allocations so far. The limit largest
// (ties: the longer lived, then the earlier) are kept as Lifetimes; the
// others are summed at each of marks, positions in History(dev) in
// ascending order (an allocation is live at mark m when it was made
// before m and not freed before m). It holds the allocations live at
// one time, the kept ones and one total per mark, never the whole
// history's.
func (s *Session) Timeline(dev, limit int, marks []int) (Timeline, error) {
	g, err := s.gpu(dev)
	if err != nil {
		return Timeline{}, err
	}
	events := g.history.Events
	// diff[i] is what the rest gains at marks[i] and after: each
	// allocation adds its size from the first mark past its alloc and
	// takes it away from the first mark past its free.
	diff := make([]int64, len(marks)+1)
	span := func(l *lifetime, sign int64) {
		diff[firstMarkAfter(marks, l.made)] += sign * int64(l.size)
		if l.freed >= 0 {
			diff[firstMarkAfter(marks, l.freed)] -= sign * int64(l.size)
		}
	}
	kept := &largest{}
	live := map[uint64]*lifetime{}
	keep := func(l *lifetime) {
		span(l, 1)
		heap.Push(kept, l)
		if kept.Len() > limit {
			heap.Pop(kept)
		}
	}
	for i, ev := range events {
		switch ev.Action {
		case "alloc":
			live[ev.Addr] = &lifetime{size: ev.Size, made: i, freed: -1, stack: ev.Frames}
		case "free_completed":
			if l, ok := live[ev.Addr]; ok {
				delete(live, ev.Addr)
				l.freed = i
				keep(l)
			}
		}
	}
	for _, l := range live {
		keep(l)
	}
	t := Timeline{Kept: make([]Lifetime, 0, kept.Len()), Rest: make([]uint64, len(marks))}
	for _, l := range *kept {
		span(l, -1)
		lt := Lifetime{Size: l.size, Made: l.made, Freed: l.freed}
		if f := l.stack.Frames(); len(f) > 0 {
			lt.Frame = f[0]
		}
		t.Kept = append(t.Kept, lt)
	}
	sort.Slice(t.Kept, func(i, j int) bool { return t.Kept[i].Made < t.Kept[j].Made })
	var sum int64
	for i := range marks {
		sum += diff[i]
		t.Rest[i] = uint64(sum)
	}
	return t, nil
}

// firstMarkAfter is the index of the first mark past event i (len(marks)
// when there is none).
func firstMarkAfter(marks []int, i int) int {
	return sort.SearchInts(marks, i+1)
}

// lifetime is an allocation while Timeline reads the history: a live
// one's freed is -1 and its lifespan runs to the history's end.
type lifetime struct {
	size        uint64
	made, freed int
	stack       snapshot.Stack
}

// less orders allocations from least to most worth keeping: smaller,
// then shorter lived, then later.
func (l *lifetime) less(o *lifetime) bool {
	if l.size != o.size {
		return l.size < o.size
	}
	if a, b := l.lifespan(), o.lifespan(); a != b {
		return a < b
	}
	return l.made > o.made
}

func (l *lifetime) lifespan() int {
	if l.freed < 0 {
		return int(^uint(0) >> 1)
	}
	return l.freed - l.made
}

// largest is a min-heap of the allocations kept so far: its root is the
// first to give way to a larger one.
type largest []*lifetime

func (h largest) Len() int           { return len(h) }
func (h largest) Less(i, j int) bool { return h[i].less(h[j]) }
func (h largest) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *largest) Push(x any)        { *h = append(*h, x.(*lifetime)) }
func (h *largest) Pop() any {
	old := *h
	l := old[len(old)-1]
	*h = old[:len(old)-1]
	return l
}
