package engine

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// probeEvents are the allocator events of each probe of scripts/
// probe_sort.py's output (testdata/pyrules/sort_probe.txt), by label:
// "a4096" an allocation, "F4096" a free.
func probeEvents(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("../testdata/pyrules/sort_probe.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	probes := map[string][]string{}
	label := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "    "); ok {
			probes[label] = strings.Fields(rest)
		} else if l, _, ok := strings.Cut(line, ": "); ok {
			label = l
		}
	}
	return probes
}

// TestNonzeroScratchTable: nonzero of n true values on the H200 makes
// the count, CUB's sum scratch, the output and CUB's select scratch as
// recorded for 14 sizes from 1 to 10^7 (sort_probe.txt).
func TestNonzeroScratchTable(t *testing.T) {
	probes := probeEvents(t)
	p := Presets["h200"]
	checked := 0
	for label, evs := range probes {
		var n uint64
		if rest, ok := strings.CutPrefix(label, "nonzero of "); ok && strings.HasSuffix(rest, " true") {
			v, err := strconv.ParseUint(strings.TrimSuffix(rest, " true"), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			n = v
		} else {
			continue
		}
		want := strings.Join(evs, " ")
		sum, sel := strconv.FormatUint(cubSumScratch(n, p.SMs, p.ThreadsPerSM), 10), strconv.FormatUint(cubSelectScratch(n), 10)
		got := strings.Join([]string{"a4", "a" + sum, "F" + sum, "a" + strconv.FormatUint(8*n, 10), "a" + sel, "F" + sel, "F4"}, " ")
		if got != want {
			t.Errorf("%s: %s, PyTorch's %s", label, got, want)
		}
		checked++
	}
	if checked != 14 {
		t.Errorf("%d probes of nonzero checked, want 14", checked)
	}
}
