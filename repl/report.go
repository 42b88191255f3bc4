package repl

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/fatih/color"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/command"
)

var (
	colorUp   = color.New(color.FgRed)
	colorDown = color.New(color.FgGreen)
	colorName = color.New(color.Bold)
	colorErr  = color.New(color.FgRed, color.Bold)
)

// size is PyTorch's size format (format_size).
func size(n uint64) string { return allocator.FormatSize(n) }

// hostNoise is how far host RSS moves on a step that leaves no new host
// tensor: up to 420 KiB over 990 such steps of the scripts/ examples,
// run five times each (8 KiB at the median, 368 KiB at the 99th
// percentile; the largest are the first CUDA command and nn.Linear's
// short-lived host parameters): the Go runtime's and the allocator's own
// bookkeeping. A change below it is no tensor's
// doing and is shown without the growth and shrink colors.
const hostNoise = 1 << 20

// appendDelta appends a change in PyTorch's size format with its sign,
// colored by direction (a growth colorUp, a shrink colorDown) unless
// plain; nothing when nothing changed.
func appendDelta(b []byte, before, after uint64, plain bool) []byte {
	c, sign, n := colorUp, byte('+'), after-before
	switch {
	case after < before:
		c, sign, n = colorDown, '-', before-after
	case after == before:
		return b
	}
	b = append(b, ' ')
	if plain || color.NoColor {
		return allocator.AppendSize(append(b, sign), n)
	}
	return append(b, c.Sprint(string(sign)+size(n))...)
}

// appendHostDelta is appendDelta for host RSS: a change under hostNoise
// is not colored.
func appendHostDelta(b []byte, before, after uint64) []byte {
	return appendDelta(b, before, after, max(before, after)-min(before, after) < hostNoise)
}

// appendPainted appends s in c's color.
func appendPainted(b []byte, c *color.Color, s string) []byte {
	if color.NoColor {
		return append(b, s...)
	}
	return append(b, c.Sprint(s)...)
}

// writeReport prints the compact step report: host RSS, then per device
// in use allocated, reserved and driver-used, each with its change, then
// what the command created or freed, then what it estimated. Figures
// that rest on an estimate (this step's or an earlier one's) are marked
// with EstimatedMark before host. On a terminal (see widthOf) it fits
// the width: a figures line too wide puts each device on its own line,
// and long lines continue indented. The report is one write; it is made
// by appending, as a million-line script makes a million of them.
func writeReport(w io.Writer, prev, cur engine.Figures, n stepNews) {
	width := widthOf(w)
	b := make([]byte, 0, 256)
	if cur.Estimated {
		b = append(b, "  "+EstimatedMark+" host "...)
	} else {
		b = append(b, "    host "...)
	}
	if cur.HostKnown {
		b = appendHostDelta(allocator.AppendSize(b, cur.HostRSS), prev.HostRSS, cur.HostRSS)
	} else {
		b = append(b, "n/a"...)
	}
	if cur.Pinned > 0 || prev.Pinned > 0 { // the caching host allocator's blocks, part of host
		b = appendDelta(allocator.AppendSize(append(b, " (pinned "...), cur.Pinned), prev.Pinned, cur.Pinned, false)
		b = append(b, ')')
	}
	if cur.HostCounted > 0 || prev.HostCounted > 0 { // host tensors past the budget, not part of host
		b = appendDelta(allocator.AppendSize(append(b, " ("...), cur.HostCounted), prev.HostCounted, cur.HostCounted, false)
		b = append(b, " counted)"...)
	}
	host := len(b)
	var devs []int // where each device's part starts (after " | ")
	for i, d := range cur.Devices {
		p := engine.DeviceFigures{}
		if i < len(prev.Devices) {
			p = prev.Devices[i]
		}
		if d.Inited || p.Inited {
			b = append(b, " | "...)
			devs = append(devs, len(b))
			b = appendDeviceFigures(b, i, p, d)
		}
	}
	if width == 0 || command.Width(string(b)) <= width {
		b = append(b, '\n')
	} else {
		var lines strings.Builder
		lines.WriteString(command.Wrap(string(b[:host])+"\n", width, "", "      "))
		for k, at := range devs {
			end := len(b)
			if k+1 < len(devs) {
				end = devs[k+1] - len(" | ")
			}
			d := string(b[at:end])
			under := strings.Repeat(" ", 4+command.Width(strings.Fields(d)[0])+1)
			lines.WriteString(command.Wrap(d+"\n", width, "    ", under))
		}
		b = append(b[:0], lines.String()...)
	}
	if len(n.events) > 0 {
		b = append(b, command.Wrap(strings.Join(n.events, "; ")+"\n", width, "    ", "      ")...)
	}
	if len(n.estimates) > 0 {
		b = append(b, command.Wrap("estimated: "+strings.Join(n.estimates, "; ")+"\n", width, "    ", "      ")...)
	}
	w.Write(b) //nolint:errcheck // as every report line's write
}

// appendDeviceFigures appends cuda:i's part of the figures line:
// allocated, reserved and driver-used after the step, each with its
// change since p.
func appendDeviceFigures(b []byte, i int, p, d engine.DeviceFigures) []byte {
	b = appendPainted(b, colorName, "cuda:"+strconv.Itoa(i))
	b = appendDelta(allocator.AppendSize(append(b, " allocated "...), d.Allocated), p.Allocated, d.Allocated, false)
	b = appendDelta(allocator.AppendSize(append(b, "  reserved "...), d.Reserved), p.Reserved, d.Reserved, false)
	b = append(b, "  driver "...)
	if !d.DriverKnown {
		return append(b, "n/a"...)
	}
	b = appendDelta(allocator.AppendSize(b, d.DriverUsed), p.DriverUsed, d.DriverUsed, false)
	if d.Outside != 0 {
		b = append(b, " ("...)
		if d.Outside < 0 {
			b = allocator.AppendSize(append(b, '-'), uint64(-d.Outside))
		} else {
			b = allocator.AppendSize(b, uint64(d.Outside))
		}
		b = append(b, " outside the allocator)"...)
	}
	return b
}

// hostSummary says, at the end of a run whose host tensors went past
// the host budget, how much host memory the program needed; and, where
// the simulated machine's memory refused one (PyTorch's
// DefaultCPUAllocator error), by how much, and how to simulate more.
func (r *Runner) hostSummary() {
	if r.JSON {
		return
	}
	s := r.Session
	if peak, budget := s.HostPeak(), s.HostBudget(); peak > budget {
		fmt.Fprintf(r.Out, "host: the program's host tensors peaked at %s (what PyTorch would take of the machine's memory); past the %s budget (--host-budget) they were counted, not allocated\n", size(peak), size(budget))
	}
	if asked, live, total, ok := s.HostRefused(); ok {
		more := uint64(1)
		for more < 2*(total>>30+1) {
			more *= 2
		}
		fmt.Fprintf(r.Out, "host: %s more host memory, with %s of host tensors live, was past the simulated machine's %s (--host-total, by default this machine's memory); a larger one, --host-total %dG say, simulates a machine with more\n",
			size(asked), size(live), size(total), more)
	}
}
