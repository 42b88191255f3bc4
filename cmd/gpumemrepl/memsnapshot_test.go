package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemorySnapshot: torch.cuda.memory_snapshot() lists the segments
// by address with PyTorch's keys in PyTorch's order, each with its
// blocks, and the list holds no memory of the device. The 12 MiB
// segment lies below the 2 MiB one: a's took the context's 2 MiB gap,
// and its zeros' kernel gave the old local memory below it back as a
// hole (allocator/device/sim).
func TestMemorySnapshot(t *testing.T) {
	t.Parallel()
	script := filepath.Join(t.TempDir(), "snap.py")
	src := "import torch\na = torch.zeros(1000, device='cuda')\nb = torch.zeros(3 << 20, device='cuda')\ndel a\n" +
		"snap = torch.cuda.memory_snapshot()\n" +
		"print(len(snap), [s['total_size'] for s in snap], sum(s['allocated_size'] for s in snap))\n" +
		"print(list(snap[0]), list(snap[0]['blocks'][0]))\n" +
		"print([(s['segment_type'], [(bl['size'], bl['state']) for bl in s['blocks']]) for s in snap])\n" +
		"print(len(torch.cuda.memory_snapshot(None)), torch.cuda.host_memory_stats())\ntorch.cuda.host_memory_stats(0)\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--device", "sim", "--no-color", script)
	if code != 1 || !strings.Contains(errOut, ":10:1: TypeError: host_memory_stats() takes no arguments (1 given)") {
		t.Errorf("host_memory_stats(0): exit %d, %q", code, errOut)
	}
	for _, want := range []string{
		"2 {'active_bytes.allocated': 0, ",
		"2 [12582912, 2097152] 12582912\n",
		"['device', 'address', 'total_size', 'allocated_size', 'active_size', 'requested_size', 'stream', 'segment_type', 'segment_pool_id', 'is_expandable', 'frames', 'blocks'] ['address', 'size', 'requested_size', 'state', 'frames']\n",
		"[('large', [(12582912, 'active_allocated')]), ('small', [(2097152, 'inactive')])]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("exit %d, want %q in\n%s%s", code, want, out, errOut)
		}
	}
}
