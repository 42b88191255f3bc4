package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

const mapWidth = 64

// writeMap draws each segment as a bar, its blocks in address order:
// '#' for allocated, '.' for cached (free) memory, each block at least one
// character so that small ones stay visible; then the blocks in words.
// An expandable segment's mapped runs are drawn like segments, followed by
// a line for its range: how much of the reserved address space is mapped.
func writeMap(w io.Writer, segs []allocator.SegmentInfo, exp []allocator.ExpandableInfo) {
	defer func() {
		for _, e := range exp {
			pool := "large"
			if e.Small {
				pool = "small"
			}
			fmt.Fprintf(w, "%s expandable range: %s mapped of %s reserved address space (the rest unmapped, no memory)\n",
				pool, size(e.Mapped), size(e.Reserved))
		}
	}()
	if len(segs) == 0 {
		io.WriteString(w, "no segments: nothing is reserved\n")
		return
	}
	for _, s := range segs {
		pool := "large"
		if s.Small {
			pool = "small"
		}
		var bar strings.Builder
		used := 0
		for i, b := range s.Blocks {
			n := int(b.Size * mapWidth / s.TotalSize)
			if i == len(s.Blocks)-1 {
				n = mapWidth - used
			}
			n = max(n, 1)
			used += n
			ch := "."
			if b.State == allocator.StateAllocated {
				ch = "#"
			}
			bar.WriteString(strings.Repeat(ch, n))
		}
		free := s.TotalSize - s.AllocatedSize
		fmt.Fprintf(w, "%s %10s |%s| %s free in %d block(s)\n", pool, size(s.TotalSize), colorBar(bar.String()), size(free), s.FreeBlocks())
	}
}

func colorBar(s string) string {
	var b strings.Builder
	for _, run := range splitRuns(s) {
		if run[0] == '#' {
			b.WriteString(colorUp.Sprint(run))
		} else {
			b.WriteString(colorDown.Sprint(run))
		}
	}
	return b.String()
}

func splitRuns(s string) []string {
	var runs []string
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		runs = append(runs, s[i:j])
		i = j
	}
	return runs
}
