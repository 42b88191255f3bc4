// Tests of the runners and the step report. The figures they print come
// from the engine, whose oracle is PyTorch on the H200 (testdata/pyrules,
// checked statement by statement through the binary by cmd/gpumemrepl's
// TestPythonAsPasted); here, the report's layout and the runners' steps
// as the manual describes them.
package repl

import (
	"strings"
	"testing"

	"github.com/fatih/color"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// Host RSS changes under hostNoise print without color; larger ones, and
// every device change, in the growth or shrink color.
func TestHostNoiseIsNeutral(t *testing.T) {
	was := color.NoColor
	color.NoColor = false
	t.Cleanup(func() { color.NoColor = was })
	const mib = 1 << 20
	for _, tc := range []struct {
		name       string
		from, to   uint64
		want       string
		wantColors bool
	}{
		{"8 KiB up", 100 * mib, 100*mib + 8192, " +8.00 KiB", false},
		{"420 KiB down", 100 * mib, 100*mib - 420*1024, " -420.00 KiB", false},
		{"just under the threshold", 100 * mib, 101*mib - 1, " +1024.00 KiB", false},
		{"1 MiB up", 100 * mib, 101 * mib, "+1024.00 KiB", true},
		{"1 GiB down", 1124 * mib, 100 * mib, "-1024.00 MiB", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			writeReport(&b, engine.Figures{HostRSS: tc.from, HostKnown: true}, engine.Figures{HostRSS: tc.to, HostKnown: true}, stepNews{})
			out := b.String()
			if !strings.Contains(out, tc.want) || strings.Contains(out, "\x1b[") != tc.wantColors {
				t.Errorf("report %q: want %q, colored %v", out, tc.want, tc.wantColors)
			}
		})
	}
	var b strings.Builder
	dev := func(alloc uint64) engine.Figures {
		return engine.Figures{HostKnown: true, Devices: []engine.DeviceFigures{{Inited: true, Allocated: alloc}}}
	}
	writeReport(&b, dev(0), dev(4096), stepNews{})
	if !strings.Contains(b.String(), colorUp.Sprint("+4.00 KiB")) {
		t.Errorf("a 4 KiB device change is not in the growth color: %q", b.String())
	}
}
