package repl

import (
	"bytes"
	"strings"
	"testing"

	"github.com/fatih/color"

	"github.com/gpumemrepl/gpumemrepl/allocator"
	"github.com/gpumemrepl/gpumemrepl/engine"
	"github.com/gpumemrepl/gpumemrepl/repl/command"
)

// sized is output of a given width, as the prompt's screen is.
type sized struct {
	bytes.Buffer
	width int
}

func (s *sized) Width() int { return s.width }

// checkFits fails unless every line of out is at most width columns and
// out has the words of whole, in order (a word cut at a line's end
// aside).
func checkFits(t *testing.T, out, whole string, width int) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if command.Width(l) > width {
			t.Errorf("width %d: a line of %d columns: %q", width, command.Width(l), l)
		}
	}
	if got, want := strings.Join(strings.Fields(out), ""), strings.Join(strings.Fields(whole), ""); got != want {
		t.Errorf("width %d: words lost or changed:\n got %q\nwant %q", width, out, whole)
	}
}

// A step report of two devices, several events and an estimate fits 80
// and 40 columns, each device on its own line, and is one line of
// figures, one of events and one of estimates where the output has no
// width.
func TestReportFitsWidth(t *testing.T) {
	was := color.NoColor
	color.NoColor = false
	t.Cleanup(func() { color.NoColor = was })
	const gib = 1 << 30
	dev := func(alloc, res uint64) engine.DeviceFigures {
		return engine.DeviceFigures{Inited: true, Allocated: alloc, Reserved: res, DriverKnown: true, DriverUsed: res + 610<<20, Outside: 12 << 20}
	}
	prev := engine.Figures{HostKnown: true, HostRSS: gib, Devices: []engine.DeviceFigures{dev(gib, 2*gib), dev(0, 0)}}
	cur := engine.Figures{HostKnown: true, HostRSS: 2 * gib, Devices: []engine.DeviceFigures{dev(2*gib, 3*gib), dev(gib, gib)}}
	events := stepNews{events: []string{"b: 1024.00 MiB float32 [256, 1024, 1024] on cuda:1", "freed old b (1024.00 MiB on cuda:0)", "the cuBLAS workspace (32.00 MiB on cuda:1)"},
		estimates: []string{"F.conv2d [12, 3, 97, 97] float32 x [64, 3, 7, 7] float32: cuDNN's workspace of an unrecorded configuration"}}
	cur.Estimated = true
	var whole bytes.Buffer
	writeReport(&whole, prev, cur, events)
	if n := strings.Count(whole.String(), "\n"); n != 3 || !strings.HasPrefix(whole.String(), "  ≈ host") {
		t.Fatalf("piped report is %d lines, want 3, the first marked estimated:\n%s", n, whole.String())
	}
	for _, width := range []int{80, 40} {
		out := &sized{width: width}
		writeReport(out, prev, cur, events)
		checkFits(t, out.String(), strings.ReplaceAll(whole.String(), " | ", " "), width)
		for _, d := range []string{"cuda:0", "cuda:1"} {
			if !strings.Contains(out.String(), "\n    "+colorName.Sprint(d)+" allocated") {
				t.Errorf("width %d: %s does not start a line:\n%s", width, d, out.String())
			}
		}
	}
}

// segment is a segment of total bytes whose blocks alternate allocated
// and cached, of the given sizes.
func segment(sizes ...uint64) allocator.SegmentInfo {
	s := allocator.SegmentInfo{}
	for i, n := range sizes {
		st := allocator.StateAllocated
		if i%2 == 1 {
			st = allocator.StateInactive
		}
		s.Blocks = append(s.Blocks, allocator.BlockInfo{Size: n, State: st})
		s.TotalSize += n
		if st == allocator.StateAllocated {
			s.AllocatedSize += n
		}
	}
	return s
}

// Map bars, of one width, fill the terminal's and never pass it, even with more
// blocks than characters; piped, a bar is mapWidth characters.
func TestMapFitsWidth(t *testing.T) {
	many := make([]uint64, 300)
	for i := range many {
		many[i] = 512
	}
	segs := []allocator.SegmentInfo{segment(2<<20, 18<<20), segment(many...)}
	exp := []allocator.ExpandableInfo{{Mapped: 20 << 20, Reserved: 80 << 30}}
	var whole bytes.Buffer
	writeMap(&whole, segs[:1], exp)
	if bar := strings.Split(whole.String(), "|")[1]; len(bar) != mapWidth {
		t.Errorf("piped bar is %d characters, want %d: %q", len(bar), mapWidth, whole.String())
	}
	for _, width := range []int{200, 80, 40} {
		out := &sized{width: width}
		writeMap(out, segs, exp)
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		for _, l := range lines {
			if len(l) > width {
				t.Errorf("width %d: a line of %d: %q", width, len(l), l)
			}
		}
		if width >= 80 {
			bars := []int{}
			longest := 0
			for _, l := range lines[:len(segs)] {
				bars = append(bars, len(strings.Split(l, "|")[1]))
				longest = max(longest, len(l))
			}
			if longest != width || bars[0] != bars[1] {
				t.Errorf("width %d: the bars (%v) are not of one width filling the longest line:\n%s", width, bars, out.String())
			}
		}
		if !strings.Contains(out.String(), "in 150 block(s)") || !strings.Contains(out.String(), "#.") {
			t.Errorf("width %d: the many-block segment lost its words or blocks:\n%s", width, out.String())
		}
	}
}

// A script's steps fit the width of its output too: the report and the
// map of a .gpumem script and of a .py file shown on a 40-column
// terminal.
func TestScriptsFitTheWidth(t *testing.T) {
	for _, py := range []bool{false, true} {
		s, err := engine.NewSession(engine.Options{Preset: engine.Presets["h200"], FakeHost: true})
		if err != nil {
			t.Fatal(err)
		}
		out := &sized{width: 40}
		r := &Runner{Session: s, Out: out, Err: &bytes.Buffer{}, File: "w"}
		src := "a = zeros 1024x1024 cuda\nb = zeros 3x1024x1024 cuda\nmap\nhelp zeros\n"
		if py {
			r.PyScript([]byte(src))
		} else {
			r.GpumemScript(strings.NewReader(src))
		}
		if !strings.Contains(out.String(), "#") || !strings.Contains(out.String(), "NAME = zeros SHAPE") {
			t.Fatalf("no map or help in\n%s", out.String())
		}
		for _, l := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if strings.HasPrefix(l, "  ") && strings.Contains(l, ">") && strings.Contains(l, "zeros") {
				continue // the echo of a line is the line
			}
			if command.Width(l) > 40 {
				t.Errorf("py %v: a line of %d columns: %q", py, command.Width(l), l)
			}
		}
	}
}

// An error and a table fit too: fitLines breaks each long line, its
// continuations indented, and leaves text alone where there is no width.
func TestFitLines(t *testing.T) {
	msg := "w:3:5: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 800.00 MiB. GPU 0 has a total capacity of 139.80 GiB of which 138.03 GiB is free.\nnext line\n"
	if got := fitLines(msg, &bytes.Buffer{}); got != msg {
		t.Errorf("no width: %q", got)
	}
	out := fitLines(msg, &sized{width: 40})
	checkFits(t, out, msg, 40)
	if !strings.HasSuffix(out, "\nnext line\n") || !strings.Contains(out, "\n    ") {
		t.Errorf("width 40:\n%s", out)
	}
}
