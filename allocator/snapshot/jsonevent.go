package snapshot

import (
	"encoding/json"
	"strings"
)

// UnmarshalJSON reads one event of the JSON flattening. Events are flat
// objects of numbers and one string, and a long history has a million of
// them: read by hand they cost a fraction of encoding/json's reflection.
// Anything else (escapes, fractions, other types) goes to encoding/json,
// so the result is always what it would give.
func (e *jsonEvent) UnmarshalJSON(b []byte) error {
	var fast jsonEvent
	if scanEvent(&fast, b) {
		*e = fast
		return nil
	}
	type plain jsonEvent // jsonEvent's fields without this method
	err := json.Unmarshal(b, (*plain)(e))
	e.Action = action(e.Action)
	return err
}

// scanEvent fills e from b, a valid JSON value (the decoder has scanned
// it), and reports whether b was simple enough to read here.
func scanEvent(e *jsonEvent, b []byte) bool {
	s := eventScanner{b: b}
	if !s.byte('{') {
		return false
	}
	if s.byte('}') {
		return true
	}
	for {
		key, ok := s.str()
		if !ok || !s.byte(':') {
			return false
		}
		s.space()
		switch string(key) { // compared in place, not copied
		case "action":
			v, ok := s.str()
			if !ok {
				return false
			}
			a, known := actions[string(v)]
			if !known {
				a = string(v)
			}
			e.Action = a
		case "addr":
			ok = s.uint(&e.Addr)
		case "size":
			ok = s.uint(&e.Size)
		case "stream":
			ok = s.uint(&e.Stream)
		case "time_us":
			var t uint64
			ok = s.uint(&t) && t < 1<<63
			e.Time = int64(t)
		case "device":
			var d uint64
			ok = s.uint(&d) && d < 1<<31
			e.Device = int(d)
		default:
			if known(string(key)) {
				return false // a key encoding/json would match ignoring case
			}
			ok = s.skip()
		}
		if !ok {
			return false
		}
		if s.byte('}') {
			s.space()
			return s.i == len(s.b)
		}
		if !s.byte(',') {
			return false
		}
	}
}

// known reports whether key names a field of jsonEvent in another case.
func known(key string) bool {
	for _, k := range []string{"action", "addr", "size", "stream", "time_us", "device"} {
		if strings.EqualFold(key, k) {
			return true
		}
	}
	return false
}

type eventScanner struct {
	b []byte
	i int
}

func (s *eventScanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\n' || s.b[s.i] == '\t' || s.b[s.i] == '\r') {
		s.i++
	}
}

// byte consumes c after any space.
func (s *eventScanner) byte(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// str reads a string of ASCII without escapes (encoding/json rewrites
// invalid UTF-8, so anything beyond ASCII goes to it).
func (s *eventScanner) str() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) && s.b[s.i] != '"' {
		if c := s.b[s.i]; c == '\\' || c >= 0x80 {
			return nil, false
		}
		s.i++
	}
	if s.i == len(s.b) {
		return nil, false
	}
	s.i++
	return s.b[start : s.i-1], true
}

// uint reads a whole number that fits in 64 bits.
func (s *eventScanner) uint(v *uint64) bool {
	start := s.i
	var n uint64
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		d := uint64(s.b[s.i] - '0')
		if n > (1<<64-1-d)/10 {
			return false
		}
		n = n*10 + d
		s.i++
	}
	if s.i == start || (s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E')) {
		return false
	}
	*v = n
	return true
}

// skip reads past one value of any kind, up to the comma or brace that
// follows it: brackets counted, strings (escapes included) stepped over.
func (s *eventScanner) skip() bool {
	depth := 0
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			for s.i++; s.i < len(s.b) && s.b[s.i] != '"'; s.i++ {
				if s.b[s.i] == '\\' {
					s.i++
				}
			}
			s.i++
		case c == '[' || c == '{':
			depth++
			s.i++
		case c == ']' || c == '}':
			if depth == 0 {
				return true
			}
			depth--
			s.i++
		case c == ',' && depth == 0:
			return true
		default:
			s.i++
		}
	}
	return depth == 0
}
