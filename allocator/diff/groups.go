package diff

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// The size classes are the allocator's own (CUDACachingAllocator.cpp):
// a request of at most kSmallSize comes from the small pool's 2 MiB
// segments, one under kMinLargeAlloc from 20 MiB segments, a larger one
// from a segment of its own size.
const (
	smallSize     = 1 << 20
	minLargeAlloc = 10 << 20
)

// SizeClasses names the size classes, smallest first.
var SizeClasses = []string{"<= 1 MiB (small pool)", "1-10 MiB (20 MiB segments)", ">= 10 MiB (own segment)"}

func sizeClass(size uint64) string {
	switch {
	case size <= smallSize:
		return SizeClasses[0]
	case size < minLargeAlloc:
		return SizeClasses[1]
	}
	return SizeClasses[2]
}

// grouping tallies allocations under names.
type grouping struct {
	index  map[string]int
	groups []Group
	live   []uint64
}

// at is the index of the group named name, made when new.
func (g *grouping) at(name string) int {
	if g.index == nil {
		g.index = map[string]int{}
	}
	i, ok := g.index[name]
	if !ok {
		i = len(g.groups)
		g.index[name] = i
		g.groups = append(g.groups, Group{Name: name})
		g.live = append(g.live, 0)
	}
	return i
}

func (g *grouping) mark() {
	for i := range g.groups {
		g.groups[i].AtPeak = g.live[i]
	}
}

// largestFirst sorts the groups by bytes at the peak, then bytes in
// all, then name, and keeps the first top (all when top is 0).
func largestFirst(gs []Group, top int) []Group {
	slices.SortFunc(gs, func(a, b Group) int {
		if c := cmp.Compare(b.AtPeak, a.AtPeak); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Bytes, a.Bytes); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	if top > 0 && len(gs) > top {
		gs = gs[:top]
	}
	return gs
}

// block is a live allocation: its size and its group in each grouping.
type block struct {
	size uint64
	in   [3]int
}

// group tallies a history's allocations by size class, category and
// frame; the bytes at the peak are those live after the allocation at
// which the requested bytes first reached their most. cats, when it
// names every allocation, gives their categories (a script's, from the
// tool), else they are told from the stacks; lines name a script's own
// frames by their text.
func group(events []snapshot.Event, top int, cats, lines []string) (classes, categories, frames []Group) {
	peakAt, allocs := -1, 0
	var cur, peak uint64
	sizes := map[uint64]uint64{}
	for i, e := range events {
		switch e.Action {
		case "alloc":
			allocs++
			sizes[e.Addr] = e.Size
			if cur += e.Size; cur > peak {
				peak, peakAt = cur, i
			}
		case "free_completed":
			cur -= sizes[e.Addr]
			delete(sizes, e.Addr)
		}
	}
	if len(cats) != allocs {
		cats = nil
	}
	var by [3]grouping // size classes, categories, frames
	for _, name := range SizeClasses {
		by[0].at(name)
	}
	names := map[snapshot.Stack][2]int{}
	live := map[uint64]block{}
	stacks := false
	made := 0
	for i, e := range events {
		switch e.Action {
		case "alloc":
			n, ok := names[e.Frames]
			if !ok {
				fr := e.Frames.Frames()
				stacks = stacks || len(fr) > 0
				n = [2]int{by[1].at(Category(fr)), by[2].at(frameName(fr, lines))}
				names[e.Frames] = n
			}
			if cats != nil {
				n[0] = by[1].at(cats[made])
			}
			made++
			b := block{e.Size, [3]int{by[0].at(sizeClass(e.Size)), n[0], n[1]}}
			live[e.Addr] = b
			for k := range by {
				by[k].groups[b.in[k]].Count++
				by[k].groups[b.in[k]].Bytes += b.size
				by[k].live[b.in[k]] += b.size
			}
		case "free_completed":
			b, ok := live[e.Addr]
			if !ok {
				continue
			}
			delete(live, e.Addr)
			for k := range by {
				by[k].live[b.in[k]] -= b.size
			}
		}
		if i == peakAt {
			for k := range by {
				by[k].mark()
			}
		}
	}
	if !stacks {
		return by[0].groups, nil, nil
	}
	// a script's categories are the tool's; a recording's, from its
	// stacks, only where they tell some apart
	var keep []Group
	for _, g := range by[1].groups {
		if g.Count > 0 {
			keep = append(keep, g)
		}
	}
	if cats != nil || len(keep) > 1 || keep[0].Name != Other {
		categories = largestFirst(keep, 0)
	}
	return by[0].groups, categories, largestFirst(by[2].groups, top)
}

// frameName is the innermost frame of the program's own code (the
// innermost of all when every frame is torch's), as file:line function;
// a frame of the script itself (the outermost frame's file) as
// "function: the line's text" when the script's lines are known, else
// "line N function", so that two versions of a script (a.py, b.py)
// match by function and line.
func frameName(frames []snapshot.Frame, lines []string) string {
	if len(frames) == 0 {
		return noStack
	}
	f, ok := snapshot.ProgramFrame(frames)
	if !ok {
		f = frames[0]
	}
	if ok && len(frames) > 0 && f.Filename == frames[len(frames)-1].Filename {
		if f.Line >= 1 && f.Line <= len(lines) {
			return f.Name + ": " + strings.TrimSpace(lines[f.Line-1])
		}
		return fmt.Sprintf("line %d %s", f.Line, f.Name)
	}
	return fmt.Sprintf("%s:%d %s", path.Base(f.Filename), f.Line, f.Name)
}
