package allocator

import (
	"testing"
)

// fakeEvents is a StreamEvents whose events complete when the test says.
type fakeEvents struct {
	next      uint64
	done      map[uint64]bool // by event
	waited    []uint64
	completed []uint64 // freed addresses, in order
}

func (f *fakeEvents) Record(stream uint64) uint64 { f.next++; return f.next }
func (f *fakeEvents) Done(_, e uint64) bool       { return f.done[e] }
func (f *fakeEvents) Wait(_, e uint64)            { f.waited = append(f.waited, e); f.done[e] = true }
func (f *fakeEvents) FreeCompleted(_, ptr, _ uint64) {
	f.completed = append(f.completed, ptr)
}

const mib = 1 << 20

// figures are allocated, active, requested and reserved bytes.
func figures(a *Allocator) [4]int64 {
	s := a.Stats()
	return [4]int64{s.AllocatedBytes[bucketAll].Current, s.ActiveBytes[bucketAll].Current, s.RequestedBytes[bucketAll].Current, s.ReservedBytes[bucketAll].Current}
}

// TestRecordStreamWaitsForEvents follows testdata/pyrules/streams_record.py's
// second case: a block used on stream 7 and freed is active, not
// allocated, until its event completes; a malloc before that takes a new
// segment, the one after reuses the block.
func TestRecordStreamWaitsForEvents(t *testing.T) {
	a := newTest(t, "")
	ev := &fakeEvents{done: map[uint64]bool{}}
	a.SetStreamEvents(ev)
	check := func(step string, want [4]int64) {
		t.Helper()
		if got := figures(a); got != want {
			t.Errorf("%s: allocated, active, requested, reserved = %v, want %v", step, got, want)
		}
		if err := a.CheckInvariants(); err != nil {
			t.Errorf("%s: %v", step, err)
		}
	}
	x, _ := a.MallocOn(0, 32*mib)
	if _, err := a.MallocOn(7, 32*mib); err != nil {
		t.Fatal(err)
	}
	if err := a.RecordStream(x, 7); err != nil {
		t.Fatal(err)
	}
	if err := a.RecordStream(x, 0); err != nil { // its own stream: no event
		t.Fatal(err)
	}
	if err := a.Free(x); err != nil {
		t.Fatal(err)
	}
	check("pending free", [4]int64{32 * mib, 64 * mib, 64 * mib, 64 * mib})
	if segs := a.Snapshot(); segs[0].Blocks[0].State != StatePendingFree && segs[1].Blocks[0].State != StatePendingFree {
		t.Errorf("no block shows as %s: %+v", StatePendingFree, segs)
	}
	z, _ := a.MallocOn(0, 32*mib)
	check("malloc while pending", [4]int64{64 * mib, 96 * mib, 96 * mib, 96 * mib})
	if z == x || len(ev.completed) != 0 {
		t.Errorf("a pending block was reused (%#x) or completed (%v)", z, ev.completed)
	}
	ev.done[1] = true
	w, _ := a.MallocOn(0, 32*mib)
	if w != x || len(ev.completed) != 1 || ev.completed[0] != x {
		t.Errorf("after the event: got %#x, completed %v; want the freed block %#x", w, ev.completed, x)
	}
	check("after the event", [4]int64{96 * mib, 96 * mib, 96 * mib, 96 * mib})
	if p := a.Stats().ActiveBytes[bucketAll].Peak; p != 96*mib {
		t.Errorf("active peak %d, want %d", p, 96*mib)
	}
	if err := a.RecordStream(w, 7); err != nil {
		t.Fatal(err)
	}
	if err := a.Free(w); err != nil {
		t.Fatal(err)
	}
	if err := a.EmptyCache(); err != nil {
		t.Fatal(err)
	}
	if len(ev.waited) != 1 || ev.waited[0] != 2 {
		t.Errorf("empty_cache waited for %v, want [2]", ev.waited)
	}
	check("empty_cache waits", [4]int64{64 * mib, 64 * mib, 64 * mib, 64 * mib})
	if err := a.RecordStream(w, 7); err == nil {
		t.Error("record_stream of a freed block: no error")
	}
}

// TestEventsInStreamOrder: a stream's events are looked at in the order
// they were recorded, so a done event behind one not done waits.
func TestEventsInStreamOrder(t *testing.T) {
	a := newTest(t, "")
	ev := &fakeEvents{done: map[uint64]bool{}}
	a.SetStreamEvents(ev)
	x, _ := a.MallocOn(0, 32*mib)
	y, _ := a.MallocOn(0, 32*mib)
	for _, p := range []uint64{x, y} {
		if err := a.RecordStream(p, 5); err != nil {
			t.Fatal(err)
		}
		if err := a.Free(p); err != nil {
			t.Fatal(err)
		}
	}
	ev.done[2] = true
	if _, err := a.MallocOn(0, 1000); err != nil {
		t.Fatal(err)
	}
	if len(ev.completed) != 0 {
		t.Errorf("completed %v behind an event not done", ev.completed)
	}
	ev.done[1] = true
	if _, err := a.MallocOn(0, 1000); err != nil {
		t.Fatal(err)
	}
	if len(ev.completed) != 2 || ev.completed[0] != x || ev.completed[1] != y {
		t.Errorf("completed %v, want [%#x %#x]", ev.completed, x, y)
	}
	if err := a.CheckInvariants(); err != nil {
		t.Error(err)
	}
}
