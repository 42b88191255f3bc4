package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/repl/command"
)

// mapWidth is a bar's width in characters where the output has no
// width (a pipe, a file); on a terminal the bars are as wide as the
// longest line's words leave room for.
const mapWidth = 64

// minBar is the narrowest bar beside its words: on a terminal narrower
// than that, the words go under the bar.
const minBar = 16

// writeMap draws each segment as a bar, its blocks in address order:
// '#' for allocated, '.' for cached (free) memory, each block at least one
// character so that small ones stay visible (on a terminal, where there
// are more blocks than characters, each character shows the block at its
// middle); then the blocks in words.
// An expandable segment's mapped runs are drawn like segments, followed by
// a line for its range: how much of the reserved address space is mapped.
func writeMap(w io.Writer, segs []allocator.SegmentInfo, exp []allocator.ExpandableInfo) {
	width := widthOf(w)
	defer func() {
		for _, e := range exp {
			fmt.Fprint(w, command.Wrap(fmt.Sprintf("%s expandable range: %s mapped of %s reserved address space (the rest unmapped, no memory)\n",
				poolName(e.Small), size(e.Mapped), size(e.Reserved)), width, "", "  "))
		}
	}()
	if len(segs) == 0 {
		io.WriteString(w, "no segments: nothing is reserved\n")
		return
	}
	heads, tails := make([]string, len(segs)), make([]string, len(segs))
	words := 0 // the widest head and tail: bars of one width line up
	for i, s := range segs {
		heads[i] = fmt.Sprintf("%s %10s |", poolName(s.Small), size(s.TotalSize))
		tails[i] = fmt.Sprintf("| %s free in %d block(s)", size(s.TotalSize-s.AllocatedSize), s.FreeBlocks())
		words = max(words, len(heads[i])+len(tails[i]))
	}
	for i, s := range segs {
		head, tail := heads[i], tails[i]
		switch {
		case width == 0:
			fmt.Fprintf(w, "%s%s%s\n", head, colorBar(drawBar(s, mapWidth)), tail)
		case width-words >= minBar:
			fmt.Fprintf(w, "%s%s%s\n", head, colorBar(fitBar(s, width-words)), tail)
		default: // the words under the bar
			fmt.Fprintf(w, "%s%s|\n%s", head, colorBar(fitBar(s, max(width-len(head)-1, 1))), command.Wrap(tail[2:]+"\n", width, "  ", "  "))
		}
	}
}

// poolName is the pool a segment is of.
func poolName(small bool) string {
	if small {
		return "small"
	}
	return "large"
}

// drawBar is s's blocks as n characters, each at least one: more than
// n when there are more blocks than that.
func drawBar(s allocator.SegmentInfo, n int) string {
	var bar strings.Builder
	used := 0
	for i, b := range s.Blocks {
		k := int(b.Size * uint64(n) / s.TotalSize)
		if i == len(s.Blocks)-1 {
			k = n - used
		}
		k = max(k, 1)
		used += k
		bar.WriteString(strings.Repeat(blockChar(b), k))
	}
	return bar.String()
}

// fitBar is drawBar held to n characters: where the blocks need more,
// each character is the block at its middle address.
func fitBar(s allocator.SegmentInfo, n int) string {
	if bar := drawBar(s, n); len(bar) <= n {
		return bar
	}
	var bar strings.Builder
	var start uint64 // of block j
	j := 0
	for c := range n {
		mid := (2*uint64(c) + 1) * s.TotalSize / (2 * uint64(n))
		for j < len(s.Blocks)-1 && start+s.Blocks[j].Size <= mid {
			start += s.Blocks[j].Size
			j++
		}
		bar.WriteString(blockChar(s.Blocks[j]))
	}
	return bar.String()
}

// blockChar is how a bar draws b: '#' allocated, '.' cached.
func blockChar(b allocator.BlockInfo) string {
	if b.State == allocator.StateAllocated {
		return "#"
	}
	return "."
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
