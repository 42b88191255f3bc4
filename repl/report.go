package repl

import (
	"fmt"
	"io"
	"strings"

	"github.com/fatih/color"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/engine"
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

// delta is a change in PyTorch's size format, colored by direction; empty
// when nothing changed.
func delta(before, after uint64) string {
	switch {
	case after > before:
		return " " + colorUp.Sprint("+"+size(after-before))
	case after < before:
		return " " + colorDown.Sprint("-"+size(before-after))
	}
	return ""
}

// writeReport prints the compact step report: host RSS, then per device
// in use allocated, reserved and driver-used, each with its change, then
// what the command created or freed.
func writeReport(w io.Writer, prev, cur engine.Figures, events []string) {
	var b strings.Builder
	b.WriteString("    host ")
	if cur.HostKnown {
		b.WriteString(size(cur.HostRSS) + delta(prev.HostRSS, cur.HostRSS))
	} else {
		b.WriteString("n/a")
	}
	for i, d := range cur.Devices {
		p := engine.DeviceFigures{}
		if i < len(prev.Devices) {
			p = prev.Devices[i]
		}
		if !d.Inited && !p.Inited {
			continue
		}
		fmt.Fprintf(&b, " | %s allocated %s%s  reserved %s%s  driver ",
			colorName.Sprintf("cuda:%d", i),
			size(d.Allocated), delta(p.Allocated, d.Allocated),
			size(d.Reserved), delta(p.Reserved, d.Reserved))
		switch {
		case !d.DriverKnown:
			b.WriteString("n/a")
		default:
			b.WriteString(size(d.DriverUsed) + delta(p.DriverUsed, d.DriverUsed))
			if d.Outside != 0 {
				fmt.Fprintf(&b, " (%s outside the allocator)", signedSize(d.Outside))
			}
		}
	}
	b.WriteString("\n")
	if len(events) > 0 {
		b.WriteString("    " + strings.Join(events, "; ") + "\n")
	}
	io.WriteString(w, b.String())
}
