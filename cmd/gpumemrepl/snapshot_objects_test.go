package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpumemrepl/gpumemrepl/allocator/snapshot"
)

// TestSnapshotObjectsAreTheDump: torch.cuda.memory._snapshot() in a
// script is what _dump_snapshot pickles (PyTorch's _dump_snapshot is
// pickle.dump(_snapshot())): its segments and their blocks' states, and
// every event's action, size and frames, as the dumped file reads back.
func TestSnapshotObjectsAreTheDump(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "dump.pickle")
	script := filepath.Join(dir, "snap.py")
	src := `import torch
def make():
    return torch.zeros(1024, 1024, device='cuda')
x = make()
y = torch.ones(10, device='cuda')
del y
s = torch.cuda.memory._snapshot()
torch.cuda.memory._dump_snapshot(` + fmt.Sprintf("%q", dump) + `)
print(len(s['segments']), [b['state'] for seg in s['segments'] for b in seg['blocks']])
for e in s['device_traces'][0]:
    print(e['action'], e['size'], [f['name'] + ':' + str(f['line']) for f in e['frames']])
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(binary, "run", "--fake-host", "--device", "sim", script).Output()
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	snap, err := snapshot.Load(dump)
	if err != nil {
		t.Fatal(err)
	}
	var states []string
	for _, seg := range snap.Segments {
		for _, b := range seg.Blocks {
			states = append(states, "'"+b.State+"'")
		}
	}
	want := []string{fmt.Sprintf("%d [%s]", len(snap.Segments), strings.Join(states, ", "))}
	for _, e := range snap.Events {
		var frames []string
		for _, f := range e.Frames.Frames() {
			frames = append(frames, fmt.Sprintf("'%s:%d'", f.Name, f.Line))
		}
		want = append(want, fmt.Sprintf("%s %d [%s]", e.Action, e.Size, strings.Join(frames, ", ")))
	}
	var got []string
	for _, l := range strings.Split(string(out), "\n") {
		if l != "" && !strings.HasPrefix(l, " ") && !strings.Contains(l, " > ") && !strings.HasPrefix(l, "whole-run peak:") {
			got = append(got, l)
		}
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("_snapshot() printed\n%s\nthe dump reads\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(snap.Events) != 6 {
		t.Errorf("%d events in the dump, want 6 (two segments, two allocations, a free's two events)", len(snap.Events))
	}
}
