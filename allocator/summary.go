package allocator

import (
	"fmt"
	"strings"
)

// Summary renders torch.cuda.memory_summary(device) for these stats, byte
// for byte: a 77-column table of current, peak, allocated and freed figures.
func (s *Stats) Summary(device int, abbreviated bool) string {
	const rule, double = "---------------------------------------------------------------------------",
		"==========================================================================="
	var lines []string
	add := func(l string) { lines = append(lines, l) }
	add(double)
	add(fmt.Sprintf(" %16s PyTorch CUDA memory summary, device ID %-17d ", "", device))
	add(rule)
	add(fmt.Sprintf("  %9s CUDA OOMs: %-12d | %6s cudaMalloc retries: %-8d  ", "", s.NumOOMs, "", s.NumAllocRetries))
	add(double)
	add("        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  ")
	metrics := []struct {
		name  string
		a     *StatArray
		bytes bool
	}{
		{"Allocated memory", &s.AllocatedBytes, true},
		{"Active memory", &s.ActiveBytes, true},
		{"Requested memory", &s.RequestedBytes, true},
		{"GPU reserved memory", &s.ReservedBytes, true},
		{"Non-releasable memory", &s.InactiveSplitBytes, true},
		{"Allocations", &s.Allocation, false},
		{"Active allocs", &s.Active, false},
		{"GPU reserved segments", &s.Segment, false},
		{"Non-releasable allocs", &s.InactiveSplit, false},
	}
	for _, m := range metrics {
		add(rule)
		ref := m.a[bucketAll].fields()
		add(summaryRow(m.name, m.a[bucketAll].fields(), ref, m.bytes))
		if !abbreviated {
			add(summaryRow("      from large pool", m.a[bucketLarge].fields(), ref, m.bytes))
			add(summaryRow("      from small pool", m.a[bucketSmall].fields(), ref, m.bytes))
		}
	}
	for _, m := range []struct {
		name string
		st   *Stat
	}{{"Oversize allocations", &s.OversizeAllocs}, {"Oversize GPU segments", &s.OversizeSegments}} {
		add(rule)
		f := m.st.fields()
		add(summaryRow(m.name, f, f, false))
	}
	add(double)
	return "|" + strings.Join(lines, "|\n|") + "|\n"
}

// summaryRow formats one row; each column's unit is chosen by the "all"
// row's value in that column, as memory_summary does.
func summaryRow(name string, v, ref [4]int64, bytes bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, " %-21s ", name)
	for i := range v {
		if bytes {
			fmt.Fprintf(&b, "| %s ", summarySize(v[i], ref[i]))
		} else {
			fmt.Fprintf(&b, "| %s ", summaryCount(v[i], ref[i]))
		}
	}
	return b.String()
}

func summarySize(n, ref int64) string {
	v, unit := scaleUnits(n, ref, []string{"B  ", "KiB", "MiB", "GiB", "TiB", "PiB"}, 768*1024, 1024)
	return fmt.Sprintf("%6d %s", v, unit)
}

func summaryCount(n, ref int64) string {
	v, unit := scaleUnits(n, ref, []string{" ", "K", "M"}, 750*1000, 1000)
	return fmt.Sprintf("%7d %s ", v, unit)
}

// scaleUnits is memory_summary's unit choice: divide while the reference
// value (the "all" row's) is at least threshold.
func scaleUnits(n, ref int64, units []string, threshold, step float64) (int64, string) {
	p := float64(ref)
	u := 0
	for u < len(units)-1 && p >= threshold {
		n /= int64(step)
		p /= step
		u++
	}
	return n, units[u]
}
