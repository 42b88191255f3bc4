package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// decoder reads a trace's JSON object as a stream: each op straight into
// an Op (no decoded JSON held for the ops), the other fields a value at a
// time through encoding/json. Its errors say the byte offset, or the op.
type decoder struct {
	r   *bufio.Reader
	off int64 // bytes consumed
	raw []byte
}

// syntaxError is malformed JSON at byte offset off.
type syntaxError struct {
	off int64
	msg string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("byte %d: %s", e.off, e.msg) }

// OpError is an op the loader cannot make sense of: its index and why.
type OpError struct {
	Op  int
	Msg string
}

func (e *OpError) Error() string { return fmt.Sprintf("op %d: %s", e.Op, e.Msg) }

func (d *decoder) fail(format string, args ...any) error {
	return &syntaxError{d.off, fmt.Sprintf(format, args...)}
}

// readErr turns a read error (the limit, a gzip error) or the end of
// the input into the decoder's error.
func (d *decoder) readErr(err error) error {
	if err == io.EOF {
		return d.fail("unexpected end of JSON")
	}
	return err
}

// peek skips white space and returns the next byte, not consuming it.
func (d *decoder) peek() (byte, error) {
	for {
		c, err := d.r.ReadByte()
		if err != nil {
			return 0, err
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			d.r.UnreadByte() //nolint:errcheck // just read
			return c, nil
		}
		d.off++
	}
}

// expect consumes the byte c, after white space.
func (d *decoder) expect(c byte) error {
	got, err := d.peek()
	if err != nil {
		return d.readErr(err)
	}
	if got != c {
		return d.fail("want %q, found %q", c, got)
	}
	d.r.ReadByte() //nolint:errcheck // peeked
	d.off++
	return nil
}

// next consumes and returns the next byte after white space.
func (d *decoder) next() (byte, error) {
	c, err := d.peek()
	if err != nil {
		return 0, d.readErr(err)
	}
	d.r.ReadByte() //nolint:errcheck // peeked
	d.off++
	return c, nil
}

// rawValue reads one JSON value as its bytes, into d.raw: strings and
// nesting are followed, the rest is left to encoding/json to check.
func (d *decoder) rawValue() ([]byte, error) {
	d.raw = d.raw[:0]
	if _, err := d.peek(); err != nil {
		return nil, d.readErr(err)
	}
	depth, inString, escaped := 0, false, false
	for {
		c, err := d.r.ReadByte()
		if err != nil {
			return nil, d.readErr(err)
		}
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			d.r.UnreadByte() //nolint:errcheck // just read
			return d.raw, nil
		}
		if depth < 0 {
			d.r.UnreadByte() //nolint:errcheck // just read: the end of the enclosing value
			return d.raw, nil
		}
		d.raw = append(d.raw, c)
		d.off++
		if depth == 0 && !inString && (c == '}' || c == ']' || c == '"') {
			return d.raw, nil
		}
	}
}

// value decodes the next value into v (numbers as json.Number).
func (d *decoder) value(v any) error {
	at := d.off
	raw, err := d.rawValue()
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			at += se.Offset
		}
		return &syntaxError{at, err.Error()}
	}
	return nil
}

// str reads a JSON string. The names of the format come back as
// constants, so that reading a million ops allocates no strings.
func (d *decoder) str() (string, error) {
	c, err := d.peek()
	if err != nil {
		return "", d.readErr(err)
	}
	if c != '"' {
		return "", d.fail("want a string, found %q", c)
	}
	at := d.off
	raw, err := d.rawValue()
	if err != nil {
		return "", err
	}
	if body, ok := plainString(raw); ok {
		return intern(body), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", &syntaxError{at, err.Error()}
	}
	return s, nil
}

// plainString is the body of a quoted string without escapes or control
// characters, whose bytes are its value.
func plainString(raw []byte) ([]byte, bool) {
	if len(raw) < 2 || raw[len(raw)-1] != '"' {
		return nil, false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c < 0x20 || c == '\\' || c >= 0x80 {
			return nil, false
		}
	}
	return body, true
}

// intern returns the format's own words without allocating.
func intern(b []byte) string {
	switch string(b) {
	case "op":
		return "op"
	case "id":
		return "id"
	case "size":
		return "size"
	case "stream":
		return "stream"
	case "oom":
		return "oom"
	case "alloc":
		return "alloc"
	case "free":
		return "free"
	case "empty_cache":
		return "empty_cache"
	case "noop":
		return "noop"
	}
	return string(b)
}

// number reads a JSON number's text.
func (d *decoder) number() (string, error) {
	raw, err := d.rawValue()
	if err != nil {
		return "", err
	}
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return "", d.fail("want a number, found %s", excerpt(raw))
	}
	return string(raw), nil
}

// excerpt quotes at most the first 32 bytes of raw.
func excerpt(raw []byte) string {
	if len(raw) > 32 {
		return strconv.Quote(string(raw[:32])) + "..."
	}
	return strconv.Quote(string(raw))
}

// object reads a JSON object, calling field for each key with the
// decoder at its value.
func (d *decoder) object(field func(key string) error) error {
	return d.sequence('{', '}', func(int) error {
		key, err := d.str()
		if err != nil {
			return err
		}
		if err := d.expect(':'); err != nil {
			return err
		}
		return field(key)
	})
}

// sequence reads an object or array, from open to end, calling elem for
// each member (its index) with the decoder at it.
func (d *decoder) sequence(open, end byte, elem func(i int) error) error {
	if err := d.expect(open); err != nil {
		return err
	}
	if c, err := d.peek(); err == nil && c == end {
		return d.expect(end)
	}
	for i := 0; ; i++ {
		if err := elem(i); err != nil {
			return err
		}
		c, err := d.next()
		if err != nil {
			return err
		}
		switch c {
		case ',':
		case end:
			return nil
		default:
			return &syntaxError{d.off - 1, fmt.Sprintf("want ',' or %q after member %d, found %q", end, i, c)}
		}
	}
}

// skip reads past one value.
func (d *decoder) skip() error {
	_, err := d.rawValue()
	return err
}

// rawOp is one op as the file has it, before it is checked.
type rawOp struct {
	op           string
	id, size     int64
	stream       uint64
	oom          bool
	hasOp, hasID bool
}

// op reads the ops array's element i.
func (d *decoder) op(i int) (rawOp, error) {
	var o rawOp
	err := d.object(func(key string) error {
		var err error
		switch key {
		case "op":
			o.hasOp = true
			o.op, err = d.str()
		case "id":
			o.hasID = true
			o.id, err = d.integer(i, key)
		case "size":
			o.size, err = d.integer(i, key)
		case "stream":
			var n int64
			n, err = d.integer(i, key)
			if err == nil && n < 0 {
				err = &OpError{i, fmt.Sprintf("stream %d is negative", n)}
			}
			o.stream = uint64(n)
		case "oom":
			o.oom, err = d.boolean(i, key)
		default:
			err = d.skip()
		}
		return err
	})
	return o, err
}

// integer reads an integer field of op i.
func (d *decoder) integer(i int, key string) (int64, error) {
	s, err := d.number()
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, &OpError{i, fmt.Sprintf("%s %s is not an integer from -2^63 to 2^63-1", key, excerpt([]byte(s)))}
	}
	return n, nil
}

// boolean reads a true or false field of op i.
func (d *decoder) boolean(i int, key string) (bool, error) {
	raw, err := d.rawValue()
	if err != nil {
		return false, err
	}
	switch string(raw) {
	case "true":
		return true, nil
	case "false", "null":
		return false, nil
	}
	return false, &OpError{i, fmt.Sprintf("%s %s is not true or false", key, excerpt(raw))}
}

// ops reads the ops array, handing each op to add.
func (d *decoder) ops(add func(i int, o rawOp) error) error {
	return d.sequence('[', ']', func(i int) error {
		o, err := d.op(i)
		if err != nil {
			return err
		}
		return add(i, o)
	})
}

// rest reads what follows the trace's object: white space only, else a
// trailing-data problem.
func (d *decoder) rest() (bool, error) {
	_, err := d.peek()
	if err == io.EOF {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	// Read (and count) the rest, so a gzip stream's checksum is checked.
	_, err = io.Copy(io.Discard, d.r)
	return true, err
}
