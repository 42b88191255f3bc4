package engine

import (
	"bytes"
	"strconv"
	"strings"
)

// The built-in table holds many thousands of recorded configurations
// (testdata/conv/networks.jsonl.gz), read at a session's first
// convolution, so a line of the compact form as the probes write it
// (scripts/conv_compact.py: no spaces, no escapes) is read by the
// scanner here; any other line, or one it does not follow, goes to
// encoding/json, which reads every form.

// compactScanner reads one line of the compact form.
type compactScanner struct {
	b   []byte
	i   int
	bad bool
}

// parseCompact reads a compact line as the probes write it; ok is false
// for a line in any other form.
func parseCompact(b []byte) (l convLine, ok bool) {
	ok = true
	if bytes.IndexByte(b, '\\') >= 0 {
		return l, false
	}
	s := &compactScanner{b: b}
	s.expect('{')
	for !s.bad && s.peek() != '}' {
		key := s.str()
		s.expect(':')
		switch key {
		case "x":
			l.X = s.ints()
		case "w":
			l.W = s.ints()
		case "stride":
			l.Stride = s.ints()
		case "padding":
			l.Padding = s.ints()
		case "dilation":
			l.Dilation = s.ints()
		case "output_padding":
			l.OutputPadding = s.ints()
		case "groups":
			l.Groups = s.integer()
		case "bias":
			l.Bias = s.boolean()
		case "deterministic":
			l.Deterministic = s.boolean()
		case "transposed":
			l.Transposed = s.boolean()
		case "dtype":
			l.DType = intern(s.str())
		case "format":
			l.Format = intern(s.str())
		case "fwd":
			l.Fwd = s.str()
		case "error":
			l.Error = s.str()
		case "bwd":
			j := bytes.IndexByte(b[s.i:], '}')
			if j < 0 {
				return l, false
			}
			l.bwdText = string(b[s.i : s.i+j+1])
			if l.runs, ok = backwardRuns(b[s.i : s.i+j+1]); !ok {
				return l, false
			}
			s.i += j + 1
		default:
			return l, false
		}
		if s.peek() == ',' {
			s.i++
		}
	}
	s.expect('}')
	return l, !s.bad && s.i == len(b) && l.Fwd != "" || !s.bad && s.i == len(b) && l.Error != ""
}

// backwardRuns are the keys of a compact line's bwd object (b), each a
// grad mask with "/dense" or "/expanded" after it or not.
func backwardRuns(b []byte) ([]convBackwardKey, bool) {
	s := &compactScanner{b: b}
	var runs []convBackwardKey
	s.expect('{')
	for !s.bad && s.peek() != '}' {
		bk := convBackwardKey{s.str(), "dense"}
		if mask, grad, ok := strings.Cut(bk.mask, "/"); ok {
			bk = convBackwardKey{mask, grad}
		}
		if bk.mask == "" || strings.Trim(bk.mask, "xwb") != "" || bk.grad != "dense" && bk.grad != "expanded" {
			return nil, false
		}
		runs = append(runs, bk)
		s.expect(':')
		s.expect('"')
		j := bytes.IndexByte(s.b[s.i:], '"')
		if s.bad || j < 0 {
			return nil, false
		}
		s.i += j + 1
		if s.peek() == ',' {
			s.i++
		}
	}
	s.expect('}')
	return runs, !s.bad && s.i == len(b)
}

// intern is a dtype's or layout's name as a constant string, where it is
// one (most lines share a few).
func intern(name string) string {
	for _, c := range []string{"float32", "bfloat16", "float16", "contiguous", "channels_last"} {
		if name == c {
			return c
		}
	}
	return name
}

// stringMap reads text, an object of strings (a compact line's bwd).
func (s *compactScanner) stringMap(text string) (map[string]string, bool) {
	*s = compactScanner{b: []byte(text)}
	m := map[string]string{}
	if text == "" {
		return m, true
	}
	s.expect('{')
	for !s.bad && s.peek() != '}' {
		k := s.str()
		s.expect(':')
		m[k] = s.str()
		if s.peek() == ',' {
			s.i++
		}
	}
	s.expect('}')
	return m, !s.bad && s.i == len(s.b)
}

// peek is the next byte (0 at the end).
func (s *compactScanner) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	s.bad = true
	return 0
}

// expect passes over c, which must come next.
func (s *compactScanner) expect(c byte) {
	if s.peek() != c {
		s.bad = true
		return
	}
	s.i++
}

// str is a string without escapes.
func (s *compactScanner) str() string {
	s.expect('"')
	j := bytes.IndexByte(s.b[s.i:], '"')
	if s.bad || j < 0 {
		s.bad = true
		return ""
	}
	v := string(s.b[s.i : s.i+j])
	s.i += j + 1
	return v
}

// integer is a non-negative integer.
func (s *compactScanner) integer() int64 {
	j := s.i
	for j < len(s.b) && s.b[j] >= '0' && s.b[j] <= '9' {
		j++
	}
	n, err := strconv.ParseInt(string(s.b[s.i:j]), 10, 64)
	if err != nil {
		s.bad = true
	}
	s.i = j
	return n
}

// ints is a list of integers.
func (s *compactScanner) ints() []int64 {
	s.expect('[')
	v := make([]int64, 0, 4)
	for !s.bad && s.peek() != ']' {
		v = append(v, s.integer())
		if s.peek() == ',' {
			s.i++
		}
	}
	s.expect(']')
	return v
}

// boolean is true or false.
func (s *compactScanner) boolean() bool {
	for _, w := range []string{"true", "false"} {
		if bytes.HasPrefix(s.b[s.i:], []byte(w)) {
			s.i += len(w)
			return w == "true"
		}
	}
	s.bad = true
	return false
}
