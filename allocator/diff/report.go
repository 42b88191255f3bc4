package diff

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// Report is a diff: the two sides, A and B.
type Report struct {
	A Run `json:"a"`
	B Run `json:"b"`
}

// WriteText writes the report for a person: the two sides' figures and
// B's difference from A, then their allocations by size class,
// category and frame.
func (r Report) WriteText(w io.Writer) error {
	var b strings.Builder
	for _, side := range []struct {
		tag string
		run Run
	}{{"A", r.A}, {"B", r.B}} {
		fmt.Fprintf(&b, "%s  %s (%s): %d ops\n", side.tag, side.run.Name, side.run.Config, side.run.Ops)
		if side.run.Notes != "" {
			fmt.Fprintf(&b, "   %s\n", side.run.Notes)
		}
		if side.run.Estimated != "" {
			fmt.Fprintf(&b, "   %s\n", side.run.Estimated)
		}
	}
	b.WriteString("\n")
	rows := [][]string{{"", "A", "B", "B - A"}}
	for _, s := range []struct {
		name string
		a, b int64
	}{
		{"peak allocated", r.A.PeakAllocated, r.B.PeakAllocated},
		{"final allocated", r.A.FinalAllocated, r.B.FinalAllocated},
		{"peak reserved", r.A.PeakReserved, r.B.PeakReserved},
		{"final reserved", r.A.FinalReserved, r.B.FinalReserved},
	} {
		rows = append(rows, []string{s.name, size(s.a), size(s.b), signedSize(s.b - s.a)})
	}
	for _, c := range []struct {
		name string
		a, b int64
	}{
		{"segments at peak (memory_stats)", r.A.PeakSegments, r.B.PeakSegments},
		{"segments at the end (memory_stats)", r.A.FinalSegments, r.B.FinalSegments},
		{"segments at the end (memory_snapshot)", int64(r.A.SnapshotSegments), int64(r.B.SnapshotSegments)},
		{"device allocations", r.A.DeviceAllocs, r.B.DeviceAllocs},
		{"out-of-memory errors", int64(r.A.OOMs), int64(r.B.OOMs)},
	} {
		rows = append(rows, []string{c.name, strconv.FormatInt(c.a, 10), strconv.FormatInt(c.b, 10), signed(c.b-c.a, func(n int64) string { return strconv.FormatInt(n, 10) })})
	}
	rows = append(rows, []string{"fragmentation", fmt.Sprintf("%.1f%%", 100*r.A.Fragmentation), fmt.Sprintf("%.1f%%", 100*r.B.Fragmentation),
		fmt.Sprintf("%+.1f points", 100*(r.B.Fragmentation-r.A.Fragmentation))})
	writeTable(&b, rows, 0)
	groupTable(&b, "size class", r.A.SizeClasses, r.B.SizeClasses)
	groupTable(&b, "category", r.A.Categories, r.B.Categories)
	groupTable(&b, "frame", r.A.Frames, r.B.Frames)
	_, err := io.WriteString(w, b.String())
	return err
}

// groupTable writes the groups of both sides, A's order first, with
// the count and the bytes at the peak of each; nothing when neither has
// any.
func groupTable(b *strings.Builder, title string, a, bs []Group) {
	if len(a) == 0 && len(bs) == 0 {
		return
	}
	var names []string
	seen := map[string]bool{}
	of := [2]map[string]Group{{}, {}}
	for side, gs := range [][]Group{a, bs} {
		for _, g := range gs {
			if !seen[g.Name] {
				seen[g.Name] = true
				names = append(names, g.Name)
			}
			of[side][g.Name] = g
		}
	}
	fmt.Fprintf(b, "\nallocations by %s (bytes live at the peak of requested memory)\n", title)
	rows := [][]string{{"", "A", "A", "B", "B", "B - A"}, {"", "count", "at peak", "count", "at peak", "at peak"}}
	for _, n := range names {
		ga, gb := of[0][n], of[1][n]
		rows = append(rows, []string{n, strconv.Itoa(ga.Count), size(int64(ga.AtPeak)), strconv.Itoa(gb.Count), size(int64(gb.AtPeak)),
			signedSize(int64(gb.AtPeak) - int64(ga.AtPeak))})
	}
	writeTable(b, rows, nameWidth)
}

// nameWidth is the most a group's name takes of its row, so that the
// group tables fit 80 columns.
const nameWidth = 30

// writeTable writes rows in columns two spaces apart: the first column
// aligned left, the others right. A name longer than nameMax (when not
// 0: a script's line) has a line of its own over its row's figures, cut
// at 80 columns.
func writeTable(b *strings.Builder, rows [][]string, nameMax int) {
	var widths []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			if n := utf8.RuneCountInString(cell); i > 0 || nameMax == 0 || n <= nameMax {
				widths[i] = max(widths[i], n)
			}
		}
	}
	for _, row := range rows {
		name := row[0]
		if n := []rune(name); nameMax > 0 && len(n) > nameMax {
			if len(n) > 80 {
				name = string(n[:79]) + "…"
			}
			b.WriteString(name + "\n")
			name = ""
		}
		line := name + strings.Repeat(" ", widths[0]-utf8.RuneCountInString(name))
		for i, cell := range row[1:] {
			line += fmt.Sprintf("  %*s", widths[i+1], cell)
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
}

// size is n in PyTorch's format.
func size(n int64) string {
	return allocator.FormatSize(uint64(max(n, 0)))
}

// signedSize is a difference in PyTorch's format with its sign.
func signedSize(d int64) string { return signed(d, size) }

// signed is a difference written by format with its sign; 0 is "0".
func signed(d int64, format func(int64) string) string {
	switch {
	case d > 0:
		return "+" + format(d)
	case d < 0:
		return "-" + format(-d)
	}
	return "0"
}
