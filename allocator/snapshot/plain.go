package snapshot

// The plain data a snapshot keeps without modelling it (stacks, an
// event's compile_context and user_metadata, external_annotations,
// host_traces, a segment's pool id...) is held as these values, read from
// the pickle and written back to it unchanged: nil, bool, int64, *bigInt,
// float64, string, pyBytes, *list, *dict, tuple. A value the pickle
// shares (its memo) stays one value, and is written once.

// list is a Python list.
type list struct{ items []any }

// dict is a Python dict, its items in order.
type dict struct{ items []item }

type item struct{ key, value any }

// tuple is a Python tuple.
type tuple []any

// pyBytes is a Python bytes object.
type pyBytes []byte

// bigInt is an integer beyond 64 bits, as its little-endian two's
// complement bytes (LONG1 and LONG4 hold it so; at most maxIntBytes).
type bigInt struct{ le []byte }

// get is d[key] for a string key, or nil.
func (d *dict) get(key string) any {
	for _, it := range d.items {
		if k, ok := it.key.(string); ok && k == key {
			return it.value
		}
	}
	return nil
}

// set replaces d[key], or adds it at the end.
func (d *dict) set(key string, v any) {
	for i, it := range d.items {
		if k, ok := it.key.(string); ok && k == key {
			d.items[i].value = v
			return
		}
	}
	d.items = append(d.items, item{key, v})
}

// without is a copy of d without the given string keys.
func (d *dict) without(keys ...string) *dict {
	out := &dict{}
	for _, it := range d.items {
		k, ok := it.key.(string)
		if ok && contains(keys, k) {
			continue
		}
		out.items = append(out.items, it)
	}
	return out
}

func contains(keys []string, k string) bool {
	for _, x := range keys {
		if x == k {
			return true
		}
	}
	return false
}

// Frame is one frame of a stack, as PyTorch records it and memory_viz
// shows it: the file, the line and the function.
type Frame struct {
	Filename string
	Line     int
	Name     string
}

// Stack is the frames of an allocation (or a free, or a segment's
// creation), innermost first, as _record_memory_history records them.
// One Stack is shared by every event and block that has it, and written
// once. The zero Stack has no frames.
type Stack struct{ s *stack }

// stack is a Stack's frames: those it was made of (NewStack), or the
// list it was read as. A made stack's list is made when it is first
// written, so that a history of a million stacks holds two small
// objects each until then.
type stack struct {
	frames []Frame
	l      *list
}

// NewStack makes a stack of frames, innermost first.
func NewStack(frames ...Frame) Stack {
	return Stack{&stack{frames: append(make([]Frame, 0, len(frames)), frames...)}}
}

// Frames is the stack's frames: those that have a filename, a line and a
// name (PyTorch's all do).
func (s Stack) Frames() []Frame {
	if s.s == nil {
		return nil
	}
	if s.s.l == nil {
		return append([]Frame(nil), s.s.frames...)
	}
	var out []Frame
	for _, v := range s.s.l.items {
		d, ok := v.(*dict)
		if !ok {
			continue
		}
		file, okf := d.get("filename").(string)
		line, okl := d.get("line").(int64)
		name, okn := d.get("name").(string)
		if okf && okl && okn {
			out = append(out, Frame{Filename: file, Line: int(line), Name: name})
		}
	}
	return out
}

// value is the stack as written: a list, empty for the zero Stack.
func (s Stack) value() any {
	if s.s == nil {
		return emptyList
	}
	if s.s.l == nil {
		l := &list{items: make([]any, len(s.s.frames))}
		for i, f := range s.s.frames {
			l.items[i] = &dict{items: []item{{"name", f.Name}, {"filename", f.Filename}, {"line", int64(f.Line)}}}
		}
		s.s.l = l
	}
	return s.s.l
}

// emptyList is the one empty list every frameless event and block
// shares, as PyTorch's own snapshot does.
var emptyList = &list{}
