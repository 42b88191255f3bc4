package snapshot

import (
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator"
)

// A history's segment releases are the program's, the allocator's or
// open, by where they stand; only the program's become empty_cache ops.
func TestReleaseAttribution(t *testing.T) {
	const mib = allocator.MiB
	seg := func(addr, size uint64) []Event {
		return []Event{{Action: "segment_alloc", Addr: addr, Size: size}, {Action: "alloc", Addr: addr, Size: size}}
	}
	free := func(addr uint64) Event { return Event{Action: "free_completed", Addr: addr} }
	release := func(addr, size uint64) Event { return Event{Action: "segment_free", Addr: addr, Size: size} }
	cat := func(parts ...[]Event) []Event {
		var out []Event
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	// x stays live; y and z (small, 2 MiB, or large) are whole free
	// segments in the cache
	start := func(z uint64) []Event {
		return cat(seg(0x10000000, 40*mib), seg(0x20000000, 20*mib), seg(0x30000000, z), []Event{free(0x20000000), free(0x30000000)})
	}
	both := []Event{release(0x20000000, 20*mib), release(0x30000000, 2*mib)}
	bothLarge := []Event{release(0x20000000, 20*mib), release(0x30000000, 20*mib)}
	newSeg := seg(0x40000000, 20*mib)
	later := seg(0x50000000, 150*mib) // the history's peak comes after
	for _, c := range []struct {
		name   string
		conf   string
		largeZ bool
		events []Event
		want   Releases
	}{
		{"followed by a free: empty_cache", "", false, cat(both, []Event{free(0x10000000)}), Releases{User: 1}},
		{"at the end: empty_cache", "", false, both, Releases{User: 1}},
		{"a whole free segment left: the allocator's", "", false, cat(both[:1], newSeg), Releases{Own: 1}},
		{"before an oom: open", "", false, cat(both, []Event{{Action: "oom", Size: 30 * mib}}), Releases{Unattributed: 1}},
		{"the new segment exceeds the peak: open", "", false, cat(both, newSeg), Releases{Unattributed: 1}},
		{"within the peak: empty_cache", "", false, cat(both, newSeg, later), Releases{User: 1}},
		{"within the peak, garbage collection could: open", "garbage_collection_threshold:0.5", true, cat(bothLarge, newSeg, later), Releases{Unattributed: 1}},
		{"within the peak, a small segment: empty_cache", "garbage_collection_threshold:0.5", false, cat(both, newSeg, later), Releases{User: 1}},
	} {
		z := uint64(2 * mib)
		if c.largeZ {
			z = 20 * mib
		}
		s := &Snapshot{AllocConf: c.conf, Events: cat(start(z), c.events)}
		r, err := s.Prepare(c.name)
		if err != nil {
			t.Fatal(err)
		}
		emptyCaches := 0
		for _, op := range r.Trace.Ops {
			if op.Op == "empty_cache" {
				emptyCaches++
			}
		}
		if r.Releases != c.want || emptyCaches != c.want.User {
			t.Errorf("%s: %+v and %d empty_cache ops, want %+v", c.name, r.Releases, emptyCaches, c.want)
		}
	}
}
