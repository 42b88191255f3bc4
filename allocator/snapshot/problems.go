package snapshot

import "fmt"

// Problem is something contradictory or unknown in a snapshot (an
// unknown action, a NaN address, overlapping segments, bytes after the
// pickle): an error under replay --check, a warning otherwise.
type Problem struct {
	Device int    // the device whose trace holds the event
	Event  int    // the event's index in its device's trace; -1 when not an event's
	Offset int64  // the pickle offset of the event's dict, or of the data at fault; -1 when none
	Path   string // where else it is (segments[3]), when neither
	Msg    string
	list   *eventList // the event's trace, whose device is known once it is attached
}

func (p Problem) String() string {
	where := ""
	switch {
	case p.Event >= 0 && p.Offset >= 0:
		where = fmt.Sprintf("cuda:%d event %d (pickle offset %d): ", p.Device, p.Event, p.Offset)
	case p.Event >= 0:
		where = fmt.Sprintf("cuda:%d event %d: ", p.Device, p.Event)
	case p.Offset >= 0:
		where = fmt.Sprintf("pickle offset %d: ", p.Offset)
	case p.Path != "":
		where = p.Path + ": "
	}
	return where + p.Msg
}
