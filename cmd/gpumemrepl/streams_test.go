package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStreamsSnapshot: the step that frees a record_stream block says it
// waits; a script's memory_snapshot and _dump_snapshot
// carry each segment's stream and a record_stream block freed and still
// waiting shows as active_pending_free (active, not allocated); replay
// --check of that snapshot leaves the block waiting, as the history
// does (free_requested without free_completed), and matches. (The
// side stream's segment lies below x's: x's took the context's 2 MiB
// gap, and the new local memory's top gap takes the next 2 MiB.)
func TestStreamsSnapshot(t *testing.T) {
	dir := t.TempDir()
	pickle := filepath.Join(dir, "s.pickle")
	script := filepath.Join(dir, "s.py")
	src := `import torch
s = torch.cuda.Stream()
x = torch.ones(1024, device='cuda')
with torch.cuda.stream(s):
    y = x * 2
x.record_stream(s)
del x
for seg in torch.cuda.memory_snapshot():
    print(seg['stream'] == s.cuda_stream, seg['allocated_size'], seg['active_size'], [b['state'] for b in seg['blocks']])
torch.cuda.memory._dump_snapshot(` + "'" + pickle + "'" + `)
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "run", "--device", "sim", "--no-color", script)
	want := "True 4096 4096 ['active_allocated', 'inactive']\nFalse 0 4096 ['active_pending_free', 'inactive']\n"
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("exit %d, want %q in:\n%s%s", code, want, out, errOut)
	}
	// The step of the free says the block waits, and why its reuse is
	// the GPU's timing.
	if note := "the 4.00 KiB block of cuda:0 just freed waits for the streams record_stream named"; !strings.Contains(out, note) {
		t.Errorf("no %q in:\n%s", note, out)
	}
	out, errOut, code = run(t, "replay", "--check", pickle)
	if code != 0 || !strings.HasPrefix(out, "ok ") {
		t.Errorf("replay --check: exit %d\n%s%s", code, out, errOut)
	}
}
