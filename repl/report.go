package repl

import (
	"fmt"
	"io"
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

// signedSize is n in PyTorch's size format with its sign.
func signedSize(n int64) string {
	if n < 0 {
		return "-" + size(uint64(-n))
	}
	return size(uint64(n))
}

// hostNoise is how far host RSS moves on a step that leaves no new host
// tensor: up to 420 KiB over 990 such steps of the scripts/ examples,
// run five times each (8 KiB at the median, 368 KiB at the 99th
// percentile; the largest are the first CUDA command and nn.Linear's
// short-lived host parameters): the Go runtime's and the allocator's own
// bookkeeping. A change below it is no tensor's
// doing and is shown without the growth and shrink colors.
const hostNoise = 1 << 20

// delta is a change in PyTorch's size format, colored by direction; empty
// when nothing changed.
func delta(before, after uint64) string {
	return deltaIn(before, after, colorUp.Sprint, colorDown.Sprint)
}

// hostDelta is delta for host RSS: a change under hostNoise is not
// colored.
func hostDelta(before, after uint64) string {
	if max(before, after)-min(before, after) < hostNoise {
		return deltaIn(before, after, fmt.Sprint, fmt.Sprint)
	}
	return delta(before, after)
}

// deltaIn is a change with its sign, a growth written by up and a
// shrink by down.
func deltaIn(before, after uint64, up, down func(...any) string) string {
	switch {
	case after > before:
		return " " + up("+"+size(after-before))
	case after < before:
		return " " + down("-"+size(before-after))
	}
	return ""
}

// writeReport prints the compact step report: host RSS, then per device
// in use allocated, reserved and driver-used, each with its change, then
// what the command created or freed, then what it estimated. Figures
// that rest on an estimate (this step's or an earlier one's) are marked
// with EstimatedMark before host. On a terminal (see widthOf) it fits
// the width: a figures line too wide puts each device on its own line,
// and long lines continue indented.
func writeReport(w io.Writer, prev, cur engine.Figures, n stepNews) {
	width := widthOf(w)
	host := "    host "
	if cur.Estimated {
		host = "  " + EstimatedMark + " host "
	}
	if cur.HostKnown {
		host += size(cur.HostRSS) + hostDelta(prev.HostRSS, cur.HostRSS)
	} else {
		host += "n/a"
	}
	if cur.Pinned > 0 || prev.Pinned > 0 { // the caching host allocator's blocks, part of host
		host += " (pinned " + size(cur.Pinned) + delta(prev.Pinned, cur.Pinned) + ")"
	}
	if cur.HostCounted > 0 || prev.HostCounted > 0 { // host tensors past the budget, not part of host
		host += " (" + size(cur.HostCounted) + delta(prev.HostCounted, cur.HostCounted) + " counted)"
	}
	var devs []string
	for i, d := range cur.Devices {
		p := engine.DeviceFigures{}
		if i < len(prev.Devices) {
			p = prev.Devices[i]
		}
		if d.Inited || p.Inited {
			devs = append(devs, deviceFigures(i, p, d))
		}
	}
	var b strings.Builder
	if line := host + strings.Join(append([]string{""}, devs...), " | "); width == 0 || command.Width(line) <= width {
		b.WriteString(line + "\n")
	} else {
		b.WriteString(command.Wrap(host+"\n", width, "", "      "))
		for _, d := range devs {
			under := strings.Repeat(" ", 4+command.Width(strings.Fields(d)[0])+1)
			b.WriteString(command.Wrap(d+"\n", width, "    ", under))
		}
	}
	if len(n.events) > 0 {
		b.WriteString(command.Wrap(strings.Join(n.events, "; ")+"\n", width, "    ", "      "))
	}
	if len(n.estimates) > 0 {
		b.WriteString(command.Wrap("estimated: "+strings.Join(n.estimates, "; ")+"\n", width, "    ", "      "))
	}
	io.WriteString(w, b.String())
}

// deviceFigures is cuda:i's part of the figures line: allocated,
// reserved and driver-used after the step, each with its change since p.
func deviceFigures(i int, p, d engine.DeviceFigures) string {
	s := fmt.Sprintf("%s allocated %s%s  reserved %s%s  driver ",
		colorName.Sprintf("cuda:%d", i),
		size(d.Allocated), delta(p.Allocated, d.Allocated),
		size(d.Reserved), delta(p.Reserved, d.Reserved))
	if !d.DriverKnown {
		return s + "n/a"
	}
	s += size(d.DriverUsed) + delta(p.DriverUsed, d.DriverUsed)
	if d.Outside != 0 {
		s += fmt.Sprintf(" (%s outside the allocator)", signedSize(d.Outside))
	}
	return s
}

// hostSummary says, at the end of a run whose host tensors went past
// the host budget, how much host memory the program needed.
func (r *Runner) hostSummary() {
	s := r.Session
	if peak, budget := s.HostPeak(), s.HostBudget(); peak > budget && !r.JSON {
		fmt.Fprintf(r.Out, "host: the program's host tensors peaked at %s (what PyTorch would take of this machine's memory); past the %s budget (--host-budget) they were counted, not allocated\n", size(peak), size(budget))
	}
}
