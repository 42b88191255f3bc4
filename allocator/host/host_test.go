// Tests of the pinned host allocator. The oracle is PyTorch's recording
// of pinned allocations, frees, reuses, non-blocking copies and
// empty_cache (testdata/host/host.jsonl, by scripts/record_host.py):
// TestRecordedHostAllocator compares host_memory_stats() after every
// step.
package host

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"
)

// recordedStep is one row of scripts/record_host.py: an op and
// host_memory_stats() after it.
type recordedStep struct {
	Scenario string            `json:"scenario"`
	Op       []json.RawMessage `json:"op"`
	Error    string            `json:"error"`
	Ptr      *uint64           `json:"ptr"`
	Stats    map[string]int64  `json:"stats"`
}

// TestRecordedHostAllocator replays PyTorch's recording of pinned
// allocations, frees, reuses, non-blocking copies and empty_cache, and
// compares host_memory_stats() after every step.
func TestRecordedHostAllocator(t *testing.T) {
	f, err := os.Open("../../testdata/host/host.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a := New()
	names := map[string]*Block{}
	refs := map[*Block]int{}
	drop := func(name string) {
		b, ok := names[name]
		if !ok {
			return
		}
		delete(names, name)
		if refs[b]--; refs[b] == 0 {
			delete(refs, b)
			a.Free(b)
		}
	}
	bind := func(name string, b *Block) {
		if b != nil {
			refs[b]++
		}
		old, had := names[name]
		names[name] = b
		if had && old != nil {
			if refs[old]--; refs[old] == 0 {
				delete(refs, old)
				a.Free(old)
			}
		}
	}
	// blockAt is our block for each address PyTorch gave: a reused
	// address must be a reused block, a new one a new block.
	blockAt := map[uint64]*Block{}
	ours := map[*Block]uint64{}
	sc := bufio.NewScanner(f)
	n, cudaUsed := 0, false
	for sc.Scan() {
		var s recordedStep
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		if s.Error != "" {
			t.Fatalf("step %d (%s): PyTorch raised %s", n, s.Scenario, s.Error)
		}
		var kind, name, src string
		var bytes uint64
		json.Unmarshal(s.Op[0], &kind)
		if len(s.Op) > 1 {
			json.Unmarshal(s.Op[1], &name)
		}
		if len(s.Op) > 2 && json.Unmarshal(s.Op[2], &bytes) != nil {
			json.Unmarshal(s.Op[2], &src)
		}
		switch kind {
		case "pin", "empty":
			b, err := a.Alloc(bytes, func(uint64) error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if s.Ptr != nil && *s.Ptr != 0 {
				if want, seen := blockAt[*s.Ptr]; seen && want != b {
					t.Errorf("step %d (%s %s): PyTorch reused the block at %#x, we did not", n, s.Scenario, name, *s.Ptr)
				}
				if at, had := ours[b]; had && at != *s.Ptr {
					t.Errorf("step %d (%s %s): we reused a block, PyTorch gave a new address", n, s.Scenario, name)
				}
				blockAt[*s.Ptr], ours[b] = b, *s.Ptr
			}
			bind(name, b)
		case "repin": // pin_memory() of a pinned tensor is the tensor
			b := names[src]
			bind(name, b)
		case "to_cuda_async":
			a.RecordUse(names[src])
			cudaUsed = true
		case "free":
			drop(name)
		case "empty_cache":
			a.EmptyCache()
			// the driver may hand a freed address out again
			for addr, b := range blockAt {
				if refs[b] == 0 {
					delete(blockAt, addr)
					delete(ours, b)
				}
			}
		case "reset_peak":
			a.ResetPeak()
		case "synchronize":
			a.Synchronize()
		default:
			t.Fatalf("step %d: op %q", n, kind)
		}
		// PyTorch reports no host stats until CUDA is initialized.
		if !cudaUsed {
			if len(s.Stats) != 0 {
				t.Errorf("step %d: stats %v before CUDA was used", n, s.Stats)
			}
			n++
			continue
		}
		got := a.Stats().Values()
		if len(s.Stats) != len(got) {
			t.Errorf("step %d: %d stats, PyTorch %d", n, len(got), len(s.Stats))
		}
		for k, want := range s.Stats {
			if g, ok := got[k]; !ok || g != want {
				t.Errorf("step %d (%s %s %s): %s = %d, PyTorch %d", n, s.Scenario, kind, name, k, g, want)
			}
		}
		n++
	}
	if n < 50 {
		t.Errorf("only %d steps recorded", n)
	}
}
