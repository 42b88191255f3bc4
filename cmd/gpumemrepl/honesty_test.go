package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// BenchmarkHonesty measures the two tiers over every recorded program
// (a report, not a speed: go test -run X -bench Honesty -benchtime 1x
// ./cmd/gpumemrepl). It runs each program through the binary as a user
// would (estimates allowed) and counts its statements that are exact and
// estimated; for the estimated ones, and for every statement of a second
// run that forces the general rule on every recorded op it covers
// (GPUMEMREPL_FORCE_GENERAL=all: the recorded rules set aside), and of
// a third over the programs that run a convolution with the conv table's
// recordings held out (each configuration estimated from the others:
// GPUMEMREPL_FORCE_GENERAL=conv1d,conv2d,conv3d), it compares allocated,
// reserved and their peaks with PyTorch's recording and reports the
// median and worst relative error of each. A statement labelled exact
// is compared too: each whose figures are not PyTorch's counts against
// the label (listed by program, from its first such line). The README
// quotes its figures.
func BenchmarkHonesty(b *testing.B) {
	progs := pythonRecordings(b)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range progs {
			if !yield(n) {
				return
			}
		}
	})
	for range b.N {
		for _, mode := range []struct {
			name string
			env  []string
			conv bool // only the programs that run a convolution
		}{{"as users run it", nil, false}, {"general rule forced on every op it covers", []string{forceGeneralEnv + "=all"}, false},
			{"conv table held out (each convolution estimated from the other recordings)", []string{forceGeneralEnv + "=conv1d,conv2d,conv3d"}, true}} {
			var t tally
			for _, name := range names {
				if src, _ := os.ReadFile(progs[name]); mode.conv && !strings.Contains(strings.ToLower(string(src)), "conv") {
					continue
				}
				want, _ := readRecording(b, recordingOf(name, progs[name]))
				cmd := exec.Command(binary, "run", "--json", "--fake-host", "--device", "sim", "--preset", recordedOn(progs[name]), "--keep-going", progs[name])
				cmd.Env = append(os.Environ(), mode.env...)
				out, _ := cmd.Output()
				t.add(name, want, string(out))
			}
			t.report(mode.name)
		}
	}
}

// tally is the statements of a run of every recorded program: how many
// were exact, estimated or failed, and each estimated one's relative
// errors (allocated, reserved, peak allocated, peak reserved).
type tally struct {
	exact, estimated, failed, raised, programs int
	errs                                       [4][]float64
	worst                                      [4]string
	// exactWrong counts the statements labelled exact whose figures are
	// not PyTorch's; wrongFrom is each such program's first line of them.
	exactWrong int
	wrongFrom  []string
}

func (t *tally) add(name string, want []recordedStep, out string) {
	got := map[int]struct {
		pythonStep
		Exact *bool `json:"exact"`
	}{}
	for _, l := range strings.Split(out, "\n") {
		var s struct {
			pythonStep
			Exact *bool `json:"exact"`
		}
		if json.Unmarshal([]byte(l), &s) == nil && s.Line > 0 {
			got[s.Line] = s
		}
	}
	t.programs++
	wrong := 0
	for _, w := range want {
		g, ok := got[w.Line]
		switch {
		case w.Error != nil || len(w.Devices) == 0:
			t.raised++ // PyTorch's own error, or no device figures
			continue
		case !ok || g.Error != nil:
			t.failed++
			continue
		}
		d := w.Devices[0]
		figures := [4][2]int64{{g.Allocated, d.Allocated}, {g.Reserved, d.Reserved}, {g.MaxAlloc, d.MaxAllocated}, {g.MaxReserv, d.MaxReserved}}
		if g.Exact == nil {
			t.exact++
			if slices.ContainsFunc(figures[:], func(p [2]int64) bool { return p[0] != p[1] }) {
				if wrong++; wrong == 1 {
					t.wrongFrom = append(t.wrongFrom, fmt.Sprintf("%s from line %d", name, w.Line))
				}
			}
			continue
		}
		t.estimated++
		for i, pair := range figures {
			e := math.Abs(float64(pair[0]-pair[1])) / math.Max(float64(pair[1]), 1)
			if len(t.errs[i]) == 0 || e > slices.Max(t.errs[i]) {
				t.worst[i] = fmt.Sprintf("%s:%d (%d, PyTorch %d)", name, w.Line, pair[0], pair[1])
			}
			t.errs[i] = append(t.errs[i], e)
		}
	}
	t.exactWrong += wrong
}

func (t *tally) report(mode string) {
	fmt.Printf("%s: %d programs, %d statements exact, %d estimated, %d failed or refused (and %d that raised in PyTorch too, or have no device figures)\n", mode, t.programs, t.exact, t.estimated, t.failed, t.raised)
	fmt.Printf("  %d statements labelled exact differ from PyTorch's (allocated, reserved or a peak)", t.exactWrong)
	if len(t.wrongFrom) > 0 {
		fmt.Printf(", in %d programs: %s", len(t.wrongFrom), strings.Join(t.wrongFrom, "; "))
	}
	fmt.Println()
	for i, what := range []string{"allocated", "reserved", "peak allocated", "peak reserved"} {
		if len(t.errs[i]) == 0 {
			continue
		}
		e := slices.Sorted(slices.Values(t.errs[i]))
		within := 0
		for _, x := range e {
			if x <= 0.02 {
				within++
			}
		}
		fmt.Printf("  %-15s error median %.2f%%, worst %.1f%% at %s; %d of %d within 2%%\n", what, 100*e[len(e)/2], 100*e[len(e)-1], t.worst[i], within, len(e))
	}
}
