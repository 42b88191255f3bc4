package snapshot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// isFlattening reports whether a JSON file's top-level object names
// "events" before any "ops": a snapshot's flattening, read once, not
// first tried as an ops trace. It reads only the keys and skips what
// comes before.
func isFlattening(path string, limits Limits) bool {
	in, f, err := openInput(path, limits.MaxBytes, "snapshot")
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(in)
	found := errors.New("found")
	events := false
	err = eachKey(dec, func(key string) error {
		switch key {
		case "events":
			events = true
			return found
		case "ops":
			return found
		}
		return skipValue(dec)
	})
	return err == found && events
}

// errNoEvents is a JSON file that is no snapshot either.
var errNoEvents = errors.New(`not a snapshot: no "events"`)

// fromJSON reads the flattening: {"alloc_conf", "events",
// "final_segments"}, one event at a time into its device's records, so
// that a long history never sits in memory as text beside its events.
func fromJSON(r io.Reader) ([]*Snapshot, error) {
	dec := json.NewDecoder(r)
	s := &Snapshot{} // the settings every device shares
	ds := devices{}
	tables := newEventTables() // each device's history is read into records
	sawEvents := false
	err := eachKey(dec, func(key string) error {
		switch key {
		case "alloc_conf":
			return dec.Decode(&s.AllocConf)
		case "events":
			sawEvents = true
			return eachElement(dec, func() error {
				var e jsonEvent
				if err := dec.Decode(&e); err != nil {
					return err
				}
				d := ds.of(e.Device, s)
				if d.log == nil {
					d.log = &eventList{tables: tables}
				}
				d.log.append(e.Event)
				return nil
			})
		case "final_segments":
			var segs []Segment
			if err := dec.Decode(&segs); err != nil {
				return err
			}
			for _, g := range segs {
				d := ds.of(g.Device, s)
				d.Segments = append(d.Segments, g)
			}
			return nil
		}
		return skipValue(dec)
	})
	if err != nil {
		return nil, fmt.Errorf("not a snapshot: %w", err)
	}
	if !sawEvents {
		return nil, errNoEvents
	}
	return ds.list(s), nil
}

// eachKey calls f with each key of the JSON object dec is at; f reads
// the key's value.
func eachKey(dec *json.Decoder, f func(key string) error) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		if err := f(t.(string)); err != nil {
			return err
		}
	}
	return expectDelim(dec, '}')
}

// eachElement calls f for each element of the JSON array dec is at; f
// reads the element.
func eachElement(dec *json.Decoder, f func() error) error {
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	for dec.More() {
		if err := f(); err != nil {
			return err
		}
	}
	return expectDelim(dec, ']')
}

func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return fmt.Errorf("expected %q, found %v", want, t)
	}
	return nil
}

// skipValue reads past the next value, token by token.
func skipValue(dec *json.Decoder) error {
	depth := 0
	for {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// maxPickle is the largest snapshot read (a 1,000,000-event history is
// some 200 MB).
