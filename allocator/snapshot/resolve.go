package snapshot

import (
	"fmt"
	"slices"

	"github.com/gpumemrepl/gpumemrepl/allocator/trace"
)

// openRun is a run of releases the event order could not attribute.
type openRun struct {
	at       int // the op its empty_cache would come before: its allocation
	from, to int // its events among Replay.SegmentEvents
	event    int // its first event in the history
}

// Resolve decides the releases the event order could not attribute by
// replaying the history where it was recorded: under its own config, on
// o's device and at o's limit (which a snapshot does not record). At each
// such run the allocation that follows it is made without it: if the
// allocator then releases what the recording released, the run was its
// own; if not, the program had called empty_cache. Each of the program's
// costs a replay from the start (the allocation already made is undone
// that way).
func (r *Replay) Resolve(o trace.Options) error {
	conf := r.Trace.AllocConf
	o.AllocConf = &conf
	base := r.Trace.Ops
	var users []openRun // the runs found to be the program's
	ops, rp, log, err := r.replayWith(base, users, o)
	if err != nil {
		return err
	}
	defer func() { rp.A.Close() }() //nolint:errcheck // only its decisions are kept
	done := 0                       // ops of rp run so far
	for _, run := range r.open {
		at := run.at + len(users) // each empty_cache before it moves it on
		for ; done < at; done++ {
			if _, err := rp.Step(); err != nil {
				return err
			}
		}
		n := len(log.Events)
		if _, err := rp.Step(); err != nil {
			return err
		}
		done++
		if slices.Equal(ownReleases(log.Events[n:]), r.SegmentEvents[run.from:run.to]) {
			r.Releases.Own++
			continue
		}
		users = append(users, run)
		r.Releases.User++
		rp.A.Close() //nolint:errcheck // replayed again from the start
		if ops, rp, log, err = r.replayWith(base, users, o); err != nil {
			return err
		}
		done = 0
	}
	r.Releases.Unattributed -= len(r.open)
	r.Releases.Resolved = len(r.open)
	r.open = nil
	r.remap(users)
	t, err := trace.New(r.Trace.Path, conf, ops)
	if err != nil {
		return err
	}
	t.Device, t.Start = r.Trace.Device, r.Trace.Start
	r.Trace = t
	return nil
}

// remap moves what each op was made from, and the events kept in place,
// past the empty_cache ops put before the runs in users (in order).
func (r *Replay) remap(users []openRun) {
	if len(r.opEvent) != len(r.Trace.Ops) {
		return
	}
	opEvent := make([]int32, 0, len(r.opEvent)+len(users))
	freeReq := make([]int32, 0, len(r.opEvent)+len(users))
	from := 0
	for _, u := range users {
		opEvent = append(append(opEvent, r.opEvent[from:u.at]...), int32(u.event))
		freeReq = append(append(freeReq, r.freeReq[from:u.at]...), -1)
		from = u.at
	}
	r.opEvent = append(opEvent, r.opEvent[from:]...)
	r.freeReq = append(freeReq, r.freeReq[from:]...)
	k := 0
	for i := range r.pass {
		for k < len(users) && users[k].at <= int(r.pass[i].op) {
			k++
		}
		r.pass[i].op += int32(k)
	}
}

// replayWith makes the ops of base with an empty_cache before the op of
// each run in users (in order), and a replayer of them under o with the
// recorded segment addresses, whose segment events are logged.
func (r *Replay) replayWith(base []trace.Op, users []openRun, o trace.Options) ([]trace.Op, *trace.Replayer, *SegmentLog, error) {
	ops := make([]trace.Op, 0, len(base)+len(users))
	from := 0
	for _, u := range users {
		ops = append(append(ops, base[from:u.at]...), trace.Op{Op: "empty_cache"})
		from = u.at
	}
	ops = append(ops, base[from:]...)
	t, err := trace.New(r.Trace.Path, *o.AllocConf, ops)
	if err != nil {
		return nil, nil, nil, err
	}
	t.Device = r.Trace.Device
	log := NewSegmentLog(r.NewPlayback(trace.NewDevice(t, o)))
	o.Device = log
	a, err := trace.Setup(t, o)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("resolving its releases: %w", err)
	}
	return ops, trace.NewReplayer(t, a), log, nil
}

// ownReleases is the releases an allocation made before it took its
// segment (or gave up).
func ownReleases(events []SegmentEvent) []SegmentEvent {
	for i, e := range events {
		if !releases(e.Action) {
			return events[:i]
		}
	}
	return events
}
