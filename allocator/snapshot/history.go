package snapshot

// A device's history is prepared from its records (eventRecord), as the
// pickle is read into them: the Events of a snapshot are made only where
// they are asked for (Load), and a Replay makes the Event of an op when
// it is asked for it.

// noEvent stands for no event: before a history's first or after its
// last.
var noEvent = eventRecord{action: actNone}

// history is the snapshot's events as records: those a pickle was read
// into, where Events was not made from them, else Events'.
func (s *Snapshot) history() *eventList {
	if s.Events == nil && s.log != nil {
		return s.log
	}
	return historyOf(s.Events)
}

// historyOf is events as records.
func historyOf(events []Event) *eventList {
	l := &eventList{tables: newEventTables()}
	for _, e := range events {
		l.append(e)
	}
	return l
}

// append adds e as a record. Consecutive events that share a stack or
// other fields share their number.
func (l *eventList) append(e Event) {
	t := l.tables
	r := eventRecord{addr: e.Addr, size: e.Size, stream: e.Stream, time: e.Time, action: t.name(e.Action), missing: e.missing}
	if e.Frames != (Stack{}) {
		if t.stacks[len(t.stacks)-1] != e.Frames {
			t.stacks = append(t.stacks, e.Frames)
		}
		r.frames = uint32(len(t.stacks) - 1)
	}
	if e.extra != nil {
		if t.extras[len(t.extras)-1] != e.extra {
			t.extras = append(t.extras, e.extra)
		}
		r.extra = uint32(len(t.extras) - 1)
	}
	l.add(r)
}

// len is the number of events.
func (l *eventList) len() int { return l.records.n }

// record is event i's record; noEvent past the end.
func (l *eventList) record(i int) *eventRecord {
	if i >= l.records.n {
		return &noEvent
	}
	return l.records.at(uint64(i))
}

// event is event i.
func (l *eventList) event(i int) Event { return l.tables.event(*l.records.at(uint64(i))) }

// releases reports whether the event gives memory back to the driver.
func (r *eventRecord) releases() bool {
	return r.action == actSegmentFree || r.action == actSegmentUnmap
}

// ops counts the ops the history's allocations, failed allocations and
// frees make: what Prepare's ops take, less a late start's preload and
// the program's empty_caches.
func (l *eventList) ops() int {
	n := 0
	for _, c := range l.records.chunks {
		for i := range c {
			switch c[i].action {
			case actAlloc, actOOM, actFreeCompleted:
				n++
			}
		}
	}
	return n
}
