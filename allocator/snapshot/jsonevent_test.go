package snapshot

import (
	"encoding/json"
	"testing"
)

// The hand reader gives what encoding/json gives, on simple events and
// on everything it hands back.
func TestEventReaderMatchesEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{"device": 0, "action": "segment_alloc", "addr": 140451210330112, "size": 16777216, "stream": 0, "time_us": 1796197769684410}`,
		`{"action":"alloc","addr":1,"size":2,"frames":[{"filename":"a\"b.py","line":3,"name":"f"}],"stream":94000000000}`,
		`{ "action" : "free_completed" , "addr" : 18446744073709551615 , "extra": {"x": [1, {"y": "}"}]}, "size": 0 }`,
		`{"action":"oom","size":1e3}`,
		`{"action":"al\u006coc","addr":5}`,
		`{"Action":"alloc","ADDR":7}`,
		`{"action":"alloc","addr":-1}`,
		`{"action":"alloc","device":3,"compile_context":null,"user_metadata":""}`,
		`{}`,
		`{"action":"alloc","time_us":12.5}`,
	} {
		var want, got jsonEvent
		type plain jsonEvent
		werr := json.Unmarshal([]byte(in), (*plain)(&want))
		gerr := json.Unmarshal([]byte(in), &got)
		if (werr == nil) != (gerr == nil) || want != got {
			t.Errorf("%s:\n got %+v (%v)\nwant %+v (%v)", in, got, gerr, want, werr)
		}
	}
}

// FuzzEventReader holds the hand reader to encoding/json on any input.
func FuzzEventReader(f *testing.F) {
	f.Add(`{"action":"alloc","addr":1,"size":2,"stream":0,"time_us":3,"device":1,"frames":[]}`)
	f.Fuzz(func(t *testing.T, in string) {
		var want, got jsonEvent
		type plain jsonEvent
		werr := json.Unmarshal([]byte(in), (*plain)(&want))
		gerr := json.Unmarshal([]byte(in), &got)
		if (werr == nil) != (gerr == nil) || (werr == nil && want != got) {
			t.Errorf("%q: got %+v (%v), want %+v (%v)", in, got, gerr, want, werr)
		}
	})
}
