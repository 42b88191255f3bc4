package explain

import (
	"fmt"
	"io"
	"strings"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

var size = func(n uint64) string { return allocator.FormatSize(n) }

// Write tells the diagnosis in plain language: what happened where, the
// cause with its figures, the largest holders, each candidate's replay,
// and the fix or the statement that no setting avoids the error.
func (d *Diagnosis) Write(w io.Writer) error {
	var b strings.Builder
	d.writeCause(&b)
	d.writeHolders(&b)
	d.writeCandidates(&b)
	d.writeVerdict(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (d *Diagnosis) writeCause(b *strings.Builder) {
	p := d.At
	if d.Cause == NoOOM {
		fmt.Fprintf(b, "No out-of-memory error: the history peaks at op %d with %s reserved, %s allocated.\n", p.Op, size(p.ReservedBytes), size(p.AllocatedBytes))
		if n := d.Recorded.PastRecordedOOM; n != nil {
			fmt.Fprintf(b, "Yet allocation %d raised one in the recording, which this replay does not: was the history recorded under a limit? A snapshot records none; give it with --limit-bytes.\n", *n)
		}
		return
	}
	fmt.Fprintf(b, "Out of memory at op %d (allocation %d): %s asked for on stream %d, with %s allocated and %s reserved; the process may hold %s (%s).\n",
		p.Op, p.Allocation, size(p.RequestedBytes), p.Stream, size(p.AllocatedBytes), size(p.ReservedBytes), size(p.CapacityBytes), capacityWhy(p))
	need := p.AllocatedBytes + p.RequestedBytes
	switch d.Cause {
	case LiveTensors:
		fmt.Fprintf(b, "Cause: the live tensors exceed what the device can give: %s allocated plus the %s asked for is %s, %s more than %s.\n",
			size(p.AllocatedBytes), size(p.RequestedBytes), size(need), size(d.DeficitBytes), size(p.CapacityBytes))
	case Fraction:
		fmt.Fprintf(b, "Cause: the per-process memory fraction: the live tensors and the request (%s) exceed the %s limit, but the device has %s free.\n",
			size(need), size(*p.LimitBytes), size(p.DeviceFreeBytes))
	case OtherStream:
		fmt.Fprintf(b, "Cause: memory cached on another stream: %s of the %s reserved but unallocated is cached for other streams, where this stream cannot use it.\n",
			size(p.OtherStreamFreeBytes), size(p.CachedFreeBytes))
	case Fragmentation:
		fmt.Fprintf(b, "Cause: fragmentation: %s is reserved but unallocated and %s more could be reserved, yet the largest free block this request could use is %s.\n",
			size(p.CachedFreeBytes), size(p.CapacityBytes-min(p.CapacityBytes, p.ReservedBytes)), size(p.LargestFreeBytes))
	}
	if len(d.Pinned) > 0 {
		fmt.Fprintf(b, "Segments that live blocks keep from the driver, with free memory in them:\n")
		for _, s := range d.Pinned {
			fmt.Fprintf(b, "  0x%x: %s, %s allocated in %s, %s free in %s (largest %s)\n",
				s.Address, size(s.TotalBytes), size(s.AllocBytes), blocks(s.LiveBlocks), size(s.FreeBytes), blocks(s.FreeBlocks), size(s.LargestFree))
		}
	}
}

// blocks is "1 block" or "N blocks".
func blocks(n int) string {
	if n == 1 {
		return "1 block"
	}
	return fmt.Sprintf("%d blocks", n)
}

// capacityWhy says what bounds what the process may hold.
func capacityWhy(p Point) string {
	if p.LimitBytes != nil {
		return "its per-process limit"
	}
	return fmt.Sprintf("what it reserves plus the %s the device has free", size(p.DeviceFreeBytes))
}

func (d *Diagnosis) writeHolders(b *strings.Builder) {
	if len(d.Holders) == 0 {
		return
	}
	fmt.Fprintf(b, "Largest holders of live memory there:\n")
	for _, h := range d.Holders {
		in := ""
		if h.Blocks > 1 {
			in = " in " + blocks(h.Blocks)
		}
		fmt.Fprintf(b, "  %10s%s  %s\n", size(h.Bytes), in, h.Label)
	}
	if len(d.Categories) == 0 {
		return
	}
	fmt.Fprintf(b, "By category there (told from the stacks):\n")
	for _, c := range d.Categories {
		fmt.Fprintf(b, "  %10s  %s\n", size(c.Bytes), c.Label)
	}
}

// tableWidth is the columns the candidates' table keeps within: a
// terminal's 80 less a margin.
const tableWidth = 78

// writeCandidates lists each candidate's replay in a table of at most
// tableWidth columns: a change longer than its column continues on the
// lines under it, indented.
func (d *Diagnosis) writeCandidates(b *strings.Builder) {
	rows := append([]Result{d.Recorded}, d.Candidates...)
	ooms := make([]string, len(rows))
	oomWidth, longest := len("first OOM"), len("change")
	for i, r := range rows {
		longest = max(longest, len(r.Change.String()))
		switch {
		case r.Error != "":
			ooms[i] = r.Error
			continue
		case r.FirstOOM != nil:
			ooms[i] = fmt.Sprintf("op %d, %s", r.FirstOOM.Op, size(r.FirstOOM.RequestedBytes))
		default:
			ooms[i] = "none"
		}
		oomWidth = max(oomWidth, len(ooms[i]))
	}
	width := min(longest, max(tableWidth-2-2-13-2-oomWidth, 24))
	fmt.Fprintf(b, "Replayed under each change (smallest first):\n")
	fmt.Fprintf(b, "  %-*s  %13s  %s\n", width, "change", "peak reserved", "first OOM")
	for i, r := range rows {
		lines := wrapWords(r.Change.String(), width)
		if r.Error != "" {
			fmt.Fprintf(b, "  %-*s  %s\n", width, lines[0], ooms[i])
		} else {
			fmt.Fprintf(b, "  %-*s  %13s  %s\n", width, lines[0], size(uint64(r.PeakReserved)), ooms[i])
		}
		for _, l := range lines[1:] {
			fmt.Fprintf(b, "    %s\n", l)
		}
	}
}

// wrapWords breaks s at spaces into lines of at most width bytes, the
// lines after the first at most width-2 (they are indented by two); a
// word longer than that stays whole on its own line.
func wrapWords(s string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		limit := width
		if len(lines) > 0 {
			limit = width - 2
		}
		if line != "" && len(line)+1+len(w) > limit {
			lines, line = append(lines, line), w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

func (d *Diagnosis) writeVerdict(b *strings.Builder) {
	if d.Cause == NoOOM {
		if l := d.Lowest; l != nil {
			fmt.Fprintf(b, "Lowest peak: %s reserves at most %s, %s less than as recorded.\n",
				fixWords(l), size(uint64(l.PeakReserved)), size(uint64(d.Recorded.PeakReserved-l.PeakReserved)))
		}
		return
	}
	if d.NoSettingAvoids {
		fmt.Fprintf(b, "No allocator setting avoids it")
		switch d.Cause {
		case LiveTensors:
			fmt.Fprintf(b, ": the live tensors exceed what the device can give by %s", size(d.DeficitBytes))
		case Fraction:
			fmt.Fprintf(b, ": the live tensors exceed the per-process limit by %s", size(d.DeficitBytes))
		}
		fmt.Fprintf(b, ".\n")
	}
	f := d.Fix
	if f == nil {
		if !d.NoSettingAvoids {
			return
		}
		fmt.Fprintf(b, "Free or shrink the largest holders above.\n")
		return
	}
	fmt.Fprintf(b, "Fix: %s avoids the out-of-memory error over the whole history (peak reserved %s)", fixWords(f), size(uint64(f.PeakReserved)))
	switch {
	case f.PastRecordedOOM != nil && d.AllocsAfter > 0:
		fmt.Fprintf(b, "; past allocation %d the history holds what the program did after its own error", *f.PastRecordedOOM)
	case d.AllocsAfter == 0:
		fmt.Fprintf(b, "; the history ends with the failing allocation, so what the program would do next is not replayed")
	}
	if g := f.Change.GPU; g != nil && g.Estimated != "" {
		fmt.Fprintf(b, "; estimated: %s", g.Estimated)
	}
	fmt.Fprintf(b, ".\n")
}

// fixWords says how to apply a change.
func fixWords(r *Result) string {
	var parts []string
	if r.Change.EmptyCacheBefore != nil {
		parts = append(parts, "torch.cuda."+r.Change.emptyCache())
	}
	if len(r.Change.Settings) > 0 {
		parts = append(parts, "PYTORCH_CUDA_ALLOC_CONF="+r.Conf)
	}
	if g := r.Change.GPU; g != nil {
		parts = append(parts, fmt.Sprintf("a %s (%s) with the same settings", g.Name, size(g.Total)))
	}
	return strings.Join(parts, " with ")
}
