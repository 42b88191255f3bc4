package torchpy_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/engine"
)

// TestFreesPairAsRecorded runs the programs recorded with each event's
// address (testdata/segments: rule scripts on the H200, h100/ rule
// scripts and zoo programs on the H100) on their card with the driver's
// addresses modelled, and holds which block each free gives back to
// PyTorch's: every block is named by the allocation that made it (its
// count from the start), so that a free of the wrong one of two equal
// blocks shows though sizes agree (a backward that makes two gradients
// of one size and frees the other: MulBackward0's, or
// cross_entropy's label smoothing term). The events are compared in
// order up to the first allocation that differs (where the segments
// part, which the addresses decide); a run of frees may come in any
// order (PyTorch's autocast cache frees its casts in its hash map's).
func TestFreesPairAsRecorded(t *testing.T) {
	for _, c := range []struct{ dir, preset string }{{"segments", "h200"}, {"segments/h100", "h100"}} {
		recs, err := filepath.Glob(filepath.Join("..", "testdata", c.dir, "*.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, rec := range recs {
			name := strings.TrimSuffix(filepath.Base(rec), ".jsonl")
			script := ""
			for _, dir := range []string{"pyrules", "models/zoo"} {
				if p := filepath.Join("..", "testdata", dir, name+".py"); fileExists(p) {
					script = p
				}
			}
			if script == "" {
				continue // a probe's recording
			}
			t.Run(c.preset+"/"+name, func(t *testing.T) {
				s, err := engine.NewSession(engine.Options{Preset: engine.Presets[c.preset], Backend: "sim", FakeHost: true, Devices: 1, DriverAddresses: true})
				if err != nil {
					t.Fatal(err)
				}
				runScriptIn(t, s, script)
				var got []pairedEvent
				for _, e := range s.History(0) {
					got = append(got, pairedEvent{e.Action, e.Size, e.Addr})
				}
				if at, why := firstFreeMismatch(pairEvents(got), pairEvents(readAddressed(t, rec))); why != "" {
					t.Errorf("event %d: %s", at, why)
				}
			})
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// pairedEvent is an allocation, a free or a segment's allocation, its
// block the address as recorded, or once paired (pairEvents) the
// allocation's count from the start.
type pairedEvent struct {
	action string
	size   uint64
	block  uint64
}

// readAddressed reads a recording's events with their addresses.
func readAddressed(t *testing.T, path string) []pairedEvent {
	t.Helper()
	var out []pairedEvent
	eachRow(t, path, func(b []byte) {
		var row struct {
			Events [][]json.RawMessage `json:"events"`
		}
		if err := json.Unmarshal(b, &row); err != nil {
			t.Fatal(err)
		}
		for _, e := range row.Events {
			var ev pairedEvent
			if len(e) != 3 || json.Unmarshal(e[0], &ev.action) != nil || json.Unmarshal(e[1], &ev.size) != nil || json.Unmarshal(e[2], &ev.block) != nil {
				t.Fatalf("%s: an event that is not [action, size, address]", path)
			}
			out = append(out, ev)
		}
	})
	return out
}

// pairEvents keeps the allocations, frees and segment allocations of
// evs, each block named by the allocation that made it instead of its
// address.
func pairEvents(evs []pairedEvent) []pairedEvent {
	live := map[uint64]uint64{}
	var out []pairedEvent
	var made uint64
	for _, e := range evs {
		switch e.action {
		case "alloc":
			made++
			live[e.block] = made
			e.block = made
		case "free_completed":
			e.block = live[e.block]
		case "segment_alloc":
			e.block = 0
		default:
			continue
		}
		out = append(out, e)
	}
	return out
}

// firstFreeMismatch is where got's frees first give back other blocks
// than want's, and how, before the first other difference ("" where
// none).
func firstFreeMismatch(got, want []pairedEvent) (int, string) {
	for i := 0; i < min(len(got), len(want)); {
		if got[i].action != "free_completed" || want[i].action != "free_completed" {
			if got[i] != want[i] {
				return i, "" // the allocations part: the segments' business
			}
			i++
			continue
		}
		j := i
		g, w := map[pairedEvent]int{}, map[pairedEvent]int{}
		for ; j < min(len(got), len(want)) && got[j].action == "free_completed" && want[j].action == "free_completed"; j++ {
			g[got[j]]++
			w[want[j]]++
		}
		if !maps.Equal(g, w) {
			return i, "the frees give back other blocks than PyTorch's (or other many)"
		}
		i = j
	}
	return 0, ""
}
